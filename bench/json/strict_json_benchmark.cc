// Google Benchmark of ParseStrictJson on realistic documents, in MB/s:
//
//   small   a tool call's arguments (~150 B)
//   medium  an assistant message with two native tool calls, escaped
//           arguments and non-ASCII text (~1.3 KB)
//   large   a search tool's output: 150 result objects (~50 KB)
//
// Each runs through ParseStrictJson (fast parser), the SAX implementation
// it replaced, and nlohmann's non-strict Json::parse for scale. Every
// iteration parses and destroys one document, as a request does; the
// Teardown rows time the destruction alone, the Refused rows the error
// path. Not a test: nothing asserts timing.
//
//   bazel run -c opt //bench/json:strict_json_benchmark
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/json/strict_json.h"
#include "core/json/strict_json_sax_internal.h"

namespace toolgate {
namespace {

std::string Small() {
  return R"({"path":"/srv/data/report-2024.json","mode":"append",)"
         R"("content":"{\"ok\":true}","tags":["a","b"],)"
         R"("options":{"timeout_ms":500,"retries":2},"create_dirs":true})";
}

std::string Medium() {
  std::string args =
      R"({\"query\":\"Wetterbericht f\u00fcr M\u00fcnchen und Z\u00fcrich\",)"
      R"(\"max_results\":25,\"filters\":{\"language\":[\"de\",\"en\"],)"
      R"(\"since\":\"2024-01-01T00:00:00Z\",\"safe\":true},)"
      R"(\"note\":\"line one\\nline two \\\"quoted\\\" \ud83d\ude00\"})";
  std::string call = absl::StrCat(
      R"({"id":"call_8f3a2b","type":"function",)",
      R"("function":{"name":"web_search",)",
      R"("arguments":")", args, R"("}})");
  return absl::StrCat(
      R"({"id":"chatcmpl-9x8y7z","object":"chat.completion",)",
      R"("created":1718000000,)",
      R"("model":"gpt-4.1-2025-04-14","choices":[{"index":0,"message":{)",
      R"("role":"assistant","content":"Ich suche das f\u00fcr Sie – einen )",
      R"(Moment bitte. 天気を調べます。","tool_calls":[)", call, ",", call,
      R"(]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{)",
      R"("prompt_tokens":1532,"completion_tokens":87,"total_tokens":1619,)",
      R"("prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},)",
      R"("completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,)",
      R"("accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},)",
      R"("service_tier":"default","system_fingerprint":"fp_a1b2c3d4e5"})");
}

std::string Large() {
  std::string out = R"({"status":"ok","took_ms":182.5,"results":[)";
  for (int i = 0; i < 150; ++i) {
    if (i > 0) out += ",";
    absl::StrAppend(
        &out, R"({"rank":)", i + 1, R"(,"score":)", 0.99 - i * 0.005,
        R"(,"url":"https://docs.example.com/guide/section-)", i,
        R"(.html","title":"Section )", i,
        R"(: configuring the sidecar",)"
        R"("snippet":"toolgate validates every tool )"
        R"(call against its JSON Schema before it runs \u2014 fail closed, )"
        R"(never open.","tags":["docs","guide","v)",
        i % 7, R"("],"fresh":)", i % 3 == 0 ? "true" : "false",
        R"(,"author":null,"metadata":{"words":)", 1200 + i * 13,
        R"(,"lang":"en"}})");
  }
  return out + R"(],"next_page_token":"eyJvZmZzZXQiOjE1MH0="})";
}

const std::string& Doc(int which) {
  static const std::vector<std::string> kDocs = {Small(), Medium(), Large()};
  return kDocs[which];
}

void Label(benchmark::State& state, const std::string& doc) {
  static const char* const kNames[] = {"small", "medium", "large"};
  state.SetLabel(absl::StrCat(kNames[state.range(0)], " ", doc.size(), " B"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(doc.size()));
}

void BM_ParseStrictJson(benchmark::State& state) {
  const std::string& doc = Doc(static_cast<int>(state.range(0)));
  JsonLimits limits;
  limits.max_bytes = 1 << 20;
  for (auto _ : state) {
    absl::StatusOr<Json> j = ParseStrictJson(doc, limits);
    if (!j.ok()) state.SkipWithError("refused");
    benchmark::DoNotOptimize(j);
  }
  Label(state, doc);
}
BENCHMARK(BM_ParseStrictJson)->DenseRange(0, 2);

void BM_ParseStrictJsonWithSax(benchmark::State& state) {
  const std::string& doc = Doc(static_cast<int>(state.range(0)));
  JsonLimits limits;
  limits.max_bytes = 1 << 20;
  for (auto _ : state) {
    absl::StatusOr<Json> j = json_internal::ParseStrictJsonWithSax(doc, limits);
    if (!j.ok()) state.SkipWithError("refused");
    benchmark::DoNotOptimize(j);
  }
  Label(state, doc);
}
BENCHMARK(BM_ParseStrictJsonWithSax)->DenseRange(0, 2);

void BM_NlohmannParse(benchmark::State& state) {
  const std::string& doc = Doc(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Json j = Json::parse(doc, nullptr, /*allow_exceptions=*/false);
    benchmark::DoNotOptimize(j);
  }
  Label(state, doc);
}
BENCHMARK(BM_NlohmannParse)->DenseRange(0, 2);

// The refusal path: the large document cut one byte short. ParseStrictJson
// refuses in the fast parser, then re-parses with the SAX parser for the
// error report, so a refusal costs up to both parses.
void BM_Refused(benchmark::State& state) {
  const std::string& full = Doc(2);
  const std::string doc = full.substr(0, full.size() - 1);
  JsonLimits limits;
  limits.max_bytes = 1 << 20;
  const bool sax = state.range(0) == 1;
  for (auto _ : state) {
    absl::StatusOr<Json> j =
        sax ? json_internal::ParseStrictJsonWithSax(doc, limits)
            : ParseStrictJson(doc, limits);
    if (j.ok()) state.SkipWithError("accepted");
    benchmark::DoNotOptimize(j);
  }
  state.SetLabel(sax ? "SAX only, large cut short"
                     : "fast + SAX, large cut short");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(doc.size()));
}
BENCHMARK(BM_Refused)->Arg(0)->Arg(1);

// Destroying the DOM alone (nlohmann's destructor), a cost no parser can
// remove: documents are parsed in batches with the clock stopped.
void BM_Teardown(benchmark::State& state) {
  const std::string& doc = Doc(static_cast<int>(state.range(0)));
  JsonLimits limits;
  limits.max_bytes = 1 << 20;
  std::vector<Json> batch;
  constexpr int kBatch = 16;
  int left = 0;
  for (auto _ : state) {
    if (left == 0) {
      state.PauseTiming();
      batch.clear();
      for (int i = 0; i < kBatch; ++i)
        batch.push_back(*ParseStrictJson(doc, limits));
      left = kBatch;
      state.ResumeTiming();
    }
    Json doomed = std::move(batch[--left]);
    benchmark::DoNotOptimize(doomed);
  }
  Label(state, doc);
}
BENCHMARK(BM_Teardown)->DenseRange(0, 2);

}  // namespace
}  // namespace toolgate

BENCHMARK_MAIN();
