#include "core/trace/tracer.h"

#include <cstring>
#include <iterator>
#include <utility>

#include <random>

#include "absl/time/clock.h"

namespace toolgate::trace {
namespace {

int64_t NowNanos() { return absl::GetCurrentTimeNanos(); }

// SplitMix64's finalizer: a bijection on 64 bits that spreads
// consecutive inputs over the whole range.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Trace and span ids need to be unique, not secret: a per-thread PRNG
// seeded from the OS.
std::mt19937_64& Random() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

template <size_t N>
std::array<uint8_t, N> RandomId() {
  std::array<uint8_t, N> id{};
  // An all-zero id is invalid (W3C); the chance is 2^-64, but never send one.
  while (true) {
    for (size_t i = 0; i < N; i += 8) {
      const uint64_t v = Random()();
      memcpy(id.data() + i, &v, N - i < 8 ? N - i : 8);
    }
    for (uint8_t b : id) {
      if (b != 0) return id;
    }
  }
}

// A string past kMaxAttributeBytes, cut at a UTF-8 boundary: a span's
// size never depends on what a caller sent.
void Bound(std::string& s) {
  if (s.size() <= kMaxAttributeBytes) return;
  size_t cut = kMaxAttributeBytes;
  while (cut > 0 && (static_cast<uint8_t>(s[cut]) & 0xc0) == 0x80) --cut;
  s.resize(cut);
}

void Bound(AttributeValue& value) {
  if (auto* s = std::get_if<std::string>(&value)) {
    Bound(*s);
  } else if (auto* list = std::get_if<std::vector<std::string>>(&value)) {
    if (list->size() > kMaxAttributeItems) list->resize(kMaxAttributeItems);
    for (std::string& item : *list) Bound(item);
  }
}

// Sets `key` on `span`, replacing an earlier value (OpenTelemetry's rule:
// a span's attribute keys are unique).
void SetAttribute(SpanData& span, absl::string_view key,
                  AttributeValue value) {
  Bound(value);
  // Keys are literals: the same key is usually the same pointer, and a
  // different one usually differs in length, so the scan is cheap.
  for (Attribute& a : span.attributes) {
    if (a.key.size() == key.size() &&
        (a.key.data() == key.data() ||
         memcmp(a.key.data(), key.data(), key.size()) == 0)) {
      a.value = std::move(value);
      return;
    }
  }
  span.attributes.push_back({key, std::move(value)});
}

}  // namespace

Tracer::Tracer(TracerOptions options, std::unique_ptr<SpanExporter> exporter)
    : options_(options), exporter_(std::move(exporter)) {
  thread_ = std::thread([this] { Loop(); });
}

Tracer::~Tracer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    stop_deadline_ = absl::Now() + options_.shutdown_budget;
    ready_.Signal();
  }
  thread_.join();
}

bool Tracer::Sampled(const std::optional<TraceContext>& parent,
                     const TraceId& trace_id) const {
  if (parent.has_value()) return parent->sampled;
  if (options_.sample_ratio >= 1.0) return true;
  if (options_.sample_ratio <= 0.0) return false;
  // OpenTelemetry's TraceIdRatioBased: the id's low 8 bytes against the
  // ratio's share of 2^63, so every service sampling at a ratio agrees.
  uint64_t low = 0;
  for (size_t i = 8; i < 16; ++i) low = (low << 8) | trace_id[i];
  low >>= 1;
  return low < static_cast<uint64_t>(options_.sample_ratio * 9223372036854775808.0);
}

void Tracer::Submit(std::vector<SpanData> spans) {
  if (spans.empty()) return;
  absl::MutexLock lock(&mu_);
  if (stopping_ || queued_spans_ + spans.size() > options_.max_queued_spans) {
    dropped_.fetch_add(spans.size(), std::memory_order_relaxed);
    return;
  }
  // The request's spans move as one vector: no per-span work under the
  // lock, on the request's thread.
  queued_spans_ += spans.size();
  queue_.push_back(std::move(spans));
  if (queued_spans_ >= options_.max_batch) ready_.Signal();
}

std::vector<SpanData> Tracer::TakeSpans(size_t reserve) {
  std::vector<SpanData> spans;
  {
    absl::MutexLock lock(&mu_);
    if (!free_.empty()) {
      spans = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (spans.capacity() < reserve) spans.reserve(reserve);
  return spans;
}

std::vector<std::vector<SpanData>> Tracer::NextBatch(size_t* spans) {
  std::vector<std::vector<SpanData>> taken;
  size_t n = 0;
  {
    absl::MutexLock lock(&mu_);
    // A CondVar rather than Mutex::Await(Condition): the predicate is read
    // here, never by the library while it waits (bazel/tsan/ can follow
    // that).
    const absl::Time flush_at = absl::Now() + options_.flush_interval;
    while (!stopping_ && queued_spans_ < options_.max_batch) {
      if (ready_.WaitWithDeadline(&mu_, flush_at)) break;
    }
    // Whole requests, up to max_batch spans (a request larger than a
    // batch is cut at max_batch; its rest stays first in the queue).
    while (!queue_.empty() && n < options_.max_batch) {
      std::vector<SpanData>& front = queue_.front();
      const size_t room = options_.max_batch - n;
      if (front.size() > room) {
        std::vector<SpanData> part(std::make_move_iterator(front.begin()),
                                   std::make_move_iterator(front.begin() + room));
        front.erase(front.begin(), front.begin() + room);
        n += room;
        taken.push_back(std::move(part));
        break;
      }
      n += front.size();
      taken.push_back(std::move(front));
      queue_.pop_front();
    }
    queued_spans_ -= n;
  }
  *spans = n;
  return taken;
}

void Tracer::Recycle(std::vector<std::vector<SpanData>>& batch) {
  // Emptied outside the lock: Submit never waits on this.
  for (std::vector<SpanData>& spans : batch) spans.clear();  // Capacity kept.
  absl::MutexLock lock(&mu_);
  for (std::vector<SpanData>& spans : batch) {
    if (free_.size() == kMaxFreeVectors) break;
    free_.push_back(std::move(spans));
  }
}

void Tracer::Loop() {
  for (;;) {
    size_t n = 0;
    std::vector<std::vector<SpanData>> batch = NextBatch(&n);
    bool stopping;
    {
      absl::MutexLock lock(&mu_);
      stopping = stopping_;
      if (stopping && n > 0 && absl::Now() > stop_deadline_) {
        dropped_.fetch_add(n + queued_spans_, std::memory_order_relaxed);
        queue_.clear();
        queued_spans_ = 0;
        return;
      }
    }
    if (n == 0) {
      if (stopping) return;
      continue;
    }
    const absl::Status sent = exporter_->Export(batch);
    (sent.ok() ? exported_ : dropped_).fetch_add(n, std::memory_order_relaxed);
    Recycle(batch);
    if (!sent.ok() && stopping) {
      // Shutting down with a collector that fails: one attempt, not one
      // deadline per queued batch.
      absl::MutexLock lock(&mu_);
      dropped_.fetch_add(queued_spans_, std::memory_order_relaxed);
      queue_.clear();
      queued_spans_ = 0;
      return;
    }
  }
}

RequestTrace::RequestTrace(Tracer* tracer, absl::string_view name,
                           const std::optional<TraceContext>& parent)
    : RequestTrace(tracer, StaticName{}, StaticText(""), parent) {
  if (tracer_ != nullptr) {
    spans_[0].static_name = absl::string_view();
    spans_[0].name = std::string(name);
  }
}

RequestTrace::RequestTrace(Tracer* tracer, StaticName, StaticText name,
                           const std::optional<TraceContext>& parent)
    : tracer_(nullptr) {
  if (tracer == nullptr) return;
  SpanData root;
  root.trace_id = parent.has_value() ? parent->trace_id : RandomId<16>();
  if (!tracer->Sampled(parent, root.trace_id)) return;
  tracer_ = tracer;
  id_base_ = Random()();
  root.span_id = NewSpanId(0);
  if (parent.has_value()) {
    root.parent_span_id = parent->span_id;
    root.tracestate = parent->tracestate;
  }
  root.static_name = name.view();
  root.server = true;
  root.start_unix_nanos = NowNanos();
  // A decision sets ~15 attributes on its server span: grown once.
  root.attributes.reserve(kReservedAttributes);
  // Room for the server span and a child per stage of the longest
  // pipeline (ValidateToolCall: 16), so recording never moves the spans.
  spans_ = tracer->TakeSpans(kReservedSpans);
  spans_.push_back(std::move(root));
}

RequestTrace::RequestTrace(RequestTrace&& other) noexcept
    : tracer_(other.tracer_),
      id_base_(other.id_base_),
      spans_(std::move(other.spans_)) {
  other.tracer_ = nullptr;
}

RequestTrace::~RequestTrace() { End(); }

int64_t RequestTrace::ClockNanos() { return NowNanos(); }

SpanId RequestTrace::NewSpanId(size_t index) const {
  uint64_t v = Mix(id_base_ + index);
  if (v == 0) v = Mix(id_base_ - 1);  // Non-zero: only one input maps to 0.
  SpanId id;
  memcpy(id.data(), &v, sizeof(v));
  return id;
}

void RequestTrace::Set(AttributeKey key, AttributeValue value) {
  if (tracer_ == nullptr) return;
  SetAttribute(spans_[0], key.view(), std::move(value));
}

void RequestTrace::SetError(absl::string_view message) {
  if (tracer_ == nullptr) return;
  spans_[0].error = true;
  spans_[0].status_message = std::string(message);
  Bound(spans_[0].status_message);
}

SpanData& RequestTrace::AddChild(int64_t start_nanos) {
  const size_t index = spans_.size();
  SpanData& child = spans_.emplace_back();
  const SpanData& root = spans_[0];
  child.trace_id = root.trace_id;
  child.span_id = NewSpanId(index);
  child.parent_span_id = root.span_id;
  if (!root.tracestate.empty()) child.tracestate = root.tracestate;
  child.start_unix_nanos = start_nanos;
  return child;
}

size_t RequestTrace::StartChild(absl::string_view name) {
  if (tracer_ == nullptr) return 0;
  AddChild(NowNanos()).name.assign(name.data(), name.size());
  return spans_.size() - 1;
}

size_t RequestTrace::StartStage(absl::string_view static_name,
                                int64_t start_nanos) {
  if (tracer_ == nullptr) return 0;
  // An empty view with a null pointer would read as "no static name".
  AddChild(start_nanos).static_name =
      static_name.data() != nullptr ? static_name : absl::string_view("");
  return spans_.size() - 1;
}

void RequestTrace::EndChild(size_t child) {
  if (tracer_ == nullptr || child == 0 || child >= spans_.size()) return;
  if (spans_[child].end_unix_nanos == 0) spans_[child].end_unix_nanos = NowNanos();
}

void RequestTrace::EndChildAt(size_t child, int64_t end_nanos) {
  if (tracer_ == nullptr || child == 0 || child >= spans_.size()) return;
  if (spans_[child].end_unix_nanos == 0) spans_[child].end_unix_nanos = end_nanos;
}

void RequestTrace::SetOnChild(size_t child, AttributeKey key,
                              AttributeValue value) {
  if (tracer_ == nullptr || child == 0 || child >= spans_.size()) return;
  SetAttribute(spans_[child], key.view(), std::move(value));
}

std::string RequestTrace::Traceparent() const {
  if (tracer_ == nullptr) return "";
  return FormatTraceparent(spans_[0].trace_id, spans_[0].span_id, true);
}

void RequestTrace::End() {
  if (tracer_ == nullptr) return;
  const int64_t now = NowNanos();
  for (SpanData& s : spans_) {
    if (s.end_unix_nanos == 0) s.end_unix_nanos = now;
  }
  Tracer* tracer = tracer_;
  tracer_ = nullptr;
  tracer->Submit(std::move(spans_));
}

}  // namespace toolgate::trace
