// Google Benchmark of the pythonic reader (core/extract/formats): bytes of
// call text read per second, for call lists shaped like what models write
// (a few calls with short values), long string arguments, many calls and
// number-heavy arguments. Beside each, the same calls as JSON read by the
// strict parser and in Mistral's syntax, for scale.
//
// Each input is read once and checked before timing; an input that stops
// reading is an error, not a fast number.
//
//   bazel run -c opt //bench/formats:pythonic_benchmark
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/extract/formats/formats.h"
#include "core/extract/formats/render.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace extract {
namespace {

std::vector<CallToRender> Typical() {
  return {
      {"search_tickets",
       Json::parse(R"({"query": "refund not received since March", "status":
           "open", "limit": 20, "include_closed": false})"),
       ""},
      {"crm.update_contact",
       Json::parse(R"({"contact_id": 48213, "email": "ana.lopez@example.com",
           "tags": ["vip", "renewal-2025"], "score": 0.875, "notes": null,
           "address": {"city": "Z\u00fcrich", "zip": "8001"}})"),
       ""},
  };
}

std::vector<CallToRender> LongString() {
  std::string text;
  while (text.size() < 16000) {
    text += "The customer wrote: \"it's been three weeks\" and attached a "
            "receipt.\tNext step: escalate to billing.\n";
  }
  return {{"create_ticket",
           {{"title", "Refund"}, {"description", text}, {"priority", "high"}},
           ""}};
}

std::vector<CallToRender> ManyCalls() {
  std::vector<CallToRender> calls;
  for (int i = 0; i < 64; ++i) {
    calls.push_back({"get_ticket",
                     {{"ticket_id", absl::StrCat("TCK-", 100000 + i)},
                      {"fields", {"status", "owner"}}},
                     ""});
  }
  return calls;
}

std::vector<CallToRender> Numbers() {
  Json values = Json::array();
  for (int i = 0; i < 1000; ++i) {
    values.push_back(i % 2 ? Json(i * 1.25) : Json(i * 7919));
  }
  return {{"plot", {{"values", values}}, ""}};
}

const std::vector<CallToRender>& Calls(const std::string& name) {
  static const auto* typical = new std::vector<CallToRender>(Typical());
  static const auto* long_string = new std::vector<CallToRender>(LongString());
  static const auto* many = new std::vector<CallToRender>(ManyCalls());
  static const auto* numbers = new std::vector<CallToRender>(Numbers());
  if (name == "typical") return *typical;
  if (name == "long_string") return *long_string;
  if (name == "many_calls") return *many;
  return *numbers;
}

void BM_Read(benchmark::State& state, TextFormat format, const char* calls) {
  auto text = RenderCalls(format, Calls(calls));
  if (!text.ok()) {
    state.SkipWithError(std::string(text.status().message()).c_str());
    return;
  }
  const ExtractionResult first = ReadDeclaredFormat(*text, format);
  if (!first.ok() || first.calls.size() != Calls(calls).size()) {
    state.SkipWithError(("not read: " + first.error.message).c_str());
    return;
  }
  for (auto _ : state) {
    ExtractionResult r = ReadDeclaredFormat(*text, format);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * text->size());
  state.counters["text_bytes"] = text->size();
}

// The same calls as one JSON array, read by the strict parser alone.
void BM_StrictJson(benchmark::State& state, const char* calls) {
  Json list = Json::array();
  for (const CallToRender& c : Calls(calls)) {
    list.push_back({{"name", c.name}, {"arguments", c.arguments}});
  }
  const std::string text = list.dump();
  for (auto _ : state) {
    auto r = ParseStrictJson(text);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * text.size());
  state.counters["text_bytes"] = text.size();
}

#define TG_READ(shape)                                                     \
  BENCHMARK_CAPTURE(BM_Read, pythonic_##shape, TextFormat::kPythonic,      \
                    #shape);                                               \
  BENCHMARK_CAPTURE(BM_Read, mistral_##shape, TextFormat::kMistral, #shape); \
  BENCHMARK_CAPTURE(BM_StrictJson, strict_json_##shape, #shape)

TG_READ(typical);
TG_READ(long_string);
TG_READ(many_calls);
TG_READ(numbers);

}  // namespace
}  // namespace extract
}  // namespace toolgate

BENCHMARK_MAIN();
