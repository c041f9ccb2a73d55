#include "core/state/redis_run_scripts.h"

#include "absl/strings/str_cat.h"
#include "core/state/redis_layout.h"

namespace toolgate {
namespace state {
namespace redis_scripts {
namespace {

// KEYS: 1 run, 2 approval (the presented or the new id; the run key when
// none), 3 the run's pending approvals (zset by expiry), 4 pending ids by
// tool and arguments (hash), 5 all the run's approval ids (zset by
// creation). ARGV: 1 run id, 2 allowable, 3 misformat, 4 has_write,
// 5 approval kind (none|parallel|request|consume), 6 approval id, 7 tool,
// 8 canonical arguments, 9 admitted (request), 10 approval TTL ms,
// 11 pending cap per run, 12 keep after expiry ms, 13 the presented
// token's hash (always checked), 14 number of
// budget charges, then 4 per charge: tool, class (0..2), tool limit,
// class limit.
// Run with now_ms() (redis_layout.h).
constexpr char kCallCommit[] = R"lua(
local run = KEYS[1]
local f = redis.call('HMGET', run, 'tok', 'maxrej', 'rej', 'brk', 'ro',
                     'ttl')
if not f[1] then return {'NOTFOUND'} end
if f[1] ~= ARGV[13] then return {'DENIED'} end
redis.call('PEXPIRE', run, f[6])
local maxrej = tonumber(f[2])
local rej = tonumber(f[3] or '0')
if f[4] == '1' then return {'STOP', maxrej} end
-- The server's clock, read only by the approval paths (the common turn
-- asks nothing of it).
local now = 0
if ARGV[5] == 'request' or ARGV[5] == 'consume' then now = now_ms() end
local ro = f[5] == '1'
local open = ARGV[2] == '1' and not (ro and ARGV[4] == '1')
local decision = open and 'ALLOW' or 'REJECT'
local counts = ARGV[3] == '1'
local kind = ARGV[5]
local id, code, msg = '', '', ''
local consume = false
local create = false
local same_key = ''
if open and kind == 'parallel' then
  decision = 'REJECT'
  counts = true
elseif open and kind == 'request' then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  same_key = ARGV[7] .. '\0' .. redis.sha1hex(ARGV[8])
  local same = redis.call('HGET', KEYS[4], same_key)
  if same and redis.call('ZSCORE', KEYS[3], same) then
    id = same
  else
    local pending = redis.call('ZCARD', KEYS[3])
    if pending >= tonumber(ARGV[11]) then return {'CAP_RUN', pending} end
    if ARGV[9] ~= '1' then return {'ADMIT'} end
    id = ARGV[6]
    create = true
  end
  decision = 'NEEDS'
elseif open and kind == 'consume' then
  local a = redis.call('HMGET', KEYS[2], 'run', 'tool', 'args', 'state',
                       'expires', 'approver', 'reason')
  local st = a[4]
  if st and (st == 'PENDING' or st == 'APPROVED') and
     now >= tonumber(a[5]) then
    st = 'EXPIRED'
  end
  if not st or a[1] ~= ARGV[1] or ARGV[6] == '' then
    code = 'approval_mismatch'
    msg = 'no such approval for this run (approvals are per run)'
  elseif st == 'EXPIRED' and a[4] == 'PENDING' then
    code = 'approval_expired'
    msg = 'the approval expired before anyone decided it; ask again'
  elseif a[2] ~= ARGV[7] then
    code = 'approval_mismatch'
    msg = 'the approval is for another tool'
  elseif a[3] ~= ARGV[8] then
    code = 'approval_mismatch'
    msg = 'the approval is for other arguments of this tool'
  elseif st == 'APPROVED' then
    consume = true
    id = ARGV[6]
  elseif st == 'PENDING' then
    code = 'approval_pending'
    msg = 'the approval is not decided yet'
  elseif st == 'DENIED' then
    code = 'approval_denied'
    msg = 'denied by ' .. (a[6] or '')
    if a[7] and a[7] ~= '' then msg = msg .. ': ' .. a[7] end
  elseif st == 'EXPIRED' then
    code = 'approval_expired'
    msg = 'the approval expired; ask again'
  elseif st == 'USED' then
    code = 'approval_used'
    msg = 'the approval was already used; each allows one call'
  else
    code = 'approval_mismatch'
    msg = 'the approval is in no usable state'
  end
  if code ~= '' then decision = 'REJECT' end
end
local refused = -1
local spent = false
local charges = tonumber(ARGV[14])
local add = {}
if decision == 'ALLOW' and charges > 0 then
  for i = 0, charges - 1 do
    local b = 15 + i * 4
    local tl, cl = tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3])
    local tk, ck = 'b:t:' .. ARGV[b], 'b:c:' .. ARGV[b + 1]
    local over = false
    if cl > 0 then
      over = tonumber(redis.call('HGET', run, ck) or '0') + (add[ck] or 0) >= cl
    end
    if tl > 0 and not over then
      over = tonumber(redis.call('HGET', run, tk) or '0') + (add[tk] or 0) >= tl
    end
    if over then
      refused = i
      break
    end
    if cl > 0 then add[ck] = (add[ck] or 0) + 1 end
    if tl > 0 then add[tk] = (add[tk] or 0) + 1 end
  end
  if refused >= 0 then
    decision = 'REJECT'
    consume = false
    id = ''
  else
    for k, n in pairs(add) do redis.call('HINCRBY', run, k, n) end
    spent = next(add) ~= nil
  end
end
if consume then redis.call('HSET', KEYS[2], 'state', 'USED') end
if create then
  local expires = now + tonumber(ARGV[10])
  local keep = expires + tonumber(ARGV[12])
  -- Read only here: the run's context may be large, and the common turn
  -- does not need it.
  local mc = redis.call('HMGET', run, 'model', 'ctx')
  redis.call('HSET', KEYS[2], 'run', ARGV[1], 'tool', ARGV[7], 'args', ARGV[8],
             'state', 'PENDING', 'created', now, 'expires', expires,
             'model', mc[1] or '', 'ctx', mc[2] or '{}')
  redis.call('PEXPIREAT', KEYS[2], keep)
  redis.call('ZADD', KEYS[3], expires, id)
  redis.call('HSET', KEYS[4], same_key, id)
  redis.call('ZADD', KEYS[5], now, id)
  -- Extended, never shortened: a replica with a shorter approval TTL (a
  -- config change rolling out) must not make the run forget approvals
  -- another replica admitted for longer.
  for k = 3, 5 do
    local ttl = redis.call('PTTL', KEYS[k])
    if ttl < 0 or now + ttl < keep then
      redis.call('PEXPIREAT', KEYS[k], keep)
    end
  end
end
local recorded = 0
if decision ~= 'REJECT' then
  -- Written only when it changes: the common ALLOW writes nothing here.
  if rej ~= 0 then redis.call('HSET', run, 'rej', 0) end
  rej = 0
  recorded = 1
elseif counts then
  rej = math.min(rej + 1, maxrej)
  recorded = 1
  redis.call('HSET', run, 'rej', rej)
  if rej >= maxrej then redis.call('HSET', run, 'brk', '1') end
end
return {'OK', decision, ro and 1 or 0, id, code, msg, refused, recorded, rej,
        maxrej - rej, consume and 1 or 0, spent and 1 or 0}
)lua";

// KEYS: 1 run, 2 approval (or the run key). ARGV: 1 give the approval
// back (0/1), 2 number of charges, then 4 per charge as in CallCommit.
constexpr char kCallRefund[] = R"lua(#!lua
if ARGV[1] == '1' and redis.call('HGET', KEYS[2], 'state') == 'USED' then
  redis.call('HSET', KEYS[2], 'state', 'APPROVED')
end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 0, tonumber(ARGV[2]) - 1 do
  local b = 3 + i * 4
  if tonumber(ARGV[b + 3]) > 0 then
    redis.call('HINCRBY', KEYS[1], 'b:c:' .. ARGV[b + 1], -1)
  end
  if tonumber(ARGV[b + 2]) > 0 then
    redis.call('HINCRBY', KEYS[1], 'b:t:' .. ARGV[b], -1)
  end
end
return 1
)lua";

// KEYS: 1 run. ARGV: 1 "1" for a verdict other than VALID, 2 the token's
// hash as in CallCommit.
constexpr char kOutputRecord[] = R"lua(#!lua
local f = redis.call('HMGET', KEYS[1], 'tok', 'ks_thr', 'ks_win', 'ks_ring',
                     'ks_pos', 'ks_fill', 'ks_inv', 'ro', 'ttl')
if not f[1] then return {'NOTFOUND'} end
if f[1] ~= ARGV[2] then return {'DENIED'} end
redis.call('PEXPIRE', KEYS[1], f[9])
local thr, win = tonumber(f[2]), tonumber(f[3])
local ring = f[4] or string.rep('0', win)
local pos = tonumber(f[5] or '0')
local fill = tonumber(f[6] or '0')
local inv = tonumber(f[7] or '0')
local bit = ARGV[1]
if fill == win then
  inv = inv - tonumber(string.sub(ring, pos + 1, pos + 1))
else
  fill = fill + 1
end
ring = string.sub(ring, 1, pos) .. bit .. string.sub(ring, pos + 2)
inv = inv + tonumber(bit)
pos = (pos + 1) % win
local was = f[8] == '1'
local ro = was or inv >= thr
redis.call('HSET', KEYS[1], 'ks_ring', ring, 'ks_pos', pos, 'ks_fill', fill,
           'ks_inv', inv, 'ro', ro and '1' or '0')
return {'OK', ro and 1 or 0}
)lua";

// KEYS: 1 run.
constexpr char kRunReset[] = R"lua(#!lua
local ttl = redis.call('HGET', KEYS[1], 'ttl')
if not ttl then return 'NOTFOUND' end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('HSET', KEYS[1], 'rej', 0, 'brk', '0', 'ro', '0')
redis.call('HDEL', KEYS[1], 'ks_ring', 'ks_pos', 'ks_fill', 'ks_inv')
return 'OK'
)lua";

// KEYS: 1 the tenant's pending approvals (zset by expiry), 2 every
// approval held (zset by the time it may be dropped: its expiry while it
// is pending, as a pending approval is dropped at expiry; re-scored when
// decided), 3 the new id's index entry, 4 the bytes of every approval
// held (hash: id -> bytes, and "total"). ARGV: 1 id, 2 run id, 3 approval
// TTL ms, 4 keep after expiry ms, 5 tenant cap, 6 global cap, 7 this
// approval's bytes, 8 byte cap. Run with now_ms().
constexpr char kApprovalAdmit[] = R"lua(
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
-- Dropped approvals give their bytes back (at most --max_approvals of
-- them, once each; in slices, as Lua's unpack takes at most ~8000).
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
local freed = 0
for i = 1, #gone, 1000 do
  local part = {unpack(gone, i, math.min(i + 999, #gone))}
  for _, b in ipairs(redis.call('HMGET', KEYS[4], unpack(part))) do
    freed = freed + (tonumber(b) or 0)
  end
  redis.call('HDEL', KEYS[4], unpack(part))
end
-- Not when nothing is freed: Lua's -0 is "-0", which HINCRBY refuses
-- (approvals admitted before bytes were counted have none).
if freed > 0 then redis.call('HINCRBY', KEYS[4], 'total', -freed) end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now) end
-- Bytes of approvals apr:all no longer holds (trimmed by a replica of the
-- version before byte counting, during a rolling upgrade) would hold
-- their share forever: when there are more byte counts than approvals,
-- count again from apr:all.
if redis.call('HLEN', KEYS[4]) - 1 > redis.call('ZCARD', KEYS[2]) then
  local kv = redis.call('HGETALL', KEYS[4])
  local total, stale = 0, {}
  for i = 1, #kv, 2 do
    if kv[i] == 'total' then
    elseif redis.call('ZSCORE', KEYS[2], kv[i]) then
      total = total + tonumber(kv[i + 1])
    else
      stale[#stale + 1] = kv[i]
    end
  end
  for i = 1, #stale, 1000 do
    redis.call('HDEL', KEYS[4], unpack(stale, i, math.min(i + 999, #stale)))
  end
  redis.call('HSET', KEYS[4], 'total', total)
end
local tenant = redis.call('ZCARD', KEYS[1])
if tenant >= tonumber(ARGV[5]) then return {'CAP_TENANT', tenant} end
local all = redis.call('ZCARD', KEYS[2])
if all >= tonumber(ARGV[6]) then return {'CAP_ALL', all} end
local held = tonumber(redis.call('HGET', KEYS[4], 'total') or '0')
local need = tonumber(ARGV[7])
if held + need > tonumber(ARGV[8]) then return {'CAP_BYTES', held} end
local expires = now + tonumber(ARGV[3])
local keep = expires + tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], expires, ARGV[1])
redis.call('ZADD', KEYS[2], expires, ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], need)
redis.call('HINCRBY', KEYS[4], 'total', need)
-- The keys go when nothing they hold is left: after the last score (a
-- decision re-scores a pending approval to at most its expiry plus
-- keep). Not from this admission's TTL alone: replicas may disagree on
-- it (a config change rolling out), and one with a shorter TTL would
-- drop the counts of approvals still held. Byte counts go with apr:all.
local function last(key)
  return tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
end
local drop = math.max(keep, last(KEYS[2]) + tonumber(ARGV[4]))
redis.call('PEXPIREAT', KEYS[1], last(KEYS[1]))
redis.call('PEXPIREAT', KEYS[2], drop)
redis.call('PEXPIREAT', KEYS[4], drop)
redis.call('SET', KEYS[3], ARGV[2], 'PXAT', keep)
return {'OK', 0}
)lua";

// KEYS as ApprovalAdmit's. ARGV: 1 id.
constexpr char kApprovalUnadmit[] = R"lua(#!lua
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then
  local b = tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0')
  redis.call('HDEL', KEYS[4], ARGV[1])
  if b > 0 then redis.call('HINCRBY', KEYS[4], 'total', -b) end
end
redis.call('DEL', KEYS[3])
return 1
)lua";

// KEYS: 1 approval, 2 the run's pending approvals, 3 pending ids by tool
// and arguments. ARGV: 1 id, 2 APPROVED|DENIED, 3 approver, 4 reason,
// 5 keep after expiry ms, 6 the channel AwaitApproval listens on.
// Returns the approval's fields after. Run with now_ms().
constexpr char kApprovalDecide[] = R"lua(
local now = now_ms()
local a = redis.call('HMGET', KEYS[1], 'state', 'expires', 'tool', 'args')
if not a[1] then return {'NOTFOUND'} end
local st = a[1]
if (st == 'PENDING' or st == 'APPROVED') and now >= tonumber(a[2]) then
  st = 'EXPIRED'
end
if st ~= 'PENDING' then return {'NOT_PENDING', st} end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'approver', ARGV[3],
           'reason', ARGV[4], 'decided', now)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], a[3] .. '\0' .. redis.sha1hex(a[4]))
if ARGV[2] == 'DENIED' then
  redis.call('PEXPIREAT', KEYS[1], now + tonumber(ARGV[5]))
end
redis.call('PUBLISH', ARGV[6], ARGV[1])
return {'OK', redis.call('HGETALL', KEYS[1])}
)lua";

// KEYS: 1 run, 2 the run's waits (zset by deadline ms). ARGV: 1 wait id,
// 2 max, 3 how long it may wait, ms. Run with now_ms().
constexpr char kWaitBegin[] = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOTFOUND'} end
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return {'FULL'} end
local deadline = now + math.floor(tonumber(ARGV[3]))
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local expire = deadline
if last[2] and tonumber(last[2]) > expire then expire = tonumber(last[2]) end
redis.call('ZADD', KEYS[2], deadline, ARGV[1])
redis.call('PEXPIREAT', KEYS[2], expire)
return {'OK'}
)lua";

// A writer script whose body calls now_ms().
redis::Script* WithNow(const char* name, const char* body) {
  return new redis::Script(
      name, absl::StrCat("#!lua\n", redis_layout::kLuaNowMs, body));
}

}  // namespace

const redis::Script& CallCommit() {
  static const redis::Script* script = WithNow("call_commit", kCallCommit);
  return *script;
}

const redis::Script& CallRefund() {
  static const redis::Script* script =
      new redis::Script("call_refund", kCallRefund);
  return *script;
}

const redis::Script& OutputRecord() {
  static const redis::Script* script =
      new redis::Script("output_record", kOutputRecord);
  return *script;
}

const redis::Script& RunReset() {
  static const redis::Script* script =
      new redis::Script("run_reset", kRunReset);
  return *script;
}

const redis::Script& ApprovalAdmit() {
  static const redis::Script* script =
      WithNow("approval_admit", kApprovalAdmit);
  return *script;
}

const redis::Script& ApprovalUnadmit() {
  static const redis::Script* script =
      new redis::Script("approval_unadmit", kApprovalUnadmit);
  return *script;
}

const redis::Script& WaitBegin() {
  static const redis::Script* script = WithNow("wait_begin", kWaitBegin);
  return *script;
}

const redis::Script& ApprovalDecide() {
  static const redis::Script* script =
      WithNow("approval_decide", kApprovalDecide);
  return *script;
}

}  // namespace redis_scripts
}  // namespace state
}  // namespace toolgate
