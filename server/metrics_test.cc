#include "server/metrics.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "server/raw_service.h"

namespace toolgate {
namespace server {
namespace {

using Labels = std::map<std::string, std::string>;

// The value of one series of a scrape (counter, gauge or histogram count);
// -1 when the series is absent.
double Value(const ServerMetrics& metrics, const std::string& name,
             const Labels& labels = {}) {
  for (const auto& family : metrics.Collect()) {
    if (family.name != name) continue;
    for (const auto& m : family.metric) {
      Labels have;
      for (const auto& l : m.label) have[l.name] = l.value;
      if (have != labels) continue;
      switch (family.type) {
        case prometheus::MetricType::Counter:
          return m.counter.value;
        case prometheus::MetricType::Gauge:
          return m.gauge.value;
        case prometheus::MetricType::Histogram:
          return static_cast<double>(m.histogram.sample_count);
        default:
          return -1;
      }
    }
  }
  return -1;
}

size_t SeriesCount(const ServerMetrics& metrics) {
  size_t n = 0;
  for (const auto& family : metrics.Collect()) n += family.metric.size();
  return n;
}

TEST(ServerMetricsTest, EveryRegisteredRpcHasItsLabel) {
  ToolGateService typed(nullptr, nullptr, SnapshotCreate::kAdmin);
  RawToolGateService service(&typed);
  for (const std::string& rpc : service.methods()) {
    EXPECT_GE(ServerMetrics::RpcSlot(rpc), 0) << rpc;
  }
  EXPECT_EQ(ServerMetrics::RpcSlot("NoSuchRpc"), -1);
}

TEST(ServerMetricsTest, TheMcpGatewaysCallsCountUnderMcpStdio) {
  Engine engine;
  ServerMetrics metrics(&engine);
  const int call = ServerMetrics::RpcSlot("ValidateToolCall");
  const int output = ServerMetrics::RpcSlot("ValidateToolOutput");
  const int mcp = ServerMetrics::RpcSlot("mcp.stdio");
  ASSERT_GE(mcp, 0);
  v1::ValidateToolCallRequest request;
  EXPECT_EQ(ServerMetrics::SlotFor(request, call), call);
  v1::ValidateToolCallResponse response;
  response.set_decision(v1::DECISION_REJECT);
  metrics.Decided(request, response);
  request.set_mcp_request_id("7");
  EXPECT_EQ(ServerMetrics::SlotFor(request, call), mcp);
  metrics.Decided(request, response);
  v1::ValidateToolOutputRequest out_request;
  out_request.set_mcp_request_id("7");
  EXPECT_EQ(ServerMetrics::SlotFor(out_request, output), mcp);
  v1::ValidateToolOutputResponse out_response;
  out_response.set_verdict(v1::OUTPUT_VERDICT_INVALID);
  metrics.Decided(out_request, out_response);
  auto decided = [&](const char* rpc, const char* decision) {
    return Value(metrics, "toolgate_decisions_total",
                 {{"rpc", rpc}, {"decision", decision}});
  };
  EXPECT_EQ(decided("ValidateToolCall", "REJECT"), 1);
  EXPECT_EQ(decided("mcp.stdio", "REJECT"), 1);
  EXPECT_EQ(decided("mcp.stdio", "INVALID"), 1);
  EXPECT_EQ(decided("ValidateToolOutput", "INVALID"), 0);
  EXPECT_EQ(ServerMetrics::DecisionNames("mcp.stdio"),
            (std::vector<std::string>{"ALLOW", "REJECT", "NEEDS_APPROVAL",
                                      "STOP", "VALID", "INVALID", "other"}));
}

TEST(ServerMetricsTest, RequestTextNeverBecomesALabel) {
  Engine engine;
  ServerMetrics metrics(&engine);
  const size_t before = SeriesCount(metrics);
  v1::ValidateToolCallRequest request;
  v1::ValidateToolCallResponse response;
  response.set_decision(v1::DECISION_REJECT);
  for (int i = 0; i < 50; ++i) {
    v1::Violation* v = response.add_violations();
    v->set_code("made_up_code_" + std::to_string(i));
    v->set_tool("tool_" + std::to_string(i));
    v1::ToolCall* call = response.add_calls();
    call->set_name("tool_" + std::to_string(i));
    call->add_repairs("made_up_repair_" + std::to_string(i));
  }
  metrics.Decided(request, response);
  EXPECT_EQ(SeriesCount(metrics), before);
  EXPECT_EQ(Value(metrics, "toolgate_violations_total", {{"code", "other"}}),
            50);
  EXPECT_EQ(Value(metrics, "toolgate_repairs_total", {{"kind", "other"}}), 50);
  EXPECT_EQ(Value(metrics, "toolgate_decisions_total",
                  {{"rpc", "ValidateToolCall"}, {"decision", "REJECT"}}),
            1);
}

TEST(ServerMetricsTest, UnknownDecisionIsOtherNeverAllow) {
  ServerMetrics metrics(nullptr);
  v1::ValidateToolCallResponse response;  // DECISION_UNSPECIFIED.
  metrics.Decided(v1::ValidateToolCallRequest(), response);
  v1::ValidateToolOutputResponse output;
  output.set_verdict(static_cast<v1::OutputVerdict>(77));
  metrics.Decided(v1::ValidateToolOutputRequest(), output);
  EXPECT_EQ(Value(metrics, "toolgate_decisions_total",
                  {{"rpc", "ValidateToolCall"}, {"decision", "other"}}),
            1);
  EXPECT_EQ(Value(metrics, "toolgate_decisions_total",
                  {{"rpc", "ValidateToolCall"}, {"decision", "ALLOW"}}),
            0);
  EXPECT_EQ(Value(metrics, "toolgate_decisions_total",
                  {{"rpc", "ValidateToolOutput"}, {"decision", "other"}}),
            1);
}

TEST(ServerMetricsTest, BreakerCountsTheRejectThatOpenedIt) {
  ServerMetrics metrics(nullptr);
  v1::ValidateToolCallRequest in_run;
  in_run.set_run_id("run_1");
  v1::ValidateToolCallResponse reject;
  reject.set_decision(v1::DECISION_REJECT);
  reject.set_attempt(1);
  reject.set_attempts_left(1);
  metrics.Decided(in_run, reject);
  EXPECT_EQ(Value(metrics, "toolgate_breaker_opened_total"), 0);
  reject.set_attempt(2);
  reject.set_attempts_left(0);
  metrics.Decided(in_run, reject);
  v1::ValidateToolCallResponse stop;
  stop.set_decision(v1::DECISION_STOP);
  stop.set_attempt(2);
  metrics.Decided(in_run, stop);
  EXPECT_EQ(Value(metrics, "toolgate_breaker_opened_total"), 1);
  // Stateless: no run, no breaker.
  v1::ValidateToolCallResponse stateless;
  stateless.set_decision(v1::DECISION_REJECT);
  metrics.Decided(v1::ValidateToolCallRequest(), stateless);
  EXPECT_EQ(Value(metrics, "toolgate_breaker_opened_total"), 1);
}

TEST(ServerMetricsTest, StreamDecisionsHaveTheirOwnRpcLabel) {
  ServerMetrics metrics(nullptr);
  v1::ValidateToolCallResponse reject;
  reject.set_decision(v1::DECISION_REJECT);
  reject.add_violations()->set_code("truncated_stream");
  reject.set_attempt(2);
  reject.set_attempts_left(0);
  metrics.DecidedStream("run_1", reject);
  EXPECT_EQ(Value(metrics, "toolgate_decisions_total",
                  {{"rpc", "ValidateToolCallStream"}, {"decision", "REJECT"}}),
            1);
  EXPECT_EQ(Value(metrics, "toolgate_decisions_total",
                  {{"rpc", "ValidateToolCall"}, {"decision", "REJECT"}}),
            0);
  EXPECT_EQ(Value(metrics, "toolgate_violations_total",
                  {{"code", "truncated_stream"}}),
            1);
  // The stream's run opened its breaker.
  EXPECT_EQ(Value(metrics, "toolgate_breaker_opened_total"), 1);
  metrics.DecidedStream("", reject);  // Stateless: no breaker.
  EXPECT_EQ(Value(metrics, "toolgate_breaker_opened_total"), 1);
}

TEST(ServerMetricsTest, KillSwitchTripCountsOncePerRunUntilReset) {
  ServerMetrics metrics(nullptr);
  v1::ValidateToolOutputRequest request;
  request.set_run_id("run_1");
  v1::ValidateToolOutputResponse read_only;
  read_only.set_verdict(v1::OUTPUT_VERDICT_INVALID);
  read_only.set_read_only(true);
  metrics.Decided(request, read_only);
  metrics.Decided(request, read_only);
  EXPECT_EQ(Value(metrics, "toolgate_kill_switch_trips_total"), 1);
  v1::ResetRunRequest reset;
  reset.set_run_id("run_1");
  metrics.Decided(reset, v1::ResetRunResponse());
  metrics.Decided(request, read_only);
  EXPECT_EQ(Value(metrics, "toolgate_kill_switch_trips_total"), 2);
}

std::string Manifest(int i) {
  return "[{\"type\":\"function\",\"function\":{\"name\":\"t" +
         std::to_string(i) + "\",\"parameters\":{\"type\":\"object\"}}}]";
}

TEST(ServerMetricsTest, OnlyToolsTheSnapshotDeclaresBecomeLabels) {
  Engine engine;
  ServerMetrics metrics(&engine);
  auto snapshot = engine.CreateSnapshot(Manifest(0), ManifestFormat::kAuto, "");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  v1::ValidateToolCallRequest request;
  v1::ValidateToolCallResponse response;
  response.set_decision(v1::DECISION_ALLOW);
  response.set_snapshot_id((*snapshot)->id());
  response.add_calls()->set_name("t0");
  response.add_calls()->set_name("not_declared");
  metrics.Decided(request, response);
  response.set_snapshot_id("sha256:no-such-snapshot");
  response.mutable_calls()->RemoveLast();
  response.add_calls()->set_name("made_up");
  metrics.Decided(request, response);
  EXPECT_EQ(Value(metrics, "toolgate_tool_calls_total",
                  {{"tool", "t0"}, {"decision", "ALLOW"}}),
            2);
  EXPECT_EQ(Value(metrics, "toolgate_tool_calls_total",
                  {{"tool", "(unknown)"}, {"decision", "ALLOW"}}),
            2);
  for (const auto& family : metrics.Collect()) {
    for (const auto& metric : family.metric) {
      for (const auto& label : metric.label) {
        EXPECT_NE(label.value, "not_declared");
        EXPECT_NE(label.value, "made_up");
      }
    }
  }
}

TEST(ServerMetricsTest, EvictionCounterMovesByExactlyTheEvictions) {
  EngineOptions options;
  options.max_snapshots = 3;
  Engine engine(options);
  ServerMetrics metrics(&engine);
  EXPECT_EQ(Value(metrics, "toolgate_snapshots_evicted_total"), 0);
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(
        engine.CreateSnapshot(Manifest(i), ManifestFormat::kAuto, "").ok());
  }
  // 7 created, 3 held: 4 evicted, however often it is scraped.
  EXPECT_EQ(Value(metrics, "toolgate_snapshots_evicted_total"), 4);
  EXPECT_EQ(Value(metrics, "toolgate_snapshots_evicted_total"), 4);
  EXPECT_EQ(Value(metrics, "toolgate_snapshots"), 3);
  // Deduplicated and deleted snapshots are no evictions.
  auto again = engine.CreateSnapshot(Manifest(6), ManifestFormat::kAuto, "");
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(engine.DeleteSnapshot((*again)->id()).ok());
  EXPECT_EQ(Value(metrics, "toolgate_snapshots_evicted_total"), 4);
  ASSERT_TRUE(
      engine.CreateSnapshot(Manifest(7), ManifestFormat::kAuto, "").ok());
  ASSERT_TRUE(
      engine.CreateSnapshot(Manifest(8), ManifestFormat::kAuto, "").ok());
  EXPECT_EQ(Value(metrics, "toolgate_snapshots_evicted_total"), 5);
}

// The kill-switch set forgets runs that expired (they never send CloseRun).
TEST(ServerMetricsTest, KillSwitchSetForgetsExpiredRuns) {
  absl::Time now = absl::UnixEpoch() + absl::Hours(1000);
  EngineOptions options;
  options.run_idle_ttl_seconds = 60;
  Engine engine(options, nullptr, [&now] { return now; });
  ServerMetrics metrics(&engine);
  auto snapshot = engine.CreateSnapshot(Manifest(0), ManifestFormat::kAuto, "");
  ASSERT_TRUE(snapshot.ok());
  v1::ValidateToolOutputResponse read_only;
  read_only.set_verdict(v1::OUTPUT_VERDICT_INVALID);
  read_only.set_read_only(true);
  constexpr int kRunsPerRound = 100;
  constexpr int kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kRunsPerRound; ++i) {
      auto opened = engine.OpenRun((*snapshot)->id(), "m", {}, RunLimits{});
      ASSERT_TRUE(opened.ok()) << opened.status();
      v1::ValidateToolOutputRequest request;
      request.set_run_id(opened->run->id());
      metrics.Decided(request, read_only);
    }
    now += absl::Seconds(61);  // This round's runs expire.
  }
  EXPECT_EQ(Value(metrics, "toolgate_kill_switch_trips_total"),
            kRunsPerRound * kRounds);
  // At most twice the runs that could still be open, never all 1,000.
  EXPECT_LE(metrics.read_only_runs_held(), 2u * kRunsPerRound);
}

TEST(ServerMetricsTest, ErrorsAndHistogramsByRpc) {
  ServerMetrics metrics(nullptr);
  const int slot = ServerMetrics::RpcSlot("OpenRun");
  metrics.Finished(slot, grpc::Status::OK, 0.001, 10);
  metrics.Finished(slot, grpc::Status(grpc::StatusCode::NOT_FOUND, "x"), 0.001,
                   10);
  EXPECT_EQ(Value(metrics, "toolgate_rpc_errors_total",
                  {{"rpc", "OpenRun"}, {"code", "NOT_FOUND"}}),
            1);
  EXPECT_EQ(
      Value(metrics, "toolgate_rpc_duration_seconds", {{"rpc", "OpenRun"}}), 2);
  EXPECT_EQ(Value(metrics, "toolgate_input_bytes", {{"rpc", "OpenRun"}}), 2);
  // OK is not an error series at all.
  EXPECT_EQ(Value(metrics, "toolgate_rpc_errors_total",
                  {{"rpc", "OpenRun"}, {"code", "OK"}}),
            -1);
}

// DecidedMesh: each decision of the closed lists counts under its own
// value; anything else is "other"; an empty decision counts nothing.
TEST(ServerMetricsTest, MeshOutcomesCountByClosedLabel) {
  struct Case {
    std::string rpc;
    std::string decision;
    std::string counted_as;  // "" when nothing is counted.
  };
  const std::vector<Case> cases = {
      {"ext_authz.Check", "ALLOW", "ALLOW"},
      {"ext_authz.Check", "NEEDS_APPROVAL", "NEEDS_APPROVAL"},
      {"ext_authz.Check", "DENIED_RUN", "DENIED_RUN"},
      {"ext_authz.Check", "PASS_THROUGH", "PASS_THROUGH"},
      {"ext_authz.Check", "VALID", "other"},  // Process's value, not Check's.
      {"ext_authz.Check", "", ""},
      {"ext_proc.Process", "INVALID", "INVALID"},
      {"ext_proc.Process", "DENIED", "DENIED"},
      {"ext_proc.Process", "ALLOW", "other"},
      {"ext_proc.Process", "", ""},
  };
  for (const Case& c : cases) {
    ServerMetrics metrics(nullptr);
    MeshOutcome outcome;
    outcome.decision = c.decision;
    metrics.DecidedMesh(ServerMetrics::RpcSlot(c.rpc), outcome);
    double total = 0;
    for (const std::string& d : ServerMetrics::DecisionNames(c.rpc)) {
      const double v = Value(metrics, "toolgate_decisions_total",
                             {{"rpc", c.rpc}, {"decision", d}});
      EXPECT_GE(v, 0) << c.rpc << " " << d << " missing";
      EXPECT_EQ(v, d == c.counted_as ? 1 : 0) << c.rpc << " " << c.decision;
      total += v;
    }
    EXPECT_EQ(total, c.counted_as.empty() ? 0 : 1) << c.rpc << c.decision;
  }
}

TEST(ServerMetricsTest, MeshRunsTripBreakerAndKillSwitchOnce) {
  ServerMetrics metrics(nullptr);
  MeshOutcome check;
  check.decision = "REJECT";
  check.run_id = "run_1";
  check.breaker_opened = true;
  check.violations = {"unknown_tool", "not_a_documented_code"};
  metrics.DecidedMesh(ServerMetrics::RpcSlot("ext_authz.Check"), check);
  MeshOutcome answer;
  answer.decision = "INVALID";
  answer.run_id = "run_1";
  answer.read_only = true;
  answer.violations = {"mcp_is_error"};
  const int process = ServerMetrics::RpcSlot("ext_proc.Process");
  metrics.DecidedMesh(process, answer);
  metrics.DecidedMesh(process, answer);  // Still read-only: not again.
  EXPECT_EQ(Value(metrics, "toolgate_breaker_opened_total"), 1);
  EXPECT_EQ(Value(metrics, "toolgate_kill_switch_trips_total"), 1);
  EXPECT_EQ(
      Value(metrics, "toolgate_violations_total", {{"code", "unknown_tool"}}),
      1);
  EXPECT_EQ(Value(metrics, "toolgate_violations_total", {{"code", "other"}}),
            1);
  EXPECT_EQ(
      Value(metrics, "toolgate_violations_total", {{"code", "mcp_is_error"}}),
      2);
  // A read-only answer outside a run trips nothing.
  answer.run_id.clear();
  metrics.DecidedMesh(process, answer);
  EXPECT_EQ(Value(metrics, "toolgate_kill_switch_trips_total"), 1);
}

TEST(ServerMetricsTest, ServeRefusesAnAddressItCannotBind) {
  auto served = ServerMetrics::Serve("256.0.0.1:notaport", nullptr);
  ASSERT_FALSE(served.ok());
  EXPECT_NE(served.status().message().find("--metrics_listen"),
            std::string::npos);
}

}  // namespace
}  // namespace server
}  // namespace toolgate
