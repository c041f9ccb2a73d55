// The soak driver's pure parts: flags (loopback-only, required server pid),
// the step cycle and the checks that turn a wrong answer into an error,
// /proc parsing, and the pass/fail rules of the report.
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "bench/soak/plan.h"
#include "bench/soak/proc_status.h"
#include "bench/soak/report.h"
#include "bench/soak/soak_options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace soak {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::vector<std::string> kRequired = {"--addr=127.0.0.1:50051",
                                            "--server_pid=42"};

std::vector<std::string> With(std::vector<std::string> extra) {
  std::vector<std::string> args = kRequired;
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(ParseSoakFlags, DefaultsAreTheMillionCallSoak) {
  auto o = ParseSoakFlags(kRequired);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->calls, 1000000);
  EXPECT_EQ(o->max_rss_growth_percent, 10);
  EXPECT_EQ(o->warmup_fraction, 0.1);
  EXPECT_EQ(o->server_pid, 42);
}

TEST(ParseSoakFlags, RefusesWhatWouldNotBeTheAskedSoak) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--server_pid=42"}, "--addr is required"},
      {{"--addr=127.0.0.1:1"}, "--server_pid is required"},
      {{"--addr=10.0.0.1:50051", "--server_pid=42"}, "not a loopback"},
      {{"--addr=example.com:443", "--server_pid=42"}, "not a loopback"},
      {With({"--server_pid=0"}), "--server_pid"},
      {With({"--calls=0"}), "--calls"},
      {With({"--workers=65"}), "--workers"},
      {With({"--calls_per_run=0"}), "--calls_per_run"},
      {With({"--warmup_fraction=0"}), "--warmup_fraction"},
      {With({"--warmup_fraction=1"}), "--warmup_fraction"},
      {With({"--max_rss_growth_percent=-1"}), "--max_rss_growth_percent"},
      {With({"--max_rss_growth_percent=nan"}), "--max_rss_growth_percent"},
      {With({"--time_limit_seconds=0"}), "--time_limit_seconds"},
      {With({"--max_errors=0"}), "--max_errors"},
      {With({"--verbose=1"}), "unknown flag --verbose"},
      {With({"--calls"}), "--calls needs a value"},
      {With({"calls=5"}), "unexpected argument"},
  };
  for (const Case& c : cases) {
    auto o = ParseSoakFlags(c.args);
    EXPECT_FALSE(o.ok()) << c.error;
    EXPECT_THAT(std::string(o.status().message()), HasSubstr(c.error));
  }
}

TEST(ParseSoakFlags, AcceptsBothFlagForms) {
  auto o = ParseSoakFlags(
      With({"--calls", "2000", "--warmup_fraction=0.25", "--label=x y"}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->calls, 2000);
  EXPECT_EQ(o->warmup_fraction, 0.25);
  EXPECT_EQ(o->label, "x y");
}

constexpr char kStatus[] =
    "Name:\ttoolgate\nState:\tS (sleeping)\nVmPeak:\t  300000 kB\n"
    "VmRSS:\t   21344 kB\nRssAnon:\t    9000 kB\nThreads:\t7\n";

TEST(ParseProcStatus, ReadsRssAndThreads) {
  auto s = ParseProcStatus(kStatus);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->rss_kb, 21344);
  EXPECT_EQ(s->threads, 7);
}

TEST(ParseProcStatus, MissingOrMalformedFieldIsAnErrorNotZero) {
  // A zombie has no VmRSS line: that must not read as 0 kB.
  EXPECT_TRUE(absl::IsNotFound(
      ParseProcStatus("Name:\ttoolgate\nState:\tZ (zombie)\nThreads:\t1\n")
          .status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      ParseProcStatus("VmRSS:\t abc kB\nThreads:\t1\n").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      ParseProcStatus("VmRSS:\t 12 MB\nThreads:\t1\n").status()));
  EXPECT_TRUE(absl::IsNotFound(ParseProcStatus("VmRSS:\t 12 kB\n").status()));
}

TEST(SampleProcess, ReadsALiveProcessAndRefusesAMissingOne) {
  auto self = SampleProcess(getpid());
  ASSERT_TRUE(self.ok()) << self.status();
  EXPECT_GT(self->rss_kb, 0);
  EXPECT_GE(self->threads, 1);
  EXPECT_GT(self->open_fds, 0);
  EXPECT_TRUE(absl::IsNotFound(SampleProcess(999999999).status()));
}

TEST(BuildCycle, CoversEveryKindWithAnExpectation) {
  const std::vector<Step> cycle = BuildCycle();
  std::map<std::string, int> kinds;
  for (const Step& s : cycle) {
    ++kinds[s.kind];
    switch (s.type) {
      case StepType::kCall:
        EXPECT_NE(s.expect_decision, v1::DECISION_UNSPECIFIED) << s.name;
        break;
      case StepType::kVerdict:
        EXPECT_NE(s.expect_outcome, v1::OUTCOME_UNSPECIFIED) << s.name;
        break;
      case StepType::kOutput:
        EXPECT_NE(s.expect_output, v1::OUTPUT_VERDICT_UNSPECIFIED) << s.name;
        break;
    }
  }
  EXPECT_EQ(kinds, (std::map<std::string, int>{{"allow", 3},
                                               {"reject", 3},
                                               {"text", 6},
                                               {"verdict", 3},
                                               {"output", 3}}));
  EXPECT_THAT(SnapshotNames(cycle),
              ElementsAre("billing", "customers", "tickets"));
}

TEST(BuildCycle, VerdictsCoverPassFailAndContractStop) {
  std::set<int> outcomes;
  for (const Step& s : BuildCycle()) {
    if (s.type == StepType::kVerdict) outcomes.insert(s.expect_outcome);
  }
  EXPECT_EQ(outcomes, (std::set<int>{v1::OUTCOME_PASS, v1::OUTCOME_FAIL,
                                     v1::OUTCOME_CONTRACT_STOP}));
}

Step FirstOf(StepType type, const std::string& kind) {
  for (const Step& s : BuildCycle()) {
    if (s.type == type && s.kind == kind) return s;
  }
  ADD_FAILURE() << "no " << kind;
  return Step();
}

TEST(Address, StatelessNamesTheSnapshotRunModeOnlyTheRun) {
  Step call = FirstOf(StepType::kCall, "allow");
  Address(Target{"sha256:s", "", ""}, &call);
  EXPECT_EQ(call.call.snapshot_id(), "sha256:s");
  EXPECT_EQ(call.call.run_id(), "");
  Address(Target{"sha256:s", "run-1", "tok"}, &call);
  EXPECT_EQ(call.call.snapshot_id(), "");
  EXPECT_EQ(call.call.run_id(), "run-1");
  EXPECT_EQ(call.call.run_token(), "tok");
  Step verdict = FirstOf(StepType::kVerdict, "verdict");
  Address(Target{"sha256:s", "", ""}, &verdict);
  EXPECT_EQ(verdict.verdict.snapshot_id(), "");
}

v1::ValidateToolCallResponse Allowed() {
  v1::ValidateToolCallResponse r;
  r.set_decision(v1::DECISION_ALLOW);
  r.add_calls()->set_name("create_ticket");
  r.set_snapshot_id("sha256:s");
  r.set_audit_id("a1");
  return r;
}

TEST(CheckCall, AnyOtherAnswerThanTheExpectedIsAMismatch) {
  const Step allow = FirstOf(StepType::kCall, "allow");
  EXPECT_EQ(CheckCall(allow, Allowed(), "sha256:s"), "");

  v1::ValidateToolCallResponse r = Allowed();
  r.set_decision(v1::DECISION_REJECT);
  EXPECT_THAT(CheckCall(allow, r, "sha256:s"),
              HasSubstr("decision DECISION_REJECT"));
  r.set_decision(v1::DECISION_UNSPECIFIED);
  EXPECT_THAT(CheckCall(allow, r, "sha256:s"),
              HasSubstr("DECISION_UNSPECIFIED"));
  r = Allowed();
  r.clear_calls();
  EXPECT_THAT(CheckCall(allow, r, "sha256:s"), HasSubstr("ALLOW with 0 calls"));
  EXPECT_THAT(CheckCall(allow, Allowed(), "sha256:other"),
              HasSubstr("answered from snapshot"));
  r = Allowed();
  r.clear_audit_id();
  EXPECT_EQ(CheckCall(allow, r, "sha256:s"), "no audit_id");

  const Step reject = FirstOf(StepType::kCall, "reject");
  r = Allowed();
  r.set_decision(v1::DECISION_REJECT);
  EXPECT_THAT(CheckCall(reject, r, "sha256:s"),
              HasSubstr("REJECT without violations"));
  r.add_violations()->set_code("invalid_arguments");
  r.set_repair_prompt("{}");
  EXPECT_EQ(CheckCall(reject, r, "sha256:s"), "");
  EXPECT_THAT(CheckCall(reject, Allowed(), "sha256:s"),
              HasSubstr("want DECISION_REJECT"));
}

TEST(CheckVerdict, OnlyTheExpectedOutcomeWithItsEvidencePasses) {
  Step pass;
  pass.type = StepType::kVerdict;
  pass.expect_outcome = v1::OUTCOME_PASS;
  v1::ExtractVerdictResponse r;
  r.set_outcome(v1::OUTCOME_PASS);
  r.set_result_json(R"({"verdict":"pass"})");
  r.set_audit_id("a1");
  EXPECT_EQ(CheckVerdict(pass, r), "");
  r.clear_result_json();
  EXPECT_EQ(CheckVerdict(pass, r), "no result_json");
  r.set_outcome(v1::OUTCOME_CONTRACT_STOP);
  EXPECT_THAT(CheckVerdict(pass, r), HasSubstr("want OUTCOME_PASS"));

  Step stop = pass;
  stop.expect_outcome = v1::OUTCOME_CONTRACT_STOP;
  r.set_result_json("{}");
  EXPECT_EQ(CheckVerdict(stop, r), "CONTRACT_STOP with a result");
  r.clear_result_json();
  EXPECT_EQ(CheckVerdict(stop, r), "CONTRACT_STOP without reason");
  r.set_stop_reason("unterminated_block");
  EXPECT_EQ(CheckVerdict(stop, r), "");
}

TEST(CheckOutput, ReadOnlyOrUnexplainedInvalidIsAMismatch) {
  Step invalid;
  invalid.type = StepType::kOutput;
  invalid.expect_output = v1::OUTPUT_VERDICT_INVALID;
  v1::ValidateToolOutputResponse r;
  r.set_verdict(v1::OUTPUT_VERDICT_INVALID);
  r.set_audit_id("a1");
  EXPECT_EQ(CheckOutput(invalid, r), "INVALID without violations");
  r.add_violations()->set_code("output_schema");
  EXPECT_EQ(CheckOutput(invalid, r), "");
  r.set_read_only(true);
  EXPECT_EQ(CheckOutput(invalid, r), "run turned read-only");
  r.set_read_only(false);
  r.set_verdict(v1::OUTPUT_VERDICT_VALID);
  EXPECT_THAT(CheckOutput(invalid, r),
              HasSubstr("want OUTPUT_VERDICT_INVALID"));
}

SoakReport Passing() {
  SoakReport r;
  r.options.calls = 1000;
  r.calls = 1000;
  r.elapsed_seconds = 2;
  r.after_warmup = RssPoint{100, ProcSample{10000, 7, 12}};
  r.end = RssPoint{1000, ProcSample{11000, 7, 12}};
  return r;
}

TEST(Failures, PassesOnlyAFullErrorFreeRunWithinTheGrowthLimit) {
  EXPECT_THAT(Failures(Passing()), IsEmpty());  // +10.0% is within 10%.

  SoakReport r = Passing();
  r.end->sample.rss_kb = 11001;
  EXPECT_THAT(Failures(r), ElementsAre(HasSubstr("RSS grew 10.01%")));
  r.end->sample.rss_kb = 8000;  // Shrinking is fine.
  EXPECT_THAT(Failures(r), IsEmpty());

  r = Passing();
  r.errors = 1;
  EXPECT_THAT(Failures(r), ElementsAre("1 errors"));

  r = Passing();
  r.calls = 400;
  r.stopped_by = "time_limit";
  EXPECT_THAT(Failures(r),
              ElementsAre("only 400 of 1000 calls (stopped by time_limit)"));

  r = Passing();
  r.after_warmup.reset();
  EXPECT_THAT(Failures(r), ElementsAre(HasSubstr("no RSS sample")));
}

TEST(JsonLine, CarriesTheFiguresTheReadmeRecords) {
  SoakReport r = Passing();
  r.errors = 2;
  r.errors_by_kind["mismatch openai_allow"] = 2;
  const auto j = nlohmann::json::parse(JsonLine(r));
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["calls"], 1000);
  EXPECT_EQ(j["errors"], 2);
  EXPECT_EQ(j["errors_by_kind"]["mismatch openai_allow"], 2);
  EXPECT_EQ(j["rss_after_warmup_kb"], 10000);
  EXPECT_EQ(j["rss_end_kb"], 11000);
  EXPECT_EQ(j["growth_percent"], 10.0);
  EXPECT_EQ(j["calls_per_second"], 500.0);
  EXPECT_EQ(j["stopped_by"], "calls");

  r.after_warmup.reset();
  EXPECT_TRUE(nlohmann::json::parse(JsonLine(r))["growth_percent"].is_null());
}

}  // namespace
}  // namespace soak
}  // namespace toolgate
