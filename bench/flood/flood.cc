// Flood: N distinct manifests through CreateSnapshot against a running
// sidecar with its default limits (issue 11, "Bounded state"), then N open
// runs, watching the server's memory.
//
//   flood --addr=HOST:PORT --server_pid=PID [--manifests=100000]
//         [--runs=10000] [--threads=2] [--max_peak_rss_mb=256]
//
// Before the flood it opens a run on a snapshot of its own; after it, that
// run must still decide on its pinned snapshot (ALLOW a string, REJECT a
// number) and one more CreateSnapshot must succeed. Prints one JSON object
// and exits 0 only when every CreateSnapshot succeeded, both checks held
// and the server's peak RSS (VmHWM) stayed within the limit.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/config.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace flood {
namespace {

struct Options {
  std::string addr;
  int server_pid = 0;
  int64_t manifests = 100000;
  int64_t runs = 10000;
  int threads = 2;
  int64_t max_peak_rss_mb = 256;
};

bool ParseFlags(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    if (!absl::StartsWith(arg, "--") || eq == absl::string_view::npos) {
      std::cerr << "flood: expected --flag=value, got " << arg << "\n";
      return false;
    }
    const absl::string_view name = arg.substr(2, eq - 2);
    const absl::string_view value = arg.substr(eq + 1);
    bool ok = true;
    if (name == "addr") {
      o->addr = std::string(value);
    } else if (name == "server_pid") {
      ok = absl::SimpleAtoi(value, &o->server_pid);
    } else if (name == "manifests") {
      ok = absl::SimpleAtoi(value, &o->manifests);
    } else if (name == "runs") {
      ok = absl::SimpleAtoi(value, &o->runs);
    } else if (name == "threads") {
      ok = absl::SimpleAtoi(value, &o->threads) && o->threads > 0;
    } else if (name == "max_peak_rss_mb") {
      ok = absl::SimpleAtoi(value, &o->max_peak_rss_mb);
    } else {
      ok = false;
    }
    if (!ok) {
      std::cerr << "flood: bad flag " << arg << "\n";
      return false;
    }
  }
  if (o->addr.empty() || o->server_pid <= 0) {
    std::cerr << "flood: --addr and --server_pid are required\n";
    return false;
  }
  return true;
}

// A /proc/<pid>/status field in kB; -1 when unreadable (never "0 kB": a
// flood that cannot see the memory must not pass the memory check).
int64_t StatusKb(int pid, absl::string_view field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, field) || line.size() <= field.size() ||
        line[field.size()] != ':') {
      continue;
    }
    absl::string_view rest = absl::string_view(line).substr(field.size() + 1);
    rest = absl::StripAsciiWhitespace(rest);
    rest = rest.substr(0, rest.find(' '));
    int64_t kb = -1;
    return absl::SimpleAtoi(rest, &kb) ? kb : -1;
  }
  return -1;
}

// The tool of manifest `i`; -1 is the pinned run's, -2 the one after.
std::string ToolName(int64_t i) {
  if (i == -1) return "pinned";
  if (i == -2) return "after";
  return absl::StrCat("tool_", i);
}

// Manifest `i`: a distinct tool name and property, so every one is a new
// snapshot (and a new compiled schema).
std::string Manifest(int64_t i, const std::string& type = "string") {
  return absl::StrCat(
      R"([{"type":"function","function":{"name":")", ToolName(i),
      R"(","description":"flood manifest )", i,
      R"(","parameters":{"type":"object","properties":{"x":{"type":")", type,
      R"("},"p_)", i, R"(":{"type":"integer","minimum":)", i,
      R"(}},"required":["x"]}}}])");
}

grpc::Status Create(v1::ToolGate::Stub& stub, const std::string& manifest,
                    std::string* id) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::CreateSnapshotRequest req;
  req.set_manifest_json(manifest);
  v1::CreateSnapshotResponse resp;
  grpc::Status s = stub.CreateSnapshot(&ctx, req, &resp);
  if (id != nullptr) *id = resp.snapshot_id();
  return s;
}

grpc::Status Open(v1::ToolGate::Stub& stub, const std::string& id,
                  v1::OpenRunResponse* run, const std::string& tenant = "") {
  grpc::ClientContext ctx;
  v1::OpenRunRequest req;
  req.set_snapshot_id(id);
  if (!tenant.empty()) (*req.mutable_context())["tenant"] = tenant;
  return stub.OpenRun(&ctx, req, run);
}

v1::Decision Decide(v1::ToolGate::Stub& stub, const v1::OpenRunResponse& run,
                    const std::string& tool, const std::string& x) {
  grpc::ClientContext ctx;
  v1::ValidateToolCallRequest req;
  req.set_run_id(run.run_id());
  req.set_run_token(run.run_token());
  const nlohmann::json call = {
      {"id", "1"},
      {"type", "function"},
      {"function", {{"name", tool}, {"arguments", "{\"x\":" + x + "}"}}}};
  req.set_native_json(
      nlohmann::json{{"role", "assistant"}, {"tool_calls", {call}}}.dump());
  v1::ValidateToolCallResponse resp;
  return stub.ValidateToolCall(&ctx, req, &resp).ok()
             ? resp.decision()
             : v1::DECISION_UNSPECIFIED;
}

// Creates manifests [0, n) on `threads` threads; returns the errors and
// keeps the first error's text.
int64_t Flood(const std::shared_ptr<grpc::Channel>& channel, int64_t n,
              int threads, std::string* first_error) {
  std::atomic<int64_t> next{0}, errors{0};
  std::atomic<bool> noted{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      auto stub = v1::ToolGate::NewStub(channel);
      for (int64_t i = next++; i < n; i = next++) {
        grpc::Status s = Create(*stub, Manifest(i), nullptr);
        if (s.ok()) continue;
        ++errors;
        if (!noted.exchange(true)) {
          *first_error = absl::StrCat("manifest ", i, ": ", s.error_code(), " ",
                                      s.error_message());
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  return errors;
}

int Main(const Options& o) {
  auto channel =
      grpc::CreateChannel(o.addr, grpc::InsecureChannelCredentials());
  auto stub = v1::ToolGate::NewStub(channel);
  nlohmann::json report;
  std::string pinned_id;
  v1::OpenRunResponse pinned;
  if (!Create(*stub, Manifest(-1), &pinned_id).ok() ||
      !Open(*stub, pinned_id, &pinned).ok()) {
    std::cerr << "flood: cannot create the pinned snapshot and run\n";
    return 1;
  }
  report["rss_before_flood_kb"] = StatusKb(o.server_pid, "VmRSS");
  const auto start = std::chrono::steady_clock::now();
  std::string first_error;
  const int64_t errors = Flood(channel, o.manifests, o.threads, &first_error);
  const std::chrono::duration<double> took =
      std::chrono::steady_clock::now() - start;
  report["manifests"] = o.manifests;
  report["errors"] = errors;
  if (!first_error.empty()) report["first_error"] = first_error;
  report["flood_seconds"] = took.count();
  report["rss_after_flood_kb"] = StatusKb(o.server_pid, "VmRSS");
  const bool decides =
      Decide(*stub, pinned, ToolName(-1), "\"v\"") == v1::DECISION_ALLOW &&
      Decide(*stub, pinned, ToolName(-1), "7") == v1::DECISION_REJECT;
  report["pinned_run_decides"] = decides;
  const bool create_after =
      Create(*stub, Manifest(-2, "integer"), nullptr).ok();
  report["create_after_flood"] = create_after;
  // Open runs: what each costs. Their own tenant, so that the default
  // --max_runs_per_tenant (10,000) admits exactly --runs=10000 beside the
  // pinned run.
  const int64_t before_runs = StatusKb(o.server_pid, "VmRSS");
  int64_t run_errors = 0;
  for (int64_t i = 0; i < o.runs; ++i) {
    v1::OpenRunResponse run;
    if (!Open(*stub, pinned_id, &run, "flood").ok()) ++run_errors;
  }
  const int64_t after_runs = StatusKb(o.server_pid, "VmRSS");
  report["runs"] = o.runs;
  report["run_errors"] = run_errors;
  report["rss_before_runs_kb"] = before_runs;
  report["rss_after_runs_kb"] = after_runs;
  if (o.runs > 0) {
    report["bytes_per_run"] = (after_runs - before_runs) * 1024 / o.runs;
  }
  const int64_t peak = StatusKb(o.server_pid, "VmHWM");
  report["peak_rss_kb"] = peak;
  report["max_peak_rss_kb"] = o.max_peak_rss_mb * 1024;
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER)
  // Sanitizer shadow memory and quarantine say nothing about the server's
  // own footprint: the bound is checked in plain builds only.
  const bool memory_ok = peak > 0;
  report["rss_bound_checked"] = false;
#else
  const bool memory_ok = peak > 0 && peak <= o.max_peak_rss_mb * 1024;
#endif
  const bool ok =
      errors == 0 && run_errors == 0 && decides && create_after && memory_ok;
  report["ok"] = ok;
  std::cout << report.dump(2) << "\n";
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace flood
}  // namespace toolgate

int main(int argc, char** argv) {
  toolgate::flood::Options options;
  if (!toolgate::flood::ParseFlags(argc, argv, &options)) return 2;
  return toolgate::flood::Main(options);
}
