// State flood (issue 25, items 10 and 13): floods a running sidecar, with
// its default limits, through every per-run and per-tenant resource of
// this round and checks that each cap holds and memory stays bounded.
//
//   state_flood --addr=HOST:PORT --server_pid=PID [--runs=1000]
//               [--approvals=12000] [--arg_bytes=40000] [--waits=300]
//               [--max_peak_rss_mb=384]
//
// Phases, one JSON object each in the report:
//   texts_same      --runs runs with one 32 KiB protected text: all open,
//                   and the server grows by about a run's bookkeeping each
//   texts_distinct  --runs runs with distinct 32 KiB texts: those past
//                   --max_protected_text_bytes are RESOURCE_EXHAUSTED;
//                   once closed, a new distinct text fits again
//   approvals_one_tenant  one tenant asks 1,200 approvals: at most
//                   --max_pending_approvals_per_tenant (1,000) pending, and
//                   another tenant still gets one
//   approvals_all   20 tenants ask --approvals approvals carrying
//                   --arg_bytes each: the store holds at most --max_approvals
//                   and --max_approval_bytes; every refusal is
//                   RESOURCE_EXHAUSTED
//   waits           (run before the approval phases, which fill the
//                   store) one run waits --waits times at once (at most
//                   --max_waits_per_run wait), then --waits runs wait once
//                   each (at most 256 server-wide)
// Exits 0 only when every check held and the server's peak RSS (VmHWM)
// stayed within --max_peak_rss_mb (the sidecar manifest's memory limit).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/config.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace flood {
// Sanitizers' shadow memory, redzones and quarantine multiply resident
// memory: memory bounds are checked in the plain build.
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER)
constexpr bool kMemoryBoundsChecked = false;
#else
constexpr bool kMemoryBoundsChecked = true;
#endif

namespace {

using Stub = v1::ToolGate::Stub;

struct Options {
  std::string addr;
  int server_pid = 0;
  int64_t runs = 1000;
  int64_t approvals = 12000;
  int64_t arg_bytes = 40000;
  int64_t waits = 300;
  int64_t max_peak_rss_mb = 384;
};

bool ParseFlags(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    if (!absl::StartsWith(arg, "--") || eq == absl::string_view::npos) {
      std::cerr << "state_flood: expected --flag=value, got " << arg << "\n";
      return false;
    }
    const absl::string_view name = arg.substr(2, eq - 2);
    const absl::string_view value = arg.substr(eq + 1);
    int64_t* number = name == "runs"              ? &o->runs
                      : name == "approvals"       ? &o->approvals
                      : name == "arg_bytes"       ? &o->arg_bytes
                      : name == "waits"           ? &o->waits
                      : name == "max_peak_rss_mb" ? &o->max_peak_rss_mb
                                                  : nullptr;
    bool ok = true;
    if (name == "addr") {
      o->addr = std::string(value);
    } else if (name == "server_pid") {
      ok = absl::SimpleAtoi(value, &o->server_pid);
    } else if (number != nullptr) {
      ok = absl::SimpleAtoi(value, number) && *number >= 0;
    } else {
      ok = false;
    }
    if (!ok) {
      std::cerr << "state_flood: bad flag " << arg << "\n";
      return false;
    }
  }
  return !o->addr.empty() && o->server_pid > 0;
}

// A /proc/<pid>/status field in kB; -1 when unreadable (never 0: a flood
// that cannot see the memory must not pass the memory check).
int64_t StatusKb(int pid, absl::string_view field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, absl::StrCat(field, ":"))) continue;
    std::string digits;
    for (char c : line) {
      if (c >= '0' && c <= '9') digits += c;
    }
    int64_t kb = -1;
    return absl::SimpleAtoi(digits, &kb) ? kb : -1;
  }
  return -1;
}

std::string Text(size_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(bytes, ' ');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

constexpr char kManifest[] = R"({"toolgate":"v1","tools":[
  {"name":"wire","side_effect":"destructive","input_schema":{"type":"object",
   "properties":{"n":{"type":"integer"},"memo":{"type":"string"}},
   "required":["n"]},"policy":{"requires_approval":true}}]})";

std::string Snapshot(Stub& stub) {
  grpc::ClientContext ctx;
  v1::CreateSnapshotRequest req;
  req.set_manifest_json(kManifest);
  v1::CreateSnapshotResponse resp;
  return stub.CreateSnapshot(&ctx, req, &resp).ok() ? resp.snapshot_id() : "";
}

grpc::Status Open(Stub& stub, const std::string& snapshot,
                  const std::string& tenant, const std::string& text,
                  v1::OpenRunResponse* run) {
  grpc::ClientContext ctx;
  v1::OpenRunRequest req;
  req.set_snapshot_id(snapshot);
  (*req.mutable_context())["tenant"] = tenant;
  if (!text.empty()) req.add_protected_texts(text);
  return stub.OpenRun(&ctx, req, run);
}

void Close(Stub& stub, const v1::OpenRunResponse& run) {
  grpc::ClientContext ctx;
  v1::CloseRunRequest req;
  req.set_run_id(run.run_id());
  req.set_run_token(run.run_token());
  v1::CloseRunResponse resp;
  // A close that fails leaves the run open, so the "fits_again_after_close"
  // check that follows fails: nothing is lost by not checking it here.
  stub.CloseRun(&ctx, req, &resp).IgnoreError();
}

// One call of `wire` needing approval; the approval id in `id`.
grpc::Status Ask(Stub& stub, const v1::OpenRunResponse& run, int64_t n,
                 const std::string& memo, std::string* id) {
  grpc::ClientContext ctx;
  v1::ValidateToolCallRequest req;
  req.set_run_id(run.run_id());
  req.set_run_token(run.run_token());
  req.set_native_json(nlohmann::json{{"name", "wire"},
                                     {"arguments", {{"n", n}, {"memo", memo}}}}
                          .dump());
  v1::ValidateToolCallResponse resp;
  grpc::Status s = stub.ValidateToolCall(&ctx, req, &resp);
  if (s.ok() && resp.decision() != v1::DECISION_NEEDS_APPROVAL) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "not NEEDS_APPROVAL");
  }
  if (id != nullptr) *id = resp.approval_id();
  return s;
}

grpc::Status Await(Stub& stub, const v1::OpenRunResponse& run,
                   const std::string& id, int64_t timeout_ms) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() +
                   std::chrono::milliseconds(timeout_ms + 30000));
  v1::AwaitApprovalRequest req;
  req.set_run_id(run.run_id());
  req.set_run_token(run.run_token());
  req.set_approval_id(id);
  req.set_timeout_ms(timeout_ms);
  v1::AwaitApprovalResponse resp;
  return stub.AwaitApproval(&ctx, req, &resp);
}

struct Flood {
  const Options& o;
  Stub& stub;
  std::string snapshot;
  nlohmann::json report;
  bool ok = true;

  void Check(nlohmann::json& phase, const char* what, bool held) {
    phase["checks"][what] = held;
    ok = ok && held;
  }
  int64_t Rss() const { return StatusKb(o.server_pid, "VmRSS"); }

  // Opens --runs runs, with `text(i)` each; the refusals are counted.
  void Texts(const char* name, const std::function<std::string(int)>& text) {
    nlohmann::json phase;
    const int64_t before = Rss();
    std::vector<v1::OpenRunResponse> runs;
    int64_t refused = 0, other = 0;
    for (int64_t i = 0; i < o.runs; ++i) {
      v1::OpenRunResponse run;
      grpc::Status s = Open(stub, snapshot, name, text(i), &run);
      if (s.ok()) {
        runs.push_back(run);
      } else if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
        ++refused;
      } else {
        ++other;
      }
    }
    const int64_t grown = Rss() - before;
    phase["opened"] = runs.size();
    phase["refused"] = refused;
    phase["rss_grown_kb"] = grown;
    Check(phase, "only_resource_exhausted", other == 0);
    // Past the budget, some must have been refused (557 KB a distinct set).
    const bool past_budget =
        std::string(name) == "texts_distinct" && o.runs * 557000 > (64 << 20);
    Check(phase, "refused_past_the_budget", !past_budget || refused > 0);
    // The default budget is 64 MiB: what a flood can add, plus slack for
    // the runs' own bookkeeping and allocator caches.
    Check(phase, "rss_grown_below_96mb",
          !kMemoryBoundsChecked || grown < 96 * 1024);
    for (const auto& run : runs) Close(stub, run);
    v1::OpenRunResponse after;
    Check(phase, "fits_again_after_close",
          Open(stub, snapshot, name, text(o.runs + 7), &after).ok());
    Close(stub, after);
    phase["bytes_per_run"] = runs.empty() ? 0 : grown * 1024 / runs.size();
    report[name] = phase;
  }

  // `tenants` tenants ask `total` approvals with `memo` each, round robin,
  // 64 per run (the per-run cap).
  nlohmann::json Approvals(int tenants, int64_t total, const std::string& memo,
                           int64_t* accepted) {
    nlohmann::json phase;
    std::vector<std::vector<v1::OpenRunResponse>> runs(tenants);
    std::vector<int64_t> asked(tenants, 0);
    int64_t refused = 0, other = 0;
    const int64_t before = Rss();
    for (int64_t i = 0; i < total; ++i) {
      const int t = i % tenants;
      if (asked[t]++ % 64 == 0) {
        v1::OpenRunResponse run;
        if (!Open(stub, snapshot, absl::StrCat("tenant", t, "_", memo.size()),
                  "", &run)
                 .ok()) {
          ++other;
          continue;
        }
        runs[t].push_back(run);
      }
      grpc::Status s = Ask(stub, runs[t].back(), i, memo, nullptr);
      if (s.ok()) ++*accepted;
      if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++refused;
      if (!s.ok() && s.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) {
        ++other;
      }
    }
    phase["refused"] = refused;
    phase["rss_grown_kb"] = Rss() - before;
    phase["other_errors"] = other;
    return phase;
  }

  void ApprovalPhases() {
    int64_t greedy = 0, all = 0;
    // The default tenant cap (1,000) and 200 more.
    nlohmann::json one = Approvals(1, 1200, "", &greedy);
    one["accepted"] = greedy;
    Check(one, "at_most_the_tenant_cap", greedy <= 1000);
    Check(one, "cap_reached", one["refused"].get<int64_t>() > 0);
    v1::OpenRunResponse polite;
    Check(one, "another_tenant_still_asks",
          Open(stub, snapshot, "polite", "", &polite).ok() &&
              Ask(stub, polite, -1, "", nullptr).ok());
    Check(one, "only_resource_exhausted", one["other_errors"] == 0);
    report["approvals_one_tenant"] = one;
    nlohmann::json many =
        Approvals(20, o.approvals, Text(o.arg_bytes, 3), &all);
    many["accepted"] = all;
    Check(many, "at_most_the_store_cap", greedy + 1 + all <= 10000);
    Check(many, "at_most_the_byte_cap", all * o.arg_bytes <= int64_t{64} << 20);
    Check(many, "only_resource_exhausted", many["other_errors"] == 0);
    report["approvals_all"] = many;
  }

  // `runs` run(s) wait `per_run` times each, all at once, for 2 s; returns
  // how many waited (the rest must be RESOURCE_EXHAUSTED).
  int64_t Waits(int64_t runs, int64_t per_run, int64_t* other) {
    std::vector<std::pair<v1::OpenRunResponse, std::string>> targets;
    for (int64_t r = 0; r < runs; ++r) {
      v1::OpenRunResponse run;
      std::string id;
      if (!Open(stub, snapshot, "waits", "", &run).ok() ||
          !Ask(stub, run, r, "", &id).ok()) {
        ++*other;
        continue;
      }
      targets.emplace_back(run, id);
    }
    std::atomic<int64_t> waited{0}, bad{0};
    std::vector<std::thread> threads;
    for (const auto& [run, id] : targets) {
      for (int64_t k = 0; k < per_run; ++k) {
        threads.emplace_back([&, run = run, id = id] {
          grpc::Status s = Await(stub, run, id, 2000);
          if (s.ok()) ++waited;
          if (!s.ok() && s.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED)
            ++bad;
        });
      }
    }
    for (auto& t : threads) t.join();
    *other += bad;
    return waited;
  }

  void WaitPhase() {
    nlohmann::json phase;
    int64_t other = 0;
    const int64_t one_run = Waits(1, o.waits, &other);
    const int64_t many_runs = Waits(o.waits, 1, &other);
    phase["one_run_waited"] = one_run;
    phase["many_runs_waited"] = many_runs;
    Check(phase, "one_run_at_most_its_cap", one_run <= 4);
    Check(phase, "server_at_most_256", many_runs <= 256);
    Check(phase, "only_resource_exhausted", other == 0);
    report["waits"] = phase;
  }
};

int Main(const Options& o) {
  auto stub = v1::ToolGate::NewStub(
      grpc::CreateChannel(o.addr, grpc::InsecureChannelCredentials()));
  Flood f{o, *stub};
  f.snapshot = Snapshot(*stub);
  if (f.snapshot.empty()) {
    std::cerr << "state_flood: cannot create the snapshot\n";
    return 1;
  }
  f.report["rss_start_kb"] = f.Rss();
  const std::string prompt = Text(32 * 1024, 1);
  f.Texts("texts_same", [&](int) { return prompt; });
  f.Texts("texts_distinct", [](int i) {
    return Text(32 * 1024, 1000 + static_cast<uint32_t>(i));
  });
  // Waits first: they need approvals, which the approval flood uses up.
  f.WaitPhase();
  f.ApprovalPhases();
  const int64_t peak = StatusKb(o.server_pid, "VmHWM");
  f.report["peak_rss_kb"] = peak;
  f.report["max_peak_rss_kb"] = o.max_peak_rss_mb * 1024;
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER)
  const bool memory_ok = peak > 0;  // Shadow memory says nothing here.
#else
  const bool memory_ok = peak > 0 && peak <= o.max_peak_rss_mb * 1024;
#endif
  f.report["ok"] = f.ok && memory_ok;
  std::cout << f.report.dump(2) << "\n";
  return f.ok && memory_ok ? 0 : 1;
}

}  // namespace
}  // namespace flood
}  // namespace toolgate

int main(int argc, char** argv) {
  toolgate::flood::Options options;
  if (!toolgate::flood::ParseFlags(argc, argv, &options)) {
    std::cerr << "usage: state_flood --addr=HOST:PORT --server_pid=PID "
                 "[--runs=N] [--approvals=N] [--arg_bytes=N] [--waits=N] "
                 "[--max_peak_rss_mb=N]\n";
    return 2;
  }
  return toolgate::flood::Main(options);
}
