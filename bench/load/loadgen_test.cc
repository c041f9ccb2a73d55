// The load generator's pure parts: flags (loopback-only rule included),
// percentiles, the report lines and what each mix sends.
#include <string>
#include <utility>
#include <vector>

#include "bench/engine/payloads.h"
#include "bench/load/options.h"
#include "bench/load/stats.h"
#include "bench/load/workload.h"
#include "client/health_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace load {
namespace {

using ::testing::HasSubstr;

struct AddrCase {
  std::string addr;
  bool ok;
};

TEST(CheckLoopbackAddress, OnlyThisMachine) {
  const std::vector<AddrCase> cases = {
      {"127.0.0.1:50051", true},
      {"127.1.2.3:1", true},
      {"127.255.255.255:65535", true},
      {"localhost:8080", true},
      {"[::1]:50051", true},
      {"unix:/tmp/toolgate.sock", true},
      {"unix:///tmp/toolgate.sock", true},
      {"unix:", false},
      {"10.0.0.1:50051", false},
      {"128.0.0.1:50051", false},
      {"0.0.0.0:50051", false},
      {"192.168.1.10:50051", false},
      {"example.com:443", false},
      {"localhost.example.com:443", false},
      {"[::]:50051", false},
      {"[2001:db8::1]:50051", false},
      {"127.0.0.1", false},          // No port.
      {"127.0.0.1:0", false},        // Port out of range.
      {"127.0.0.1:65536", false},
      {"127.0.0.1:http", false},
      {"127.0.0:50051", false},      // Three octets.
      {"127.0.0.256:50051", false},
      {"127.0.0.01:50051", false},   // Leading zero (octal to some).
      {"0177.0.0.1:50051", false},
      {"dns:///127.0.0.1:50051", false},
      {"ipv4:10.0.0.1:50051", false},
      {"", false},
  };
  for (const AddrCase& c : cases) {
    absl::Status s = CheckLoopbackAddress(c.addr);
    EXPECT_EQ(s.ok(), c.ok) << c.addr << ": " << s;
    if (!c.ok) {
      EXPECT_THAT(std::string(s.message()), HasSubstr("refusing"));
    }
  }
}

TEST(ParseLoadgenFlags, DefaultsAndValues) {
  auto d = ParseLoadgenFlags({});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->addr, "127.0.0.1:50051");
  EXPECT_EQ(d->duration_seconds, 10);
  EXPECT_EQ(d->concurrency, 4);
  EXPECT_EQ(d->mode, Mode::kStateless);
  EXPECT_EQ(d->mix, Mix::kAllow);
  EXPECT_EQ(d->max_requests, 0);

  auto o = ParseLoadgenFlags({"--addr=[::1]:9", "--duration_seconds", "120",
                              "--concurrency=8", "--mode=run", "--mix", "mixed",
                              "--max_requests=1000", "--label=x y"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->addr, "[::1]:9");
  EXPECT_EQ(o->duration_seconds, 120);
  EXPECT_EQ(o->concurrency, 8);
  EXPECT_EQ(o->mode, Mode::kRun);
  EXPECT_EQ(o->mix, Mix::kMixed);
  EXPECT_EQ(o->max_requests, 1000);
  EXPECT_EQ(o->label, "x y");
}

struct MixCase {
  std::string name;
  Mix mix;
  Rpc rpc;
  size_t payloads;  // ValidateToolCall payloads the mix cycles through.
};

const std::vector<MixCase>& MixCases() {
  static const auto* kCases = new std::vector<MixCase>{
      {"allow", Mix::kAllow, Rpc::kValidateToolCall, 3},
      {"reject", Mix::kReject, Rpc::kValidateToolCall, 3},
      {"text", Mix::kText, Rpc::kValidateToolCall, 6},
      {"mixed", Mix::kMixed, Rpc::kValidateToolCall, 12},
      {"health", Mix::kHealth, Rpc::kHealthCheck, 0},
      {"verdict", Mix::kVerdict, Rpc::kExtractVerdict, 0},
      {"authz", Mix::kAuthz, Rpc::kEnvoyCheck, 0},
  };
  return *kCases;
}

TEST(ParseLoadgenFlags, EveryMixByName) {
  for (const MixCase& c : MixCases()) {
    for (const char* mode : {"stateless", "run"}) {
      auto o = ParseLoadgenFlags({"--mix=" + c.name, "--mode", mode});
      ASSERT_TRUE(o.ok()) << c.name << " " << mode << ": " << o.status();
      EXPECT_EQ(o->mix, c.mix) << c.name;
      EXPECT_EQ(ModeName(o->mode), mode);
    }
    EXPECT_EQ(MixName(c.mix), c.name);
  }
}

TEST(RpcOf, EachMixSendsOneRpc) {
  for (const MixCase& c : MixCases()) {
    EXPECT_EQ(RpcOf(c.mix), c.rpc) << c.name;
    EXPECT_EQ(PayloadNames(c.mix).size(), c.payloads) << c.name;
  }
}

TEST(VerdictItem, BenchEnvelopeStrictDefaultSchema) {
  const Item item = VerdictItem();
  EXPECT_EQ(item.rpc, Rpc::kExtractVerdict);
  EXPECT_EQ(item.verdict.envelope(), bench::VerdictEnvelope());
  EXPECT_GT(item.verdict.envelope().size(), 3000u);
  EXPECT_EQ(item.verdict.result_schema(), "");  // The default schema.
  EXPECT_EQ(item.verdict.repair(), v1::REPAIR_POLICY_STRICT);
  // Bound to no snapshot or run until BuildItems.
  EXPECT_EQ(item.verdict.snapshot_id(), "");
  EXPECT_EQ(item.verdict.run_id(), "");
  EXPECT_EQ(item.request.ByteSizeLong(), 0u);
}

TEST(HealthItem, PreEncodedRequestForTheWholeServer) {
  const Item item = HealthItem();
  EXPECT_EQ(item.rpc, Rpc::kHealthCheck);
  // service "" is the empty message in proto3.
  EXPECT_EQ(client::EncodeHealthCheckRequest(""), "");
  EXPECT_TRUE(item.health.Valid());
  EXPECT_EQ(item.health.Length(), 0u);
  EXPECT_EQ(item.request.ByteSizeLong(), 0u);
  EXPECT_EQ(item.verdict.ByteSizeLong(), 0u);
}

TEST(OutcomeLabel, DropsThePrefix) {
  const std::vector<std::pair<int, std::string>> cases = {
      {v1::OUTCOME_UNSPECIFIED, "UNSPECIFIED"},
      {v1::OUTCOME_PASS, "PASS"},
      {v1::OUTCOME_FAIL, "FAIL"},
      {v1::OUTCOME_REFUSED, "REFUSED"},
      {v1::OUTCOME_CONTRACT_STOP, "CONTRACT_STOP"},
      {42, "OUTCOME_42"},
  };
  for (const auto& [outcome, label] : cases) {
    EXPECT_EQ(OutcomeLabel(outcome), label) << outcome;
  }
}

TEST(ParseLoadgenFlags, RefusesBadFlags) {
  const std::vector<std::vector<std::string>> cases = {
      {"--addr=10.1.2.3:50051"},
      {"--addr", "prod.example.com:443"},
      {"--duration_seconds=121"},  // Hard cap.
      {"--duration_seconds=0"},
      {"--concurrency=0"},
      {"--concurrency=257"},
      {"--mode=batch"},
      {"--mix=all"},
      {"--mix=Health"},
      {"--mix=verdicts"},
      {"--max_requests=-1"},
      {"--max_requests=lots"},
      {"--rpc_timeout_ms=0"},
      {"--verbose=1"},
      {"--concurrency"},  // No value.
      {"stray"},
  };
  for (const auto& args : cases) {
    EXPECT_FALSE(ParseLoadgenFlags(args).ok()) << args[0];
  }
}

struct PercentileCase {
  std::vector<int64_t> sorted;
  double q;
  int64_t want;
};

TEST(Percentile, NearestRank) {
  std::vector<int64_t> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  const std::vector<PercentileCase> cases = {
      {{}, 0.5, 0},
      {{7}, 0.0, 7},
      {{7}, 0.99, 7},
      {{1, 2}, 0.5, 1},
      {{1, 2}, 0.51, 2},
      {{1, 2, 3, 4}, 0.5, 2},
      {{1, 2, 3, 4}, 0.75, 3},
      {{1, 2, 3, 4}, 1.0, 4},
      {hundred, 0.50, 50},
      {hundred, 0.90, 90},
      {hundred, 0.99, 99},
      {hundred, 0.991, 100},
      {hundred, 1.5, 100},  // Clamped.
      {hundred, -1, 1},
  };
  for (const PercentileCase& c : cases) {
    EXPECT_EQ(Percentile(c.sorted, c.q), c.want)
        << "n=" << c.sorted.size() << " q=" << c.q;
  }
}

TEST(Summarize, SortsAndSummarizes) {
  std::vector<int64_t> samples;
  for (int i = 1000; i >= 1; --i) samples.push_back(i * 1000);  // Descending.
  LatencySummary s = Summarize(samples);
  EXPECT_EQ(s.count, 1000);
  EXPECT_EQ(s.p50_ns, 500000);
  EXPECT_EQ(s.p90_ns, 900000);
  EXPECT_EQ(s.p99_ns, 990000);
  EXPECT_EQ(s.max_ns, 1000000);
  EXPECT_DOUBLE_EQ(s.mean_ns, 500500.0);
  EXPECT_EQ(Summarize({}).count, 0);
}

TEST(Report, JsonLineCarriesTheCounts) {
  LoadReport r;
  r.options.mix = Mix::kReject;
  r.options.concurrency = 2;
  r.elapsed_seconds = 2.0;
  r.requests = 3;
  r.errors = 1;
  r.decisions = {0, 0, 2, 0, 0};
  r.error_codes["UNAVAILABLE"] = 1;
  r.latency = Summarize({1000, 2000, 3000});
  auto j = nlohmann::json::parse(JsonLine(r));
  EXPECT_EQ(j["mix"], "reject");
  EXPECT_EQ(j["mode"], "stateless");
  EXPECT_EQ(j["requests"], 3);
  EXPECT_EQ(j["errors"], 1);
  EXPECT_DOUBLE_EQ(j["qps"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["latency_us"]["p50"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["latency_us"]["max"].get<double>(), 3.0);
  EXPECT_EQ(j["decisions"]["REJECT"], 2);
  EXPECT_EQ(j["error_codes"]["UNAVAILABLE"], 1);
  EXPECT_THAT(HumanLine(r), HasSubstr("qps=1.5"));
  EXPECT_THAT(HumanLine(r), HasSubstr("REJECT=2"));
  EXPECT_TRUE(j["outcomes"].empty());
}

TEST(Report, OutcomesOfHealthAndVerdictMixes) {
  LoadReport r;
  r.options.mix = Mix::kHealth;
  r.requests = 3;
  r.errors = 1;
  r.outcomes = {{"SERVING", 2}, {"NOT_SERVING", 1}};
  auto j = nlohmann::json::parse(JsonLine(r));
  EXPECT_EQ(j["mix"], "health");
  EXPECT_EQ(j["outcomes"]["SERVING"], 2);
  EXPECT_EQ(j["outcomes"]["NOT_SERVING"], 1);
  EXPECT_EQ(j["decisions"]["ALLOW"], 0);  // The field stays, all zero.
  EXPECT_THAT(HumanLine(r), HasSubstr("outcomes NOT_SERVING=1 SERVING=2"));
}

TEST(PayloadNames, MixedInterleavesEveryPayloadOnce) {
  const std::vector<std::string> mixed = PayloadNames(Mix::kMixed);
  EXPECT_EQ(mixed.size(), PayloadNames(Mix::kAllow).size() +
                              PayloadNames(Mix::kReject).size() +
                              PayloadNames(Mix::kText).size());
  ASSERT_GE(mixed.size(), 3u);
  EXPECT_EQ(mixed[0], "openai_allow");
  EXPECT_EQ(mixed[1], "openai_reject");
  EXPECT_EQ(mixed[2], "text_tag");
}

}  // namespace
}  // namespace load
}  // namespace toolgate
