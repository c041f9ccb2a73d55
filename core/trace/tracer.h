// Spans of toolgate's decisions, exported in batches off the request path.
//
// One RequestTrace per RPC: a server span (a child of the caller's
// `traceparent` when one came) and a child span per pipeline stage that
// ran. A request records its spans without locks (one thread at a time)
// and hands them to the Tracer once, when the server span ends. The
// Tracer queues them (bounded) and exports them on its own thread, so
// exporting never blocks or slows a decision: a full queue or a failed
// export drops the spans and counts them (dropped()).
//
// Sampling is parent-based: a caller's sampled flag is followed; a new
// trace is sampled with probability sample_ratio (OpenTelemetry's
// TraceIdRatioBased over the trace id). An unsampled RequestTrace records
// nothing; with tracing off there is no Tracer and no RequestTrace at all.
//
// Attributes never carry argument values, tool output, tokens or
// protected texts: callers set codes, names and ids only.
//
// Thread-safety: Tracer is thread-safe. A RequestTrace belongs to one
// request; it may move between threads but is used by one at a time.
#ifndef TOOLGATE_CORE_TRACE_TRACER_H_
#define TOOLGATE_CORE_TRACE_TRACER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "core/trace/trace_context.h"

namespace toolgate::trace {

// A string the program never frees (a literal, or a name of a generated
// table such as a service's or an enum's): a span keeps a view of it, so
// the constant attributes every call sets cost no copy and no free. A
// literal converts; other static storage is vouched for with Of().
class StaticText {
 public:
  template <size_t N>
  constexpr StaticText(const char (&literal)[N])  // NOLINT: implicit.
      : view_(literal, N - 1) {}
  static constexpr StaticText Of(absl::string_view static_storage) {
    return StaticText(static_storage, 0);
  }
  constexpr absl::string_view view() const { return view_; }

 private:
  constexpr StaticText(absl::string_view view, int) : view_(view) {}
  absl::string_view view_;
};

// A string literal converts to bool before std::string here (C++17's
// variant): pass std::string(...) or StaticText(...), never a bare literal.
using AttributeValue = std::variant<std::string, int64_t, bool,
                                    std::vector<std::string>, StaticText>;

// A string attribute (or list item, or status message) longer than this
// is cut, and a list keeps its first kMaxAttributeItems: whatever a
// caller sends, a span stays small, so the bounded queue bounds memory.
inline constexpr size_t kMaxAttributeBytes = 1024;
inline constexpr size_t kMaxAttributeItems = 64;

// An attribute key: a string literal, so a span keeps a view of it and
// never copies or frees it (a key is a name from the code, never data; a
// std::string does not convert, so a key cannot dangle).
class AttributeKey {
 public:
  template <size_t N>
  constexpr AttributeKey(const char (&literal)[N])  // NOLINT: implicit.
      : view_(literal, N - 1) {}
  constexpr absl::string_view view() const { return view_; }

 private:
  absl::string_view view_;
};

struct Attribute {
  absl::string_view key;  // A literal (AttributeKey): static storage.
  AttributeValue value;
};

struct SpanData {
  TraceId trace_id{};
  SpanId span_id{};
  SpanId parent_span_id{};  // All zero: a root span.
  std::string tracestate;
  std::string name;
  // A stage's span names a constant of its stage table instead
  // (RequestTrace::StartStage): not copied. Name() is the one to read.
  absl::string_view static_name;
  bool server = false;  // SPAN_KIND_SERVER; else INTERNAL.
  int64_t start_unix_nanos = 0;
  int64_t end_unix_nanos = 0;
  std::vector<Attribute> attributes;
  bool error = false;  // STATUS_CODE_ERROR; else unset.
  std::string status_message;

  absl::string_view Name() const {
    return static_name.data() != nullptr ? static_name : name;
  }
};

// A batch as the requests queued it: one vector of spans per request (a
// request larger than a batch is cut across two), in order. Not flattened:
// moving every span into one vector cost more than writing it.
using SpanBatch = absl::Span<const std::vector<SpanData>>;

class SpanExporter {
 public:
  virtual ~SpanExporter() = default;
  // Sends one batch. Called on the Tracer's thread only; must return
  // within its own deadline (a dead collector must not hold the thread).
  virtual absl::Status Export(SpanBatch batch) = 0;
};

struct TracerOptions {
  double sample_ratio = 1.0;  // For traces toolgate starts.
  size_t max_queued_spans = 8192;
  size_t max_batch = 512;
  absl::Duration flush_interval = absl::Milliseconds(500);
  // At shutdown, queued batches are exported until this much time has
  // passed since the stop; the rest are dropped (and counted), so a
  // collector that is slow but answers cannot hold the exit for one
  // deadline per batch.
  absl::Duration shutdown_budget = absl::Seconds(1);
};

class Tracer {
 public:
  Tracer(TracerOptions options, std::unique_ptr<SpanExporter> exporter);
  // Exports what is queued (within options.shutdown_budget, plus at most
  // one export's own deadline) and stops the thread.
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  bool Sampled(const std::optional<TraceContext>& parent,
               const TraceId& trace_id) const;
  // Queues one request's spans, or drops (and counts) them all when they
  // do not fit.
  void Submit(std::vector<SpanData> spans);

  // An empty span vector for a new request, with room reserved: reused
  // from requests already exported when one is free (no 5 KB allocation
  // per request on the request's thread, no free on the exporter's).
  std::vector<SpanData> TakeSpans(size_t reserve);

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint64_t exported() const {
    return exported_.load(std::memory_order_relaxed);
  }

 private:
  void Loop();
  // Up to max_batch spans (their count in *spans), waiting for a full
  // batch, the flush interval or the end; empty when stopping with
  // nothing queued.
  std::vector<std::vector<SpanData>> NextBatch(size_t* spans);
  // Empties the exported vectors and keeps them for TakeSpans.
  void Recycle(std::vector<std::vector<SpanData>>& batch);

  const TracerOptions options_;
  const std::unique_ptr<SpanExporter> exporter_;
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> exported_{0};
  absl::Mutex mu_;
  absl::CondVar ready_;  // A full batch, or stopping.
  std::deque<std::vector<SpanData>> queue_ ABSL_GUARDED_BY(mu_);  // Per request.
  size_t queued_spans_ ABSL_GUARDED_BY(mu_) = 0;
  // Emptied vectors of exported requests, for TakeSpans (at most
  // kMaxFreeVectors: a burst does not keep its memory forever).
  static constexpr size_t kMaxFreeVectors = 64;
  std::vector<std::vector<SpanData>> free_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time stop_deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  std::thread thread_;
};

class RequestTrace {
 public:
  // `tracer` may be null (tracing off): nothing is recorded.
  RequestTrace(Tracer* tracer, absl::string_view name,
               const std::optional<TraceContext>& parent);
  // The same, named by a constant (not copied): a tag, since a literal
  // converts to both name types.
  struct StaticName {};
  RequestTrace(Tracer* tracer, StaticName, StaticText name,
               const std::optional<TraceContext>& parent);
  // Ends the server span (if End was not called) and submits.
  ~RequestTrace();
  RequestTrace(const RequestTrace&) = delete;
  RequestTrace& operator=(const RequestTrace&) = delete;
  // Moving hands the spans over; the moved-from trace records nothing.
  RequestTrace(RequestTrace&& other) noexcept;
  RequestTrace& operator=(RequestTrace&&) = delete;

  bool recording() const { return tracer_ != nullptr; }

  // On the server span. Setting a key again replaces its value.
  void Set(AttributeKey key, AttributeValue value);
  void SetError(absl::string_view message);

  // A child of the server span, started now: its index. Ended by
  // EndChild (a child never ended ends with the server span).
  size_t StartChild(absl::string_view name);
  void EndChild(size_t child);
  void SetOnChild(size_t child, AttributeKey key, AttributeValue value);

  // The pipeline's form, one clock read per stage boundary (a stage ends
  // when the next starts): `static_name` must outlive the export (a
  // constant of a stage table; it is not copied), times are ClockNanos().
  size_t StartStage(absl::string_view static_name, int64_t start_nanos);
  void EndChildAt(size_t child, int64_t end_nanos);
  static int64_t ClockNanos();

  // traceparent of the server span, for whatever toolgate calls next.
  std::string Traceparent() const;

  // Ends the server span now and submits the request's spans.
  void End();

 private:
  static constexpr size_t kReservedSpans = 24;
  static constexpr size_t kReservedAttributes = 20;

  // A span id per span from one random draw per request: spans_[i] gets
  // Mix(id_base_ + i), a bijection, so ids are distinct within the
  // request (Mix(id_base_ - 1) stands in for the one input mapping to 0).
  SpanId NewSpanId(size_t index) const;
  SpanData& AddChild(int64_t start_nanos);

  Tracer* tracer_;  // Null once submitted or when not recording.
  uint64_t id_base_ = 0;
  std::vector<SpanData> spans_;  // [0] is the server span.
};

}  // namespace toolgate::trace

#endif  // TOOLGATE_CORE_TRACE_TRACER_H_
