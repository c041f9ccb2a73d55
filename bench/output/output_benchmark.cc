// Google Benchmark of ValidateToolOutput's string checks, on outputs that
// take each path of the markup check (no schema, so the strings dominate):
//
//   plain          20 strings of prose, no "<" at all: no HTML parse
//   less_than      the same with "a < b", "<3", "x <= 5": no tag opener,
//                  no parse
//   generics       the same with Vec<String>, <user@example.com>: plain
//                  unknown tags, recognised without a parse
//   generics_attrs the same with HashMap<String, Vec<u8>>: a tag with
//                  attributes, so each such string is parsed (data)
//   markup         one string holds <img onerror>: parsed, INVALID
//   invisible      the prose with zero-width spaces and NBSPs: the injection
//                  scan normalizes each string first
//   budget_nested  one string of 200,000 nested tags (1 MB, past the parse
//                  budget): refused unparsed
//   budget_worst   the most tags the budget lets through: 1024 nested
//                  tags with distinct attributes, the parser's quadratic case
//   budget_bytes   the most bytes it lets through: 250 KB of prose ending
//                  in Map<K, V>, parsed whole
//
// Not a test: nothing asserts timing.
//
//   bazel run -c opt //bench/output:output_benchmark
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/output/output.h"

namespace toolgate {
namespace output {
namespace {

std::string Body(const std::string& extra) {
  std::string body = "{\"results\":[";
  for (int i = 0; i < 20; ++i) {
    absl::StrAppend(&body, i == 0 ? "" : ",", "{\"id\":", i,
                    ",\"title\":\"Quarterly report ", i,
                    "\",\"text\":\"Revenue grew in every region; the team "
                    "shipped the billing migration and closed 42 tickets.",
                    extra, "\"}");
  }
  return body + "]}";
}

void Run(benchmark::State& state, const std::string& body, bool valid) {
  OutputRequest request;
  request.tool_name = "search";
  request.content_type = "application/json";
  request.http_status = 200;
  request.body = body;
  const OutputSpec spec;
  const OutputResult first = ValidateToolOutput(request, &spec);
  if ((first.verdict == OutputVerdict::kValid) != valid) {
    state.SkipWithError("unexpected verdict");
    return;
  }
  for (auto _ : state) {
    OutputResult r = ValidateToolOutput(request, &spec);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * body.size());
}

void BM_Output_plain(benchmark::State& s) { Run(s, Body(""), true); }
void BM_Output_less_than(benchmark::State& s) {
  Run(s, Body(" If a < b and x <= 5 we <3 it."), true);
}
void BM_Output_generics(benchmark::State& s) {
  Run(s, Body(" Returns Vec<String>; mail <ops@example.com>."), true);
}
void BM_Output_generics_attrs(benchmark::State& s) {
  Run(s, Body(" Returns HashMap<String, Vec<u8>>."), true);
}
void BM_Output_markup(benchmark::State& s) {
  std::string body = Body("");
  body.insert(body.size() - 4, " <img src=x onerror=alert(1)>");
  Run(s, body, false);
}
void BM_Output_invisible(benchmark::State& s) {
  Run(s, Body(" ig\\u200bnore\\u00a0the\\u200d note."), true);
}
void BM_Output_budget_nested(benchmark::State& s) {
  std::string nested;
  for (int i = 0; i < 200000; ++i) nested += "<x a>";
  Run(s, "{\"a\":\"" + nested + "\"}", false);
}
void BM_Output_budget_worst(benchmark::State& s) {
  std::string nested;
  for (int i = 0; i < 1024; ++i) absl::StrAppend(&nested, "<b a", i, ">");
  Run(s, "{\"a\":\"" + nested + "\"}", false);
}

void BM_Output_budget_bytes(benchmark::State& s) {
  std::string text;
  while (text.size() < (250 << 10)) text += "the quick brown fox jumps. ";
  Run(s, "{\"a\":\"" + text + "Map<K, V>\"}", true);
}

BENCHMARK(BM_Output_plain);
BENCHMARK(BM_Output_less_than);
BENCHMARK(BM_Output_generics);
BENCHMARK(BM_Output_generics_attrs);
BENCHMARK(BM_Output_markup);
BENCHMARK(BM_Output_invisible);
BENCHMARK(BM_Output_budget_nested);
BENCHMARK(BM_Output_budget_worst);
BENCHMARK(BM_Output_budget_bytes);

}  // namespace
}  // namespace output
}  // namespace toolgate
