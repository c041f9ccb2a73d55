// Several replicas sharing one state store (issue 26), snapshots and run
// lifetimes: a snapshot created, named or deleted on one replica, and a
// run opened, closed or refused on one, are so on every replica, also when
// a replica is killed mid-run. The fixture (replicas_fixture.h) sends each
// call to a chosen replica.

#include <signal.h>



#include <chrono>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/replicas_fixture.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace replicas_testing {
namespace {

// A user registers a manifest once, on whatever replica answers, and then
// names it (by id or by name) on any replica.
TEST_F(ReplicasTest, SnapshotCreatedOnOneReplicaIsUsableOnAll) {
  const std::string id = CreateSnapshot(0, "repl-catalogue");
  ASSERT_FALSE(id.empty());
  for (int replica = 1; replica < kReplicas; ++replica) {
    for (bool by_name : {false, true}) {
      grpc::ClientContext ctx;
      v1::GetSnapshotRequest req;
      if (by_name) req.set_name("repl-catalogue");
      if (!by_name) req.set_snapshot_id(id);
      v1::GetSnapshotResponse resp;
      grpc::Status s = Stub(replica)->GetSnapshot(&ctx, req, &resp);
      ASSERT_TRUE(s.ok()) << "replica " << replica << ": " << s.error_message();
      EXPECT_EQ(resp.snapshot_id(), id);
      EXPECT_EQ(resp.name(), "repl-catalogue");
      EXPECT_EQ(resp.tool_names_size(), 3);
    }
  }
  const v1::OpenRunResponse run = OpenRun(1, id);
  EXPECT_EQ(run.snapshot_id(), id);
  for (int i = 0; i < 2 * kReplicas; ++i) {
    const int replica = Next();
    EXPECT_EQ(Validate(replica, run, kValidLookup).decision(),
              v1::DECISION_ALLOW)
        << "replica " << replica;
  }
}

// A name an agent claimed on one replica is taken on all of them.
TEST_F(ReplicasTest, ClaimedSnapshotNameIsTakenOnEveryReplica) {
  const std::string id = CreateSnapshot(0, "repl-crm");
  ASSERT_FALSE(id.empty());
  grpc::ClientContext ctx;
  v1::CreateSnapshotRequest req;
  req.set_manifest_json(R"([{"name":"other","input_schema":{}}])");
  req.set_name("repl-crm");
  v1::CreateSnapshotResponse resp;
  const grpc::Status s = Stub(1)->CreateSnapshot(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << s.error_message();
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(SnapshotStatus(replica, "", "repl-crm"), grpc::StatusCode::OK);
  }
}

// An admin's delete on any replica removes the snapshot everywhere.
TEST_F(ReplicasTest, DeletedSnapshotIsGoneOnEveryReplica) {
  const std::string id = CreateSnapshot(0, "repl-gone");
  ASSERT_FALSE(id.empty());
  const grpc::Status s = DeleteSnapshot(2, id);
  ASSERT_TRUE(s.ok()) << s.error_message();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(SnapshotStatus(replica, id, ""), grpc::StatusCode::NOT_FOUND)
        << "replica " << replica;
    EXPECT_EQ(SnapshotStatus(replica, "", "repl-gone"),
              grpc::StatusCode::NOT_FOUND)
        << "replica " << replica;
    grpc::ClientContext open_ctx;
    v1::OpenRunRequest open;
    open.set_snapshot_id(id);
    v1::OpenRunResponse opened;
    EXPECT_EQ(Stub(replica)->OpenRun(&open_ctx, open, &opened).error_code(),
              grpc::StatusCode::NOT_FOUND)
        << "replica " << replica;
  }
}

// DeleteSnapshot refuses a snapshot a run pins, whatever replica the run
// was opened on or is used on, as one process does; once the run is
// closed (anywhere), the snapshot can go.
TEST_F(ReplicasTest, SnapshotPinnedByARunElsewhereIsNotDeleted) {
  const std::string id = CreateSnapshot(0);
  const v1::OpenRunResponse run = OpenRun(1, id);
  EXPECT_EQ(Validate(2, run, kValidLookup).decision(), v1::DECISION_ALLOW);
  const grpc::Status refused = DeleteSnapshot(0, id);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION)
      << refused.error_message();
  EXPECT_EQ(Validate(0, run, kValidLookup).decision(), v1::DECISION_ALLOW);
  ASSERT_TRUE(RunRpc(2, run, /*close=*/true).ok());
  const grpc::Status deleted = DeleteSnapshot(0, id);
  EXPECT_TRUE(deleted.ok()) << deleted.error_message();
}

// A replica that dies mid-run (OOM, node loss) loses nothing of the run:
// the attempt count and the budget spent carry on on the other replicas.
TEST_F(ReplicasTest, RunSurvivesAReplicaKilledMidRun) {
  const v1::OpenRunResponse run = OpenTestRun(/*max_rejects=*/5);
  EXPECT_EQ(Validate(0, run, kSendMail).decision(), v1::DECISION_ALLOW);
  EXPECT_EQ(Validate(1, run, kSendMail).decision(), v1::DECISION_ALLOW);
  EXPECT_EQ(Validate(2, run, kInvalidLookup).attempt(), 1);
  EXPECT_EQ(Validate(1, run, kInvalidLookup).attempt(), 2);

  ASSERT_EQ(kill(servers_[1]->pid(), SIGKILL), 0);
  for (int i = 0; i < 100 && servers_[1]->Alive(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(servers_[1]->Alive());

  EXPECT_EQ(Validate(0, run, kInvalidLookup).attempt(), 3);
  const v1::ValidateToolCallResponse fourth = Validate(2, run, kInvalidLookup);
  EXPECT_EQ(fourth.attempt(), 4);
  EXPECT_EQ(fourth.attempts_left(), 1);
  EXPECT_EQ(Validate(0, run, kSendMail).decision(), v1::DECISION_ALLOW);
  EXPECT_EQ(Code(Validate(2, run, kSendMail)), "call_budget_exhausted");
  EXPECT_EQ(Code(Validate(0, run, kSendMail)), "call_budget_exhausted");
}

// A closed run is gone on every replica, not just where it was closed,
// even on replicas that served it before (and may hold its record).
TEST_F(ReplicasTest, ClosedRunIsUnknownOnEveryReplica) {
  const v1::OpenRunResponse run = OpenTestRun();
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(Validate(replica, run, kValidLookup).decision(),
              v1::DECISION_ALLOW);
  }
  ASSERT_TRUE(RunRpc(1, run, /*close=*/true).ok());
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(RunStatuses(replica, run),
              std::vector<grpc::StatusCode>(4, grpc::StatusCode::NOT_FOUND))
        << "replica " << replica;
  }
}

// A run's token is checked against the shared run on every replica, also
// on replicas that served the run before: a wrong one never falls back to
// anything.
TEST_F(ReplicasTest, WrongTokenIsRefusedOnEveryReplica) {
  v1::OpenRunResponse run = OpenTestRun();
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(Validate(replica, run, kValidLookup).decision(),
              v1::DECISION_ALLOW);
  }
  std::string token = run.run_token();
  token.back() = token.back() == '0' ? '1' : '0';
  run.set_run_token(token);
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(RunStatuses(replica, run),
              std::vector<grpc::StatusCode>(
                  4, grpc::StatusCode::PERMISSION_DENIED))
        << "replica " << replica;
  }
}

}  // namespace
}  // namespace replicas_testing
}  // namespace toolgate
