// The contract every run state store keeps (run_commit.h), as sequences of
// commits a run's calls make, checked against every store AllStores()
// names: the memory store, and Redis over TCP and over a unix socket. A
// new store adds its factory there and must pass unchanged. The suites:
// run_state_contract_test.cc (loop, breaker, kill switch, budgets) and
// approval_contract_test.cc (approvals and their caps).
#ifndef TOOLGATE_CORE_STATE_RUN_STATE_CONTRACT_H_
#define TOOLGATE_CORE_STATE_RUN_STATE_CONTRACT_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/approval/approval_store.h"
#include "core/run/run_registry.h"
#include "core/state/approval_ledger.h"
#include "core/state/run_state_store.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace state {
namespace contract {

// Every run of these suites is opened with this token (the Redis store
// checks it at every commit; the memory store checked it at Authorize).
inline constexpr char kRunToken[] = "contract-run-token";

// One store under test: its run state, its approvals, and how a run
// opened in the test becomes known to it (the memory store keeps the
// state in the Run; Redis needs the run's record in its hash, as the run
// directory writes it at OpenRun).
struct Stores {
  std::shared_ptr<ApprovalStore> memory;  // The memory store's approvals.
  std::unique_ptr<RunStateStore> state;
  std::unique_ptr<ApprovalLedger> ledger;
  std::function<void(const toolgate::Run&, const RunLimits&)> attach;
  // A second view of the same approvals (another replica's, for Redis).
  std::function<std::unique_ptr<ApprovalLedger>()> other_ledger;
};

struct StoreFactory {
  const char* name;
  std::function<Stores(const ApprovalStoreOptions& options)> make;
};

std::vector<StoreFactory> AllStores();

std::shared_ptr<const Snapshot> TestSnapshot();
// Plans as the pipeline makes them, for a run opened with kRunToken.
CallPlan Plan();
CallPlan Allowable();
CallPlan Misformatted();
CallPlan WithApproval(CallPlan::Approval kind, std::string id = "");
CallPlan Charged(int tool_limit, CallPlan plan = Allowable());

class RunStateContract : public testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    stores_ = GetParam().make(ApprovalStoreOptions());
    store_ = stores_.state.get();
    run_ = Open(RunLimits{3, 2, 2}, stores_);
  }

  std::shared_ptr<toolgate::Run> Open(
      RunLimits limits, const Stores& stores,
      std::map<std::string, std::string> context = {}) {
    auto opened = runs_.Open(TestSnapshot(), "m", std::move(context), limits);
    EXPECT_TRUE(opened.ok()) << opened.status();
    stores.attach(*opened->run, limits);
    return opened->run;
  }

  CallOutcome Commit(const CallPlan& plan) {
    absl::StatusOr<CallOutcome> outcome = store_->CommitCall(*run_, plan);
    EXPECT_TRUE(outcome.ok()) << outcome.status();
    return outcome.ok() ? *outcome : CallOutcome();
  }

  std::string Approve(const std::string& id) {
    absl::StatusOr<Approval> decided =
        stores_.ledger->Decide(id, true, "alice", "ok");
    EXPECT_TRUE(decided.ok()) << decided.status();
    return id;
  }

  size_t Listed(ApprovalState state) {
    auto listed = stores_.ledger->List(run_->id(), state);
    EXPECT_TRUE(listed.ok()) << listed.status();
    return listed.ok() ? listed->size() : 0;
  }

  RunRegistry runs_;
  Stores stores_;
  RunStateStore* store_ = nullptr;
  std::shared_ptr<toolgate::Run> run_;
};

}  // namespace contract
}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_RUN_STATE_CONTRACT_H_
