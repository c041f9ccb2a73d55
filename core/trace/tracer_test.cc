#include "core/trace/tracer.h"

#include <atomic>
#include <set>
#include <thread>
#include <variant>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace toolgate::trace {
namespace {

// What the exporter below received; outlives the tracer that owns it.
struct Received {
  absl::Mutex mu;
  std::vector<SpanData> spans;
  std::vector<size_t> batch_sizes;
  std::vector<SpanData> Get() {
    absl::MutexLock lock(&mu);
    return spans;
  }
};

// Keeps what it is given; can be made to fail or to block.
class RecordingExporter : public SpanExporter {
 public:
  explicit RecordingExporter(Received* into = nullptr) : into_(into) {}
  absl::Status Export(SpanBatch batch) override {
    if (block_ != nullptr) block_->WaitForNotification();
    absl::SleepFor(delay_);
    if (fail_) return absl::UnavailableError("collector down");
    if (into_ != nullptr) {
      absl::MutexLock lock(&into_->mu);
      size_t n = 0;
      for (const std::vector<SpanData>& spans : batch) {
        EXPECT_FALSE(spans.empty());  // A request's spans, or a part.
        into_->spans.insert(into_->spans.end(), spans.begin(), spans.end());
        n += spans.size();
      }
      into_->batch_sizes.push_back(n);
    }
    return absl::OkStatus();
  }
  bool fail_ = false;
  absl::Notification* block_ = nullptr;
  absl::Duration delay_;

 private:
  Received* into_;
};

TracerOptions Fast() {
  TracerOptions o;
  o.flush_interval = absl::Milliseconds(5);
  return o;
}

TEST(RequestTrace, AServerSpanWithStageChildrenUnderTheCallersTrace) {
  Received received;
  {
    Tracer tracer(Fast(), std::make_unique<RecordingExporter>(&received));
    std::optional<TraceContext> parent = ParseTraceparent(
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v");
    RequestTrace t(&tracer, "toolgate.v1.ToolGate/ValidateToolCall", parent);
    ASSERT_TRUE(t.recording());
    const size_t a = t.StartChild("resolve");
    t.EndChild(a);
    const size_t b = t.StartChild("decide");
    t.SetOnChild(b, "toolgate.decision", std::string("ALLOW"));
    t.EndChild(b);
    t.Set("rpc.system", std::string("grpc"));
    EXPECT_EQ(t.Traceparent().substr(0, 36),
              "00-4bf92f3577b34da6a3ce929d0e0e4736-");
    t.End();
  }  // The tracer flushes on destruction.
  std::vector<SpanData> spans = received.Get();
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_TRUE(spans[0].server);
  EXPECT_EQ(Hex(spans[0].parent_span_id.data(), 8), "00f067aa0ba902b7");
  EXPECT_EQ(spans[0].tracestate, "k=v");
  EXPECT_EQ(spans[1].name, "resolve");
  EXPECT_EQ(spans[2].name, "decide");
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(spans[i].trace_id, spans[0].trace_id);
    EXPECT_EQ(spans[i].parent_span_id, spans[0].span_id);
    EXPECT_FALSE(spans[i].server);
    EXPECT_LE(spans[0].start_unix_nanos, spans[i].start_unix_nanos);
    EXPECT_LE(spans[i].end_unix_nanos, spans[0].end_unix_nanos);
  }
  EXPECT_LE(spans[1].end_unix_nanos, spans[2].start_unix_nanos);
  EXPECT_EQ(spans[2].attributes.size(), 1u);
}

TEST(RequestTrace, FollowsTheCallersUnsampledFlagAndRecordsNothing) {
  auto* exporter = new RecordingExporter;
  Tracer tracer(Fast(), std::unique_ptr<SpanExporter>(exporter));
  RequestTrace t(&tracer, "x",
                 ParseTraceparent(
                     "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", ""));
  EXPECT_FALSE(t.recording());
  t.StartChild("resolve");
  EXPECT_EQ(t.Traceparent(), "");
}

TEST(RequestTrace, NoTracerNoRecording) {
  RequestTrace t(nullptr, "x", std::nullopt);
  EXPECT_FALSE(t.recording());
  EXPECT_EQ(t.StartChild("a"), 0u);
  t.End();
}

TEST(RequestTrace, SettingAKeyAgainReplacesItsValue) {
  Received received;
  {
    Tracer tracer(Fast(), std::make_unique<RecordingExporter>(&received));
    RequestTrace t(&tracer, "x", std::nullopt);
    t.Set("toolgate.run_id", std::string("run_1"));
    t.Set("toolgate.decision", std::string("ALLOW"));
    t.Set("toolgate.run_id", std::string("run_2"));
    const size_t child = t.StartChild("stage");
    t.SetOnChild(child, "k", int64_t{1});
    t.SetOnChild(child, "k", int64_t{2});
  }
  std::vector<SpanData> spans = received.Get();
  ASSERT_EQ(spans.size(), 2u);
  ASSERT_EQ(spans[0].attributes.size(), 2u);
  EXPECT_EQ(spans[0].attributes[0].key, "toolgate.run_id");
  EXPECT_EQ(std::get<std::string>(spans[0].attributes[0].value), "run_2");
  ASSERT_EQ(spans[1].attributes.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(spans[1].attributes[0].value), 2);
}

// Constants are kept as views: the server span's name and StaticText
// values point at the program's own storage, uncopied; a name given as a
// string is copied (the caller's buffer may go).
TEST(RequestTrace, StaticNamesAndValuesAreViewsOfTheirConstants) {
  static constexpr char kName[] = "toolgate.v1.ToolGate/ValidateToolCall";
  Received received;
  {
    Tracer tracer(Fast(), std::make_unique<RecordingExporter>(&received));
    RequestTrace t(&tracer, RequestTrace::StaticName{}, StaticText(kName),
                   std::nullopt);
    t.Set("rpc.method", StaticText("ValidateToolCall"));
    std::string buffer = "copied/Name";
    RequestTrace u(&tracer, buffer, std::nullopt);
    buffer.assign(buffer.size(), 'x');
  }
  std::vector<SpanData> spans = received.Get();
  ASSERT_EQ(spans.size(), 2u);
  const SpanData& viewed = spans[0].Name() == kName ? spans[0] : spans[1];
  const SpanData& copied = &viewed == &spans[0] ? spans[1] : spans[0];
  EXPECT_EQ(viewed.Name().data(), kName);
  EXPECT_TRUE(viewed.name.empty());
  ASSERT_EQ(viewed.attributes.size(), 1u);
  EXPECT_EQ(std::get<StaticText>(viewed.attributes[0].value).view(),
            "ValidateToolCall");
  EXPECT_EQ(copied.Name(), "copied/Name");
}

// Whatever a caller makes toolgate set, a span stays small.
TEST(RequestTrace, StringsListsAndStatusMessagesAreBounded) {
  const std::string huge(1 << 20, 'x');
  // "é" is two bytes: a cut never splits one.
  std::string accented;
  while (accented.size() < kMaxAttributeBytes + 8) accented += "\xc3\xa9";
  Received received;
  {
    Tracer tracer(Fast(), std::make_unique<RecordingExporter>(&received));
    RequestTrace t(&tracer, "x", std::nullopt);
    t.Set("s", huge);
    t.Set("odd", "a" + accented);
    t.Set("list", std::vector<std::string>(kMaxAttributeItems + 10,
                                           std::string(4096, 'y')));
    t.SetOnChild(t.StartChild("stage"), "s", huge);
    t.SetError(huge);
  }
  std::vector<SpanData> spans = received.Get();
  ASSERT_EQ(spans.size(), 2u);
  const SpanData& root = spans[0];
  EXPECT_EQ(std::get<std::string>(root.attributes[0].value).size(),
            kMaxAttributeBytes);
  const std::string& odd = std::get<std::string>(root.attributes[1].value);
  EXPECT_EQ(odd.size(), kMaxAttributeBytes - 1);
  EXPECT_EQ(odd.back(), '\xa9');
  const auto& list = std::get<std::vector<std::string>>(root.attributes[2].value);
  EXPECT_EQ(list.size(), kMaxAttributeItems);
  for (const std::string& item : list) {
    EXPECT_EQ(item.size(), kMaxAttributeBytes);
  }
  EXPECT_EQ(root.status_message.size(), kMaxAttributeBytes);
  EXPECT_EQ(std::get<std::string>(spans[1].attributes[0].value).size(),
            kMaxAttributeBytes);
}

TEST(Tracer, RatioZeroStillFollowsASampledParent) {
  TracerOptions o = Fast();
  o.sample_ratio = 0;
  Tracer tracer(o, std::make_unique<RecordingExporter>());
  EXPECT_FALSE(RequestTrace(&tracer, "x", std::nullopt).recording());
  // Parent-based: the caller's sampled flag decides, either way.
  EXPECT_TRUE(RequestTrace(&tracer, "x",
                           ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-"
                                            "00f067aa0ba902b7-01",
                                            ""))
                  .recording());
  o.sample_ratio = 1;
  Tracer all(o, std::make_unique<RecordingExporter>());
  EXPECT_FALSE(RequestTrace(&all, "x",
                            ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-"
                                             "00f067aa0ba902b7-00",
                                             ""))
                   .recording());
}

TEST(Tracer, RatioSamplingOfNewTraces) {
  TracerOptions o = Fast();
  o.sample_ratio = 0.25;
  Tracer tracer(o, std::make_unique<RecordingExporter>());
  int sampled = 0;
  for (int i = 0; i < 4000; ++i) {
    RequestTrace t(&tracer, "x", std::nullopt);
    sampled += t.recording() ? 1 : 0;
  }
  EXPECT_GT(sampled, 800);
  EXPECT_LT(sampled, 1200);
  o.sample_ratio = 0;
  Tracer none(o, std::make_unique<RecordingExporter>());
  EXPECT_FALSE(RequestTrace(&none, "x", std::nullopt).recording());
}

TEST(Tracer, AFullQueueDropsAndCountsWithoutBlocking) {
  absl::Notification release;
  auto* exporter = new RecordingExporter;
  exporter->block_ = &release;
  TracerOptions o = Fast();
  o.max_queued_spans = 100;
  o.max_batch = 10;
  Tracer tracer(o, std::unique_ptr<SpanExporter>(exporter));
  // The exporter is stuck on its first batch; requests keep deciding.
  for (int i = 0; i < 1000; ++i) {
    RequestTrace t(&tracer, "x", std::nullopt);
    t.StartChild("stage");
  }
  EXPECT_GE(tracer.dropped(), 2000u - 100u - 10u);
  release.Notify();
}

TEST(Tracer, FailedExportsAreCountedAsDropped) {
  auto* exporter = new RecordingExporter;
  exporter->fail_ = true;
  {
    Tracer tracer(Fast(), std::unique_ptr<SpanExporter>(exporter));
    for (int i = 0; i < 10; ++i) RequestTrace(&tracer, "x", std::nullopt);
    for (int i = 0; i < 200 && tracer.dropped() < 10; ++i) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    EXPECT_EQ(tracer.dropped(), 10u);
    EXPECT_EQ(tracer.exported(), 0u);
  }
}

// The queue holds each request's spans as one vector and batches cut
// them: whatever the sizes, every span is exported once, in order, in
// batches of at most max_batch.
TEST(Tracer, BatchesCutRequestsWithoutLosingOrReorderingSpans) {
  struct Case {
    size_t spans_per_request;
    size_t max_batch;
  };
  for (const Case& c : std::vector<Case>{
           {1, 10}, {3, 10}, {10, 10}, {17, 10}, {17, 16}, {17, 512}, {40, 7}}) {
    SCOPED_TRACE(testing::Message() << c.spans_per_request << " spans, batch "
                                    << c.max_batch);
    Received received;
    std::vector<std::string> expected;
    TracerOptions o = Fast();
    o.max_batch = c.max_batch;
    {
      Tracer tracer(o, std::make_unique<RecordingExporter>(&received));
      for (int r = 0; r < 50; ++r) {
        const std::string name = "r" + std::to_string(r);
        RequestTrace t(&tracer, name, std::nullopt);
        expected.push_back(name);
        for (size_t i = 1; i < c.spans_per_request; ++i) {
          expected.push_back(name + "/" + std::to_string(i));
          t.EndChild(t.StartChild(expected.back()));
        }
      }
    }  // The destructor exports what is queued.
    std::vector<std::string> got;
    for (const SpanData& s : received.Get()) got.push_back(s.name);
    EXPECT_EQ(got, expected);
    for (size_t n : received.batch_sizes) {
      EXPECT_GE(n, 1u);
      EXPECT_LE(n, c.max_batch);
    }
  }
}

// The pipeline's form: stage names are its table's constants, kept as
// views; one clock reading ends a stage and starts the next.
TEST(RequestTrace, StagesKeepTheirTableNamesAndSharedBoundaries) {
  static constexpr absl::string_view kNames[] = {"resolve", "policy (arguments)",
                                                 "repair + strict parse"};
  Received received;
  {
    Tracer tracer(Fast(), std::make_unique<RecordingExporter>(&received));
    RequestTrace t(&tracer, "toolgate.v1.ToolGate/ValidateToolCall",
                   std::nullopt);
    int64_t now = RequestTrace::ClockNanos();
    for (absl::string_view name : kNames) {
      const size_t span = t.StartStage(name, now);
      now += 7;
      t.EndChildAt(span, now);
    }
  }
  const std::vector<SpanData> spans = received.Get();
  ASSERT_EQ(spans.size(), 4u);
  for (size_t i = 1; i < spans.size(); ++i) {
    EXPECT_EQ(spans[i].Name(), kNames[i - 1]);
    EXPECT_EQ(spans[i].Name().data(), kNames[i - 1].data());  // Not copied.
    EXPECT_EQ(spans[i].end_unix_nanos - spans[i].start_unix_nanos, 7);
    if (i > 1) EXPECT_EQ(spans[i].start_unix_nanos, spans[i - 1].end_unix_nanos);
  }
  EXPECT_EQ(spans[0].Name(), "toolgate.v1.ToolGate/ValidateToolCall");
}

// Span ids come from one draw per request: still distinct within the
// request (and from the caller's span), never zero, and new per request.
TEST(RequestTrace, SpanIdsAreDistinctAndNonZeroForEverySpan) {
  for (size_t children : {0, 1, 16, 23, 200}) {
    SCOPED_TRACE(children);
    Received received;
    std::optional<TraceContext> parent = ParseTraceparent(
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "");
    {
      Tracer tracer(Fast(), std::make_unique<RecordingExporter>(&received));
      for (int r = 0; r < 3; ++r) {
        RequestTrace t(&tracer, "x", parent);
        for (size_t i = 0; i < children; ++i) {
          t.EndChild(t.StartChild("stage"));
        }
      }
    }
    const std::vector<SpanData> spans = received.Get();
    ASSERT_EQ(spans.size(), 3 * (children + 1));
    std::set<SpanId> ids{parent->span_id};
    for (const SpanData& s : spans) {
      EXPECT_NE(s.span_id, SpanId{});
      EXPECT_TRUE(ids.insert(s.span_id).second);
    }
  }
}

// An exported request's vector comes back empty for the next request:
// its room is reused, its spans never are.
TEST(Tracer, ReusesExportedSpanVectorsEmpty) {
  Received received;
  Tracer tracer(Fast(), std::make_unique<RecordingExporter>(&received));
  {
    RequestTrace t(&tracer, "first", std::nullopt);
    for (int i = 0; i < 40; ++i) t.StartChild("stage");
  }
  for (int i = 0; i < 400 && tracer.exported() < 41; ++i) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_EQ(tracer.exported(), 41u);
  const std::vector<SpanData> reused = tracer.TakeSpans(1);
  EXPECT_TRUE(reused.empty());
  EXPECT_GE(reused.capacity(), 41u);
  { RequestTrace t(&tracer, "second", std::nullopt); }
  for (int i = 0; i < 400 && tracer.exported() < 42; ++i) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  const std::vector<SpanData> spans = received.Get();
  ASSERT_EQ(spans.size(), 42u);
  EXPECT_EQ(spans.back().Name(), "second");
}

TEST(Tracer, CountsExportedSpansAcrossSplitRequests) {
  Received received;
  TracerOptions o = Fast();
  o.max_batch = 5;
  uint64_t exported = 0;
  {
    Tracer tracer(o, std::make_unique<RecordingExporter>(&received));
    for (int r = 0; r < 3; ++r) {
      RequestTrace t(&tracer, "x", std::nullopt);
      for (int i = 0; i < 11; ++i) t.StartChild("stage");
    }
    for (int i = 0; i < 400 && tracer.exported() < 36; ++i) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    exported = tracer.exported();
    EXPECT_EQ(tracer.dropped(), 0u);
  }
  EXPECT_EQ(exported, 36u);
  EXPECT_EQ(received.Get().size(), 36u);
}

TEST(Tracer, ShutdownWithASlowCollectorDropsPastItsBudget) {
  Received received;
  auto* exporter = new RecordingExporter(&received);
  exporter->delay_ = absl::Milliseconds(30);  // Slow, but it answers.
  TracerOptions o = Fast();
  o.max_batch = 10;
  o.shutdown_budget = absl::Milliseconds(60);
  {
    Tracer tracer(o, std::unique_ptr<SpanExporter>(exporter));
    for (int i = 0; i < 500; ++i) RequestTrace(&tracer, "x", std::nullopt);
    // Destroyed with ~50 batches queued: at 30 ms each they would hold
    // the exit for 1.5 s; past the budget the rest are dropped.
  }
  EXPECT_GT(received.Get().size(), 0u);
  EXPECT_LT(received.Get().size(), 500u);
}

}  // namespace
}  // namespace toolgate::trace
