// Recorded streams read from files: SSE captures and one-event-per-line.
#include "core/stream/sse.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace stream {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(Sse, ReadsDataLinesAndJoinsMultiLineData) {
  EXPECT_THAT(SplitEvents("event: a\r\ndata: {\"x\":1}\r\n\r\n: comment\n"
                          "data:{\"y\":\ndata: 2}\n\nid: 7\n\ndata: [DONE]\n"),
              ElementsAre("{\"x\":1}", "{\"y\":\n2}", "[DONE]"));
}

TEST(Sse, WithoutDataLinesEachNonBlankLineIsAnEvent) {
  EXPECT_THAT(SplitEvents("{\"a\":1}\n\n  \n{\"b\":2}\r\n[DONE]"),
              ElementsAre("{\"a\":1}", "{\"b\":2}", "[DONE]"));
}

TEST(Sse, EventsWithoutDataAndEmptyCapturesGiveNoEvents) {
  EXPECT_THAT(SplitEvents(""), IsEmpty());
  EXPECT_THAT(SplitEvents("event: ping\n\n: comment\ndata: x\n"),
              ElementsAre("x"));
  // A bare "data" line is a data field with an empty value (WHATWG).
  EXPECT_THAT(SplitEvents("data\n\ndata: x\n"), ElementsAre("", "x"));
}

}  // namespace
}  // namespace stream
}  // namespace toolgate
