// Google Benchmark of toolgate's hot path in-process: toolgate::Engine with
// the embedded example manifests, no gRPC. Measures ValidateToolCall
// (native and text calls), ExtractVerdict and ValidateToolOutput on the
// realistic payloads of bench/engine/payloads.h.
//
// Each benchmark first runs its request once and checks the decision; a
// payload that no longer takes its intended path is reported as an error
// rather than timed. Not a test: nothing here asserts timing.
//
//   bazel run -c opt //bench/engine:engine_benchmark
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/engine/payloads.h"
#include "core/engine/engine.h"
#include "schemas/embedded_examples.h"

namespace toolgate {
namespace bench {
namespace {

// One engine for the whole process, as in the sidecar: benchmarks (and
// their threads) share it, so snapshot lookups see a realistic store.
struct Shared {
  Engine engine;
  std::map<std::string, std::string> snapshot_ids;  // name -> id
};

Shared& State() {
  static Shared* shared = [] {
    auto* s = new Shared();
    for (const EmbeddedManifest& m : EmbeddedExampleManifests()) {
      auto snap = s->engine.CreateSnapshot(m.contents, ManifestFormat::kAuto,
                                           m.name);
      if (!snap.ok()) {
        std::cerr << "bench: " << m.file << ": " << snap.status() << "\n";
        std::abort();
      }
      s->snapshot_ids[m.name] = (*snap)->id();
    }
    return s;
  }();
  return *shared;
}

ValidateCallRequest CallRequest(const CallPayload& p) {
  ValidateCallRequest r;
  r.snapshot_id = State().snapshot_ids.at(p.snapshot);
  r.kind = p.native ? OutputKind::kNative : OutputKind::kText;
  r.output = p.output;
  r.syntax_repair = p.syntax_repair;
  if (!p.text_format.empty()) {
    std::optional<extract::TextFormat> format =
        extract::ParseTextFormat(p.text_format);
    if (!format) {
      std::cerr << "bench: unknown text format " << p.text_format << "\n";
      std::abort();
    }
    r.text_format = *format;
  }
  return r;
}

// "" when the response is what the payload promises, else why not.
std::string CheckCall(const absl::StatusOr<ValidateCallResponse>& r,
                      Expect expect) {
  if (!r.ok()) return r.status().ToString();
  const Decision want =
      expect == Expect::kAllow ? Decision::kAllow : Decision::kReject;
  if (r->decision != want) {
    return absl::StrCat("decision ", DecisionName(r->decision), " (",
                        r->violations.empty() ? "" : r->violations[0].code,
                        "), want ", DecisionName(want));
  }
  if (want == Decision::kReject && r->violations.empty()) {
    return "REJECT without violations";
  }
  return "";
}

void RunCall(benchmark::State& state, const ValidateCallRequest& request,
             Expect expect) {
  Engine& engine = State().engine;
  auto first = engine.ValidateToolCall(request);
  if (std::string why = CheckCall(first, expect); !why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  for (auto _ : state) {
    auto r = engine.ValidateToolCall(request);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * request.output.size());
  state.SetItemsProcessed(state.iterations());
  state.counters["violations"] =
      static_cast<double>(first->violations.size());
}

// Stateless: the request names a snapshot.
void BM_ValidateToolCall(benchmark::State& state, const char* payload) {
  const CallPayload& p = CallNamed(payload);
  RunCall(state, CallRequest(p), p.expect);
}

// Run mode: each benchmark thread is one agent run (its own breaker), so
// this adds run authorization and the per-run loop bookkeeping.
void BM_ValidateToolCallInRun(benchmark::State& state, const char* payload) {
  const CallPayload& p = CallNamed(payload);
  ValidateCallRequest request = CallRequest(p);
  auto run = State().engine.OpenRun(request.snapshot_id, "bench-model", {},
                                    RunLimits{});
  if (!run.ok()) {
    state.SkipWithError(run.status().ToString().c_str());
    return;
  }
  request.snapshot_id.clear();
  request.run_id = run->run->id();
  request.run_token = run->token;
  RunCall(state, request, p.expect);
  (void)State().engine.CloseRun(request.run_id, request.run_token);
}

void BM_ExtractVerdict(benchmark::State& state, bool syntax_repair) {
  Engine& engine = State().engine;
  VerdictRequest request;
  request.envelope = VerdictEnvelope();
  request.syntax_repair = syntax_repair;
  auto first = engine.ExtractVerdict(request);
  if (!first.ok() || first->result.outcome != verdict::Outcome::kPass) {
    state.SkipWithError(first.ok() ? first->result.stop_reason.c_str()
                                   : "ExtractVerdict failed");
    return;
  }
  for (auto _ : state) {
    auto r = engine.ExtractVerdict(request);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * request.envelope.size());
  state.SetItemsProcessed(state.iterations());
  state.counters["envelope_bytes"] = request.envelope.size();
  state.counters["blocks_found"] = first->result.blocks_found;
}

void BM_ValidateToolOutput(benchmark::State& state, const char* name) {
  const OutputPayload* p = nullptr;
  for (const OutputPayload& o : ToolOutputs()) {
    if (o.name == name) p = &o;
  }
  if (p == nullptr) std::abort();
  Engine& engine = State().engine;
  ValidateOutputRequest request;
  request.snapshot_id = State().snapshot_ids.at(p->snapshot);
  request.tool_name = p->tool;
  request.content_type = p->content_type;
  request.http_status = p->http_status;
  request.body = p->body;
  auto first = engine.ValidateToolOutput(request);
  const auto want = p->expect_valid ? output::OutputVerdict::kValid
                                    : output::OutputVerdict::kInvalid;
  if (!first.ok() || first->result.verdict != want) {
    state.SkipWithError("unexpected output verdict");
    return;
  }
  for (auto _ : state) {
    auto r = engine.ValidateToolOutput(request);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * request.body.size());
  state.SetItemsProcessed(state.iterations());
  state.counters["body_bytes"] = request.body.size();
  state.counters["violations"] = first->result.violations.size();
}

#define TG_CALL(name) BENCHMARK_CAPTURE(BM_ValidateToolCall, name, #name)

TG_CALL(openai_allow);
TG_CALL(openai_reject);
TG_CALL(anthropic_allow);
TG_CALL(anthropic_reject);
TG_CALL(mcp_allow);
TG_CALL(mcp_reject);
TG_CALL(text_tag);
TG_CALL(text_fence_reasoning);
TG_CALL(text_react);
TG_CALL(text_bare);
TG_CALL(text_damaged_strict);
TG_CALL(text_damaged_repair);
// The text_tag call in each model family's declared syntax.
TG_CALL(format_hermes);
TG_CALL(format_mistral);
TG_CALL(format_llama3_json);
TG_CALL(format_pythonic);
TG_CALL(format_granite);
TG_CALL(format_deepseek_v3);

// Scaling: the same ALLOW call from 1 and 2 threads on one shared engine.
// UseRealTime: Time is wall time per call across all threads (1/throughput)
// and items_per_second is the aggregate rate.
BENCHMARK_CAPTURE(BM_ValidateToolCall, openai_allow_scaling, "openai_allow")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ValidateToolCallInRun, openai_allow_run, "openai_allow")
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();

BENCHMARK_CAPTURE(BM_ExtractVerdict, strict, false);
BENCHMARK_CAPTURE(BM_ExtractVerdict, syntax_repair, true);

BENCHMARK_CAPTURE(BM_ValidateToolOutput, http_json_valid, "http_json_valid");
BENCHMARK_CAPTURE(BM_ValidateToolOutput, mcp_result_valid, "mcp_result_valid");
BENCHMARK_CAPTURE(BM_ValidateToolOutput, mcp_result_drift, "mcp_result_drift");

}  // namespace
}  // namespace bench
}  // namespace toolgate
