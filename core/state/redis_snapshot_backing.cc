#include "core/state/redis_snapshot_backing.h"

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_reply.h"

namespace toolgate {
namespace state {
namespace {

// KEYS: 1 the snapshot, 2 all ids, 3 names. ARGV: 1 id, 2 manifest,
// 3 format, 4 name ("" = none), 5 size, 6 rule (claim|rebind|load).
// The name rules of SnapshotStore::CheckName/BindName: a name bound to
// another id is refused when loaded (unless `load`), or under `claim`;
// bound again to its own id it keeps the stronger rule. Only then writes:
// the manifest if the id is new, and the name.
constexpr char kSnapPublish[] = R"lua(#!lua
local id, name, rule = ARGV[1], ARGV[4], ARGV[6]
local strength = {claim = 1, rebind = 2, load = 3}
local keep = rule
if name ~= '' then
  local cur = redis.call('HGET', KEYS[3], name)
  if cur then
    local r, bound = string.match(cur, '^(%a+):(.*)$')
    if not r or not strength[r] then
      return redis.error_reply('malformed name binding ' .. name)
    end
    if bound ~= id then
      if r == 'load' and rule ~= 'load' then return {'LOADED'} end
      if rule == 'claim' then return {'BOUND', bound} end
    elseif strength[r] > strength[rule] then
      keep = r
    end
  end
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'manifest', ARGV[2], 'format', ARGV[3],
             'name', name, 'size', ARGV[5])
  redis.call('ZADD', KEYS[2], 0, id)
end
if name ~= '' then redis.call('HSET', KEYS[3], name, keep .. ':' .. id) end
return {'OK', redis.call('HGET', KEYS[1], 'name')}
)lua";

// KEYS as kSnapPublish, then 4 the leases of the runs pinning the id;
// ARGV: 1 id, 2 the events channel, then run id, lease pairs: leases of
// runs found gone, dropped first if still exactly that lease (a run
// admitted again since, by a NOSCRIPT retry, took a new one). Refuses
// while a run open on any replica pins the id or a loaded name points at
// it, else removes it with every name pointing at it. Names are found
// by a scan of the names hash: deletes are rare admin calls, and a
// reverse index would be one more key each rebind must keep right. Run
// with now_ms() (redis_layout.h).
constexpr char kSnapDelete[] = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOTFOUND'} end
for i = 3, #ARGV - 1, 2 do
  if redis.call('ZSCORE', KEYS[4], ARGV[i]) == ARGV[i + 1] then
    redis.call('ZREM', KEYS[4], ARGV[i])
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now_ms())
local pins = redis.call('ZCARD', KEYS[4])
if pins > 0 then return {'PINNED', pins} end
local all = redis.call('HGETALL', KEYS[3])
local drop = {}
for i = 1, #all, 2 do
  local r, bound = string.match(all[i + 1], '^(%a+):(.*)$')
  if bound == ARGV[1] then
    if r == 'load' then return {'LOADED', all[i]} end
    drop[#drop + 1] = all[i]
  end
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
for _, n in ipairs(drop) do redis.call('HDEL', KEYS[3], n) end
-- Every replica drops its compiled copy (redis_approval_events.h).
redis.call('PUBLISH', ARGV[2], 'snapdel:' .. ARGV[1])
return {'OK'}
)lua";

const redis::Script& SnapPublish() {
  static const redis::Script* script =
      new redis::Script("snap_publish", kSnapPublish);
  return *script;
}

const redis::Script& SnapDelete() {
  static const redis::Script* script = new redis::Script(
      "snap_delete",
      absl::StrCat("#!lua\n", redis_layout::kLuaNowMs, kSnapDelete));
  return *script;
}

const char* RuleWord(NameRule rule) {
  switch (rule) {
    case NameRule::kClaim:
      return "claim";
    case NameRule::kRebind:
      return "rebind";
    case NameRule::kLoad:
      return "load";
  }
  return "claim";
}

}  // namespace

std::vector<std::string> RedisSnapshotBacking::Keys(
    absl::string_view id) const {
  return {redis_layout::SnapshotKey(prefix_, id),
          redis_layout::SnapshotsKey(prefix_),
          redis_layout::SnapshotNamesKey(prefix_)};
}

absl::StatusOr<std::string> RedisSnapshotBacking::Publish(
    absl::string_view id, const StoredManifest& manifest, NameRule rule) {
  const std::string args[] = {
      std::string(id), manifest.manifest,
      absl::StrCat(static_cast<int>(manifest.format)), manifest.name,
      absl::StrCat(manifest.size), RuleWord(rule)};
  absl::StatusOr<redis::Reply> reply =
      client_.Eval(SnapPublish(), Keys(id), args);
  if (!reply.ok()) return reply.status();
  ReplyReader r(*reply, client_, "snap_publish");
  const std::string head = r.Head();
  if (head == "LOADED") return NameLoadedError(manifest.name);
  if (head == "BOUND") {
    const std::string bound = r.String(1);
    if (r.ok()) return NameBoundError(manifest.name, bound);
  } else if (head == "OK") {
    std::string first = r.String(1);
    if (r.ok()) return first;
  }
  return r.Unexpected();
}

absl::StatusOr<std::string> RedisSnapshotBacking::ResolveName(
    absl::string_view name) {
  absl::StatusOr<redis::Reply> reply = client_.Run(
      "snap_name", {"HGET", redis_layout::SnapshotNamesKey(prefix_),
                    std::string(name)});
  if (!reply.ok()) return reply.status();
  if (reply->type == redis::Reply::Type::kNil) {
    return absl::NotFoundError(
        absl::StrCat("no snapshot named \"", name, "\""));
  }
  // "<rule>:<id>"; ids contain ':' too, so the first one separates.
  const size_t colon = reply->str.find(':');
  if (reply->type != redis::Reply::Type::kString ||
      colon == std::string::npos) {
    return UnexpectedReply(client_, "snap_name");
  }
  return reply->str.substr(colon + 1);
}

absl::StatusOr<StoredManifest> RedisSnapshotBacking::Fetch(
    absl::string_view id) {
  absl::StatusOr<redis::Reply> reply = client_.Run(
      "snap_fetch",
      {"HMGET", redis_layout::SnapshotKey(prefix_, id),
       redis_layout::kSnapshotManifest, redis_layout::kSnapshotFormat,
       redis_layout::kSnapshotName, redis_layout::kSnapshotSize});
  if (!reply.ok()) return reply.status();
  const std::vector<redis::Reply>& e = reply->elements;
  if (reply->type == redis::Reply::Type::kArray && e.size() == 4 &&
      e[0].type == redis::Reply::Type::kNil) {
    return absl::NotFoundError(absl::StrCat("no snapshot \"", id, "\""));
  }
  ReplyReader r(*reply, client_, "snap_fetch");
  StoredManifest stored;
  stored.manifest = r.String(0);
  const std::string format = r.String(1);
  stored.name = r.String(2);
  const std::string size = r.String(3);
  int f = -1;
  if (!r.ok() || !absl::SimpleAtoi(format, &f) || f < 0 ||
      f > static_cast<int>(ManifestFormat::kMcp) ||
      !absl::SimpleAtoi(size, &stored.size)) {
    return r.Unexpected();
  }
  stored.format = static_cast<ManifestFormat>(f);
  return stored;
}

absl::StatusOr<redis::Reply> RedisSnapshotBacking::DeleteOnce(
    absl::string_view id, const std::vector<std::string>& drop) {
  std::vector<std::string> keys = Keys(id);
  keys.push_back(redis_layout::SnapshotPinsKey(prefix_, id));
  std::vector<std::string> args = {std::string(id),
                                   redis_layout::EventsChannel(prefix_)};
  args.insert(args.end(), drop.begin(), drop.end());
  return client_.Eval(SnapDelete(), keys, args);
}

absl::StatusOr<std::vector<std::string>> RedisSnapshotBacking::GoneRuns(
    absl::string_view id) {
  absl::StatusOr<redis::Reply> leases = client_.Run(
      "snap_delete",
      {"ZRANGE", redis_layout::SnapshotPinsKey(prefix_, id), "0",
       absl::StrCat(kMaxPinsChecked - 1), "WITHSCORES"});
  if (!leases.ok()) return leases.status();
  const std::vector<redis::Reply>& e = leases->elements;
  if (leases->type != redis::Reply::Type::kArray || e.size() % 2 != 0) {
    return UnexpectedReply(client_, "snap_delete: pins");
  }
  std::vector<redis::Command> exists;
  for (size_t i = 0; i < e.size(); i += 2) {
    if (e[i].type != redis::Reply::Type::kString ||
        e[i + 1].type != redis::Reply::Type::kString) {
      return UnexpectedReply(client_, "snap_delete: pins");
    }
    exists.push_back({"EXISTS", redis_layout::RunKey(prefix_, e[i].str)});
  }
  std::vector<std::string> gone;  // Run id, lease, ...
  if (exists.empty()) return gone;
  absl::StatusOr<std::vector<redis::Reply>> found =
      client_.Pipeline("snap_delete", exists);
  if (!found.ok()) return found.status();
  if (found->size() != exists.size()) {
    return UnexpectedReply(client_, "snap_delete: runs");
  }
  for (size_t i = 0; i < found->size(); ++i) {
    const redis::Reply& r = (*found)[i];
    if (r.type != redis::Reply::Type::kInteger) {
      return UnexpectedReply(client_, "snap_delete: runs");
    }
    if (r.integer == 0) {
      gone.push_back(e[2 * i].str);
      gone.push_back(e[2 * i + 1].str);
    }
  }
  return gone;
}

absl::Status RedisSnapshotBacking::Delete(absl::string_view id) {
  absl::StatusOr<redis::Reply> reply = DeleteOnce(id, {});
  if (!reply.ok()) return reply.status();
  if (reply->type == redis::Reply::Type::kArray && !reply->elements.empty() &&
      reply->elements[0].str == "PINNED") {
    // A lease outlives its run by up to a quarter of the run's idle TTL
    // (redis_run_directory.h), and the run's hash is in another slot than
    // the lease: the runs whose hash is gone are found here, their leases
    // dropped and the delete tried once more.
    absl::StatusOr<std::vector<std::string>> gone = GoneRuns(id);
    if (!gone.ok()) return gone.status();
    if (!gone->empty()) {
      reply = DeleteOnce(id, *gone);
      if (!reply.ok()) return reply.status();
    }
  }
  ReplyReader r(*reply, client_, "snap_delete");
  const std::string head = r.Head();
  if (head == "OK") return absl::OkStatus();
  if (head == "NOTFOUND") {
    return absl::NotFoundError(absl::StrCat("no snapshot \"", id, "\""));
  }
  if (head == "LOADED") {
    const std::string name = r.String(1);
    if (r.ok()) return SnapshotLoadedError(id, name);
  }
  if (head == "PINNED") {
    const int64_t pins = r.Integer(1);
    if (r.ok() && pins > 0) {
      return SnapshotPinnedError(id, static_cast<size_t>(pins));
    }
  }
  return r.Unexpected();
}

absl::StatusOr<std::vector<std::string>> RedisSnapshotBacking::ListIds(
    absl::string_view after_id, size_t max) {
  std::vector<std::string> ids;
  if (max == 0) return ids;
  const std::string min =
      after_id.empty() ? "-" : absl::StrCat("(", after_id);
  absl::StatusOr<redis::Reply> reply = client_.Run(
      "snap_list", {"ZRANGEBYLEX", redis_layout::SnapshotsKey(prefix_), min,
                    "+", "LIMIT", "0", absl::StrCat(max)});
  if (!reply.ok()) return reply.status();
  if (reply->type != redis::Reply::Type::kArray) {
    return UnexpectedReply(client_, "snap_list");
  }
  for (const redis::Reply& e : reply->elements) {
    if (e.type != redis::Reply::Type::kString) {
      return UnexpectedReply(client_, "snap_list");
    }
    ids.push_back(e.str);
  }
  return ids;
}

}  // namespace state
}  // namespace toolgate
