#include "core/state/run_state_contract.h"

#include <iterator>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/redis/client.h"
#include "core/state/memory_run_state.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_run_state.h"
#include "core/util/ids.h"
#include "tests/testing/redis_server.h"

namespace toolgate {
namespace state {
namespace contract {

std::shared_ptr<const Snapshot> TestSnapshot() {
  Manifest m;
  m.tools.push_back(ToolSpec{"t", "", Json(true)});
  auto s = Snapshot::Compile(m, "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

CallPlan Plan() {
  CallPlan plan;
  plan.run_token = kRunToken;
  return plan;
}

CallPlan Allowable() {
  CallPlan plan = Plan();
  plan.allowable = true;
  return plan;
}

CallPlan Misformatted() {
  CallPlan plan = Plan();
  plan.misformat = true;
  return plan;
}

CallPlan WithApproval(CallPlan::Approval kind, std::string id) {
  CallPlan plan = Allowable();
  plan.has_write = true;
  plan.approval = kind;
  plan.approval_id = std::move(id);
  plan.tool = "write_file";
  plan.arguments_json = R"({"path":"a"})";
  return plan;
}

CallPlan Charged(int tool_limit, CallPlan plan) {
  BudgetCharge charge;
  charge.tool = "write_file";
  charge.side_effect = SideEffect::kWrite;
  charge.tool_limit = tool_limit;
  plan.has_write = true;
  plan.charges.push_back(charge);
  return plan;
}


namespace {

Stores MemoryStores(const ApprovalStoreOptions& options) {
  auto approvals = std::make_shared<ApprovalStore>(options);
  Stores s;
  s.memory = approvals;
  s.state = std::make_unique<MemoryRunStateStore>(*approvals);
  s.ledger = std::make_unique<MemoryApprovalLedger>(*approvals);
  s.attach = [](const toolgate::Run&, const RunLimits&) {};
  s.other_ledger = [approvals] {
    return std::make_unique<MemoryApprovalLedger>(*approvals);
  };
  return s;
}

// One redis-server for the whole test binary, reached over TCP and over
// its unix socket; each store gets a key prefix of its own, so tests never
// see each other's keys.
redis::Client& SharedRedis(bool unix_socket) {
  static testutil::RedisServer* server = [] {
    testutil::RedisServerOptions options;
    options.unix_socket = true;
    return new testutil::RedisServer(options);
  }();
  static auto connect = [](const std::string& url) {
    redis::ClientOptions options;
    options.connect.address = *redis::ParseAddress(url);
    options.timeout = absl::Seconds(2);
    return redis::Client::Connect(options, absl::Seconds(5))->release();
  };
  static redis::Client* tcp = connect(server->url());
  static redis::Client* unix = connect(server->unix_url());
  return unix_socket ? *unix : *tcp;
}

void AttachToRedis(redis::Client& client, const std::string& prefix,
                   const toolgate::Run& run, const RunLimits& l) {
  ASSERT_TRUE(client
                  .Run("attach",
                       {"HSET", redis_layout::RunKey(prefix, run.id()), "tok",
                        absl::BytesToHexString(Sha256(kRunToken)), "maxrej",
                        absl::StrCat(run.max_consecutive_rejects()), "ks_thr",
                        absl::StrCat(l.kill_switch_threshold), "ks_win",
                        absl::StrCat(l.kill_switch_window), "ttl", "60000",
                        "model", run.model(), "ctx", "{}"})
                  .ok());
}

Stores RedisStores(const ApprovalStoreOptions& o, bool unix_socket) {
  static int next = 0;
  RedisRunStateOptions options;
  options.key_prefix = absl::StrCat("contract", ++next, ":");
  options.approval_ttl = o.ttl;
  options.max_approvals = o.max_approvals;
  options.max_bytes = o.max_bytes;
  options.keep_after_expiry = o.keep_after_expiry;
  options.max_pending_per_run = o.max_pending_per_run;
  options.max_pending_per_tenant = o.max_pending_per_tenant;
  redis::Client& client = SharedRedis(unix_socket);
  Stores s;
  s.state = std::make_unique<RedisRunState>(client, options);
  s.ledger = std::make_unique<RedisApprovalLedger>(client, options);
  s.attach = [&client, options](const toolgate::Run& run, const RunLimits& l) {
    AttachToRedis(client, options.key_prefix, run, l);
  };
  s.other_ledger = [&client, options] {
    return std::make_unique<RedisApprovalLedger>(client, options);
  };
  return s;
}

const StoreFactory kStoreList[] = {
    {"memory", MemoryStores},
    {"redis",
     [](const ApprovalStoreOptions& o) { return RedisStores(o, false); }},
    {"redis_unix",
     [](const ApprovalStoreOptions& o) { return RedisStores(o, true); }},
};

}  // namespace

std::vector<StoreFactory> AllStores() {
  return std::vector<StoreFactory>(std::begin(kStoreList), std::end(kStoreList));
}

}  // namespace contract
}  // namespace state
}  // namespace toolgate
