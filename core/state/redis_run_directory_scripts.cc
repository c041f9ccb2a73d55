#include "core/state/redis_run_directory_scripts.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/state/redis_layout.h"

namespace toolgate {
namespace state {
namespace {

// Expiry of a lease zset: its newest lease, whichever replica took it
// (replicas may disagree on the idle TTL while a config change rolls
// out; the zset must outlive every lease in it).
constexpr char kExpireAtLast[] = R"lua(
local function expire_at_last(key)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]
  if last then redis.call('PEXPIREAT', key, last) end
end
)lua";

redis::Script MakeScript(absl::string_view name, absl::string_view body) {
  // "#!lua": a writer, refused under OOM before it runs; every script below
  // checks everything before its first write (Redis does not roll back).
  return redis::Script(
      std::string(name),
      absl::StrCat("#!lua\n", redis_layout::kLuaNowMs, kExpireAtLast, body));
}


}  // namespace

const redis::Script& RunCreateScript() {
  static const redis::Script* script =
      new redis::Script(MakeScript("run_create", R"lua(
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 'OK'
)lua"));
  return *script;
}

const redis::Script& RunAdmitScript() {
  static const redis::Script* script =
      new redis::Script(MakeScript("run_admit", R"lua(
-- The snapshot is checked here, atomically with the pin DeleteSnapshot
-- checks: a delete either sees this run's pin or comes first.
if redis.call('EXISTS', KEYS[4]) == 0 then return {'NOT_FOUND'} end
local now = now_ms()
for k = 1, 3 do redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', now) end
local runs = redis.call('ZCARD', KEYS[1])
if runs >= tonumber(ARGV[2]) then
  return {'RESOURCE_EXHAUSTED', 'runs', runs}
end
local held = redis.call('ZCARD', KEYS[2])
if held >= tonumber(ARGV[3]) then
  return {'RESOURCE_EXHAUSTED', 'tenant', held}
end
local lease = now + tonumber(ARGV[4])
for k = 1, 3 do
  redis.call('ZADD', KEYS[k], lease, ARGV[1])
  expire_at_last(KEYS[k])
end
return {'OK'}
)lua"));
  return *script;
}

const redis::Script& RunLoadScript() {
  // The token hash is compared here, not in constant time: a timing probe
  // learns at most a prefix of a SHA-256, from which no token follows.
  static const redis::Script* script =
      new redis::Script(MakeScript("run_load", R"lua(
local tok = redis.call('HGET', KEYS[1], 'tok')
if not tok then return {'NOT_FOUND'} end
if tok ~= ARGV[1] then return {'PERMISSION_DENIED'} end
redis.call('PEXPIRE', KEYS[1], redis.call('HGET', KEYS[1], 'ttl'))
if ARGV[2] == '1' then return {'OK', redis.call('HGETALL', KEYS[1])} end
return {'OK'}
)lua"));
  return *script;
}

const redis::Script& RunLeaseScript() {
  static const redis::Script* script =
      new redis::Script(MakeScript("run_lease", R"lua(
local lease = now_ms() + tonumber(ARGV[2])
for k = 1, 3 do
  -- XX: a lease only ever grows while it is there. The run's close (or a
  -- discard) removes it, and a refresh pipelined with the load that finds
  -- the run gone, or racing its close, must not bring it back (it would
  -- pin the snapshot, and count, for another lease). A lease lasts 1.25 x
  -- the run's own TTL from its last refresh, every quarter of that TTL
  -- while used: it is never trimmed while its run is open.
  redis.call('ZADD', KEYS[k], 'XX', 'GT', lease, ARGV[1])
  expire_at_last(KEYS[k])
end
return 'OK'
)lua"));
  return *script;
}

}  // namespace state
}  // namespace toolgate
