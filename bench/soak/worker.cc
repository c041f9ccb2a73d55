#include "bench/soak/worker.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "bench/load/workload.h"
#include "bench/soak/proc_status.h"
#include "grpcpp/grpcpp.h"

namespace toolgate {
namespace soak {
namespace {

using Runs = std::map<std::string, v1::OpenRunResponse>;  // snapshot name ->

// gRPC deadlines are wall-clock (system_clock) time points.
void SetDeadline(const Shared& s, grpc::ClientContext* ctx) {
  ctx->set_deadline(std::chrono::system_clock::now() + s.rpc_timeout);
}

void RecordStatus(const std::string& rpc, const grpc::Status& status,
                  const std::string& step, WorkerStats* stats) {
  stats->Error(
      absl::StrCat(rpc, " ", load::StatusCodeName(status.error_code())),
      absl::StrCat(step, ": ", status.error_message()));
}

// One checked call: `rpc` sends it, `check` judges the answer.
template <typename Response, typename Rpc, typename Check>
void Checked(Shared& s, const char* name, const Step& step, Rpc rpc,
             Check check, WorkerStats* stats) {
  grpc::ClientContext ctx;
  SetDeadline(s, &ctx);
  Response resp;
  const grpc::Status status = rpc(&ctx, &resp);
  ++stats->calls;
  ++stats->calls_by_kind[step.kind];
  if (!status.ok()) return RecordStatus(name, status, step.name, stats);
  if (std::string why = check(resp); !why.empty()) {
    stats->Error(absl::StrCat("mismatch ", step.name), why);
  }
}

void Send(Shared& s, const Step& step, WorkerStats* stats) {
  v1::ToolGate::Stub* stub = s.stub;
  switch (step.type) {
    case StepType::kCall: {
      const std::string& want = s.snapshot_ids.at(step.snapshot);
      return Checked<v1::ValidateToolCallResponse>(
          s, "ValidateToolCall", step,
          [&](auto* ctx, auto* r) {
            return stub->ValidateToolCall(ctx, step.call, r);
          },
          [&](const auto& r) { return CheckCall(step, r, want); }, stats);
    }
    case StepType::kVerdict:
      return Checked<v1::ExtractVerdictResponse>(
          s, "ExtractVerdict", step,
          [&](auto* ctx, auto* r) {
            return stub->ExtractVerdict(ctx, step.verdict, r);
          },
          [&](const auto& r) { return CheckVerdict(step, r); }, stats);
    case StepType::kOutput:
      return Checked<v1::ValidateToolOutputResponse>(
          s, "ValidateToolOutput", step,
          [&](auto* ctx, auto* r) {
            return stub->ValidateToolOutput(ctx, step.output, r);
          },
          [&](const auto& r) { return CheckOutput(step, r); }, stats);
  }
}

// One run per snapshot. Breaker and kill switch at their maximum (1000):
// the cycle's rejects and invalid outputs are interleaved with successes,
// so neither ever trips and every answer stays predictable.
Runs OpenRuns(Shared& s, WorkerStats* stats) {
  Runs runs;
  for (const auto& [name, id] : s.snapshot_ids) {
    grpc::ClientContext ctx;
    SetDeadline(s, &ctx);
    v1::OpenRunRequest req;
    req.set_snapshot_id(id);
    req.set_model("soak");
    req.set_max_consecutive_rejects(1000);
    req.set_kill_switch_threshold(1000);
    req.set_kill_switch_window(1000);
    v1::OpenRunResponse resp;
    grpc::Status status = s.stub->OpenRun(&ctx, req, &resp);
    if (!status.ok()) {
      RecordStatus("OpenRun", status, name, stats);
    } else if (resp.run_id().empty() || resp.run_token().empty() ||
               resp.snapshot_id() != id) {
      stats->Error("mismatch OpenRun", "no run id/token or another snapshot");
    } else {
      ++stats->runs_opened;
      runs[name] = std::move(resp);
    }
  }
  return runs;
}

void CloseRuns(Shared& s, const Runs& runs, WorkerStats* stats) {
  for (const auto& [name, run] : runs) {
    grpc::ClientContext ctx;
    SetDeadline(s, &ctx);
    v1::CloseRunRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    v1::CloseRunResponse resp;
    grpc::Status status = s.stub->CloseRun(&ctx, req, &resp);
    if (status.ok()) {
      ++stats->runs_closed;
    } else {
      RecordStatus("CloseRun", status, name, stats);
    }
  }
}

// A closed run must be gone: a call naming it is NOT_FOUND, never an
// answer (and never a fall back to stateless mode).
void ProbeClosed(Shared& s, const Runs& runs, const std::vector<Step>& cycle,
                 WorkerStats* stats) {
  for (const Step& step : cycle) {
    auto run = runs.find(step.snapshot);
    if (step.type != StepType::kCall || run == runs.end()) continue;
    v1::ValidateToolCallRequest req = step.call;
    req.clear_snapshot_id();
    req.set_run_id(run->second.run_id());
    req.set_run_token(run->second.run_token());
    grpc::ClientContext ctx;
    SetDeadline(s, &ctx);
    v1::ValidateToolCallResponse resp;
    grpc::Status status = s.stub->ValidateToolCall(&ctx, req, &resp);
    ++stats->closed_run_probes;
    if (status.error_code() != grpc::StatusCode::NOT_FOUND) {
      RecordStatus("closed run probe", status,
                   absl::StrCat(step.name, " decision ",
                                v1::Decision_Name(resp.decision())),
                   stats);
    }
    return;
  }
}

Target TargetFor(const Shared& s, const Runs& runs, const Step& step) {
  Target t;
  if (step.snapshot.empty()) return t;
  t.snapshot_id = s.snapshot_ids.at(step.snapshot);
  auto run = runs.find(step.snapshot);
  if (run != runs.end()) {
    t.run_id = run->second.run_id();
    t.run_token = run->second.run_token();
  }
  return t;
}

// One round: K calls, in runs when `in_run`. False once the budget is
// spent.
bool Round(Shared& s, bool in_run, std::vector<Step>& cycle, size_t* pos,
           WorkerStats* stats) {
  const Runs runs = in_run ? OpenRuns(s, stats) : Runs();
  bool more = true;
  for (int k = 0; k < s.options->calls_per_run; ++k) {
    if (!s.TakeTicket()) {
      more = false;
      break;
    }
    Step& step = cycle[(*pos)++ % cycle.size()];
    Address(TargetFor(s, runs, step), &step);
    Send(s, step, stats);
    s.CallDone();
  }
  CloseRuns(s, runs, stats);
  if (!runs.empty()) ProbeClosed(s, runs, cycle, stats);
  return more;
}

}  // namespace

Shared::Shared(const SoakOptions& o, v1::ToolGate::Stub* stub)
    : options(&o),
      stub(stub),
      rpc_timeout(o.rpc_timeout_ms),
      warmup_at_(
          std::max<int64_t>(1, std::llround(o.calls * o.warmup_fraction))),
      every_(std::max<int64_t>(1, o.calls / 10)) {}

bool Shared::TakeTicket() {
  if (Clock::now() >= stop_at) {
    time_up_ = true;
    return false;
  }
  if (errors_.load() >= options->max_errors) {
    too_many_errors_ = true;
    return false;
  }
  return issued_.fetch_add(1) < options->calls;
}

void Shared::CallDone() {
  const int64_t n = done_.fetch_add(1) + 1;
  if (n == warmup_at_ || n % every_ == 0) Sample(n);
}

void Shared::Sample(int64_t calls_done) {
  auto sample = SampleProcess(options->server_pid);
  absl::MutexLock lock(&mu_);
  if (!sample.ok()) {
    ++sample_errors_[absl::StrCat(
        "rss sample ", absl::StatusCodeToString(sample.status().code()))];
    CountError();
    std::cerr << "soak: " << sample.status().message() << "\n";
    return;
  }
  const RssPoint point{calls_done, *sample};
  if (calls_done == warmup_at_) after_warmup_ = point;
  if (calls_done % every_ == 0) {
    samples_.push_back(point);
    std::cerr << "soak: " << calls_done << "/" << options->calls
              << " calls, server rss " << sample->rss_kb << " kB, threads "
              << sample->threads << ", fds " << sample->open_fds << "\n";
  }
}

void Shared::TakeSamples(SoakReport* report) {
  auto end = SampleProcess(options->server_pid);
  absl::MutexLock lock(&mu_);
  if (done_ < options->calls) {
    report->stopped_by = too_many_errors_ ? "max_errors"
                         : time_up_       ? "time_limit"
                                          : "unknown";
  }
  if (end.ok()) {
    report->end = RssPoint{done_.load(), *end};
  } else {
    ++sample_errors_["rss sample at end"];
    std::cerr << "soak: " << end.status().message() << "\n";
  }
  report->after_warmup = after_warmup_;
  std::sort(samples_.begin(), samples_.end(),
            [](const RssPoint& a, const RssPoint& b) {
              return a.calls_done < b.calls_done;
            });
  report->samples = samples_;
  for (const auto& [kind, n] : sample_errors_) {
    report->errors += n;
    report->errors_by_kind[kind] += n;
  }
}

void WorkerStats::Error(const std::string& kind, const std::string& detail) {
  ++errors[kind];
  shared->CountError();
  if (first_errors.size() < 3) first_errors.push_back(kind + ": " + detail);
}

void Work(Shared& shared, std::vector<Step> cycle, int index,
          WorkerStats* stats) {
  // Workers start at different steps and alternate run and stateless
  // rounds out of phase, so both modes and every step run concurrently.
  size_t pos = index * cycle.size() / shared.options->workers;
  for (int64_t round = index; Round(shared, round % 2 == 0, cycle, &pos, stats);
       ++round) {
  }
}

void MergeInto(const WorkerStats& w, SoakReport* report) {
  report->calls += w.calls;
  for (const auto& [kind, n] : w.calls_by_kind)
    report->calls_by_kind[kind] += n;
  report->runs_opened += w.runs_opened;
  report->runs_closed += w.runs_closed;
  report->closed_run_probes += w.closed_run_probes;
  for (const auto& [kind, n] : w.errors) {
    report->errors += n;
    report->errors_by_kind[kind] += n;
  }
  for (const std::string& e : w.first_errors) {
    std::cerr << "soak: error: " << e << "\n";
  }
}

}  // namespace soak
}  // namespace toolgate
