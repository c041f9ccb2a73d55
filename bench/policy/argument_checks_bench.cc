// Google Benchmark of the issue 12 argument checks (core/policy), in ns per
// argument checked, on values a model plausibly sends:
//
//   path/{pass,escape}          "reports/2024/q3/summary.csv",
//   "../../etc/shadow" shell_arg                   "report-2024-q3.txt"
//   identifier                  cus_[A-Za-z0-9]{14} on a matching id
//   url/{listed,open,private}   an allowed API URL with a hosts list, the same
//                               without one, and http://0x7f.1/ refused
//   secret/{64B,1KB,1KB_jwt}    prose without and with a JWT at the end
//   secret/adversarial_1KB      "eyJ" repeated (the scan's worst shape)
//   secret/{1KB_zwsp,1KB_cjk}   prose with one U+200B (read twice, once
//                               copied without it) and Japanese text (no
//                               invisible character, every byte non-ASCII)
//   leak/{64B,1KB}              a 4 KB protected system prompt, clean argument
//   leak_build/{4KB,64KB}       LeakDetector construction (once per run)
//
// Each benchmark checks its input's decision before timing, so a number
// can't come from an input that stopped exercising its path. Not a test.
//
//   bazel run -c opt //bench/policy:argument_checks_bench
#include <benchmark/benchmark.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policy/argument_checks.h"
#include "core/policy/secret_checks.h"

namespace toolgate::policy {
namespace {

// Times `check(value)`; skips with an error unless its decision is `code`
// (empty: passes).
template <typename Check>
void Run(benchmark::State& state, const std::string& value,
         const std::string& code, Check check) {
  std::optional<ArgumentViolation> first = check(value);
  if ((first ? first->code : "") != code) {
    state.SkipWithError(
        absl::StrCat("unexpected decision: ", first ? first->code : "pass")
            .c_str());
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(check(value));
  }
  state.SetBytesProcessed(state.iterations() * value.size());
}

void BM_PathPass(benchmark::State& state) {
  const PathRule rule{"/srv/reports", false};
  Run(state, "reports/2024/q3/summary.csv", "",
      [&](const std::string& v) { return CheckPath(v, rule); });
}
BENCHMARK(BM_PathPass)->Name("path/pass");

void BM_PathEscape(benchmark::State& state) {
  const PathRule rule{"/srv/reports", false};
  Run(state, "../../etc/shadow", "path_outside_root",
      [&](const std::string& v) { return CheckPath(v, rule); });
}
BENCHMARK(BM_PathEscape)->Name("path/escape");

void BM_ShellArg(benchmark::State& state) {
  Run(state, "report-2024-q3.txt", "",
      [](const std::string& v) { return CheckShellArg(v); });
}
BENCHMARK(BM_ShellArg)->Name("shell_arg");

void BM_Identifier(benchmark::State& state) {
  const IdentifierRule rule = *IdentifierRule::Compile("cus_[A-Za-z0-9]{14}");
  Run(state, "cus_N4fK2pQ8rT1xYz", "",
      [&](const std::string& v) { return CheckIdentifier(v, rule); });
}
BENCHMARK(BM_Identifier)->Name("identifier");

const char kApiUrl[] = "https://api.example.com/v1/items?id=42&sort=desc";

void BM_UrlListed(benchmark::State& state) {
  const UrlRule rule{{"https"}, {"api.example.com", "*.cdn.example.org"}, {}};
  Run(state, kApiUrl, "",
      [&](const std::string& v) { return CheckUrl(v, rule); });
}
BENCHMARK(BM_UrlListed)->Name("url/listed");

void BM_UrlOpen(benchmark::State& state) {
  const UrlRule rule{{"http", "https"}, {}, {}};
  Run(state, kApiUrl, "",
      [&](const std::string& v) { return CheckUrl(v, rule); });
}
BENCHMARK(BM_UrlOpen)->Name("url/open");

void BM_UrlPrivate(benchmark::State& state) {
  const UrlRule rule{{"http", "https"}, {}, {}};
  Run(state, "http://0x7f.1/admin", "url_private_address",
      [&](const std::string& v) { return CheckUrl(v, rule); });
}
BENCHMARK(BM_UrlPrivate)->Name("url/private");

std::string Prose(size_t bytes) {
  std::string s;
  while (s.size() < bytes) {
    absl::StrAppend(&s,
                    "Revenue grew in every region; the team shipped the "
                    "billing migration and closed 42 tickets. ");
  }
  s.resize(bytes);
  return s;
}

const std::string kJwt = absl::StrCat(
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".", "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
    ".", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U");

void BM_Secret(benchmark::State& state, std::string text, std::string code) {
  Run(state, text, code, [](const std::string& v) { return FindSecret(v); });
}
BENCHMARK_CAPTURE(BM_Secret, 64B, Prose(64), "")->Name("secret/64B");
BENCHMARK_CAPTURE(BM_Secret, 1KB, Prose(1024), "")->Name("secret/1KB");
BENCHMARK_CAPTURE(BM_Secret, 1KB_jwt,
                  Prose(1024 - kJwt.size() - 1) + " " + kJwt, "argument_secret")
    ->Name("secret/1KB_jwt");

std::string Repeat(absl::string_view unit, size_t bytes) {
  std::string s;
  while (s.size() < bytes) absl::StrAppend(&s, unit);
  s.resize(bytes);
  return s;
}
BENCHMARK_CAPTURE(BM_Secret, adversarial, Repeat("eyJ", 1024), "")
    ->Name("secret/adversarial_1KB");

std::string WithZeroWidthSpace(std::string text) {
  text.insert(text.size() / 2, "\xE2\x80\x8B");
  return text;
}
BENCHMARK_CAPTURE(BM_Secret, 1KB_zwsp, WithZeroWidthSpace(Prose(1024)), "")
    ->Name("secret/1KB_zwsp");
// "東京の天気 " (Tokyo's weather), kana and kanji.
BENCHMARK_CAPTURE(BM_Secret, 1KB_cjk,
                  Repeat("\xE6\x9D\xB1\xE4\xBA\xAC\xE3\x81\xAE\xE5\xA4"
                         "\xA9\xE6\xB0\x97 ",
                         1024),
                  "")
    ->Name("secret/1KB_cjk");

std::string RandomText(size_t bytes, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(bytes, ' ');
  for (char& c : s) c = static_cast<char>(' ' + rng() % 95);
  return s;
}

void BM_Leak(benchmark::State& state) {
  const LeakDetector detector(
      {RandomText(4096, 1), "R-7731-QX-override-code", RandomText(64, 2)});
  Run(state, Prose(state.range(0)), "",
      [&](const std::string& v) { return detector.Check(v); });
}
BENCHMARK(BM_Leak)->Name("leak")->Arg(64)->Arg(1024);

void BM_LeakBuild(benchmark::State& state) {
  const std::vector<std::string> texts = {RandomText(state.range(0), 3)};
  size_t memory = 0;
  for (auto _ : state) {
    LeakDetector detector(texts);
    memory = detector.MemoryBytes();
    benchmark::DoNotOptimize(memory);
  }
  state.counters["memory_bytes"] = static_cast<double>(memory);
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_LeakBuild)->Name("leak_build")->Arg(4096)->Arg(65536);

}  // namespace
}  // namespace toolgate::policy
