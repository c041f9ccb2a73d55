// Batch answers, generated: random batches (tool calls of two tools with
// different output schemas, pings, notifications; ids numbers and strings,
// numbers and letters side by side) and answers to them, whole or broken one way
// (an id dropped, doubled, added, retyped "1" for 1, two calls' results
// swapped, a result made invalid, a notification inside the array). The
// gate lets an answer go on exactly when every id is answered once and
// every call's result is valid for ITS tool, and checks one result per
// call. Deterministic (fixed seeds), a real engine.
#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/mesh/engine_decider.h"
#include "core/mesh/mcp_gate.h"
#include "core/mesh/testing/mcp_cases.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

namespace msg = testing::msg;

enum class Break {
  kNone,
  kDrop,
  kDouble,
  kExtra,
  kRetype,
  kSwap,
  kInvalid,
  kNotification
};
constexpr int kBreaks = 8;

struct Message {
  std::string text;  // The request message.
  Json id;           // Null for a notification.
  std::string tool;  // "" for a ping or a notification.
};

struct Generated {
  std::vector<Message> messages;
  Json answer = Json::array();
  bool should_pass = true;
  int calls = 0;
};

class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  Generated Make(Break brk) {
    Generated g;
    const int n = Pick(1, 5);
    for (int i = 0; i < n; ++i) g.messages.push_back(OneMessage(i));
    bool any_call = false;
    for (const Message& m : g.messages) any_call |= !m.tool.empty();
    if (!any_call) g.messages.push_back(CallOf(n, "get_customer"));
    for (const Message& m : g.messages) {
      g.calls += m.tool.empty() ? 0 : 1;
      if (!m.id.is_null()) g.answer.push_back(Response(m.id, m.tool));
    }
    Apply(brk, &g);
    std::shuffle(g.answer.begin(), g.answer.end(), rng_);
    return g;
  }

 private:
  int Pick(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  // Unique as JSON values, numbers and strings mixed; a string that could
  // read as a number beside number ids is refused before any answer
  // (mcp_request_test), so the strings here are letters.
  Json IdFor(int) {
    for (;;) {
      const int v = Pick(1, 4);
      Json id = Pick(0, 1) ? Json(v) : Json(std::string(1, 'a' + v));
      if (used_.insert(CanonicalJson(id)).second) return id;
    }
  }
  Message CallOf(int i, const std::string& tool) {
    Message m{"", IdFor(i), tool};
    m.text = msg::Call(CanonicalJson(m.id), tool,
                       tool == "send_note" ? msg::kTo : msg::kCustomer);
    return m;
  }
  Message OneMessage(int i) {
    switch (Pick(0, 3)) {
      case 0:
        return CallOf(i, "get_customer");
      case 1:
        return CallOf(i, "send_note");
      case 2: {
        Message m{"", IdFor(i), ""};
        m.text = absl::StrCat(R"({"jsonrpc":"2.0","id":)", CanonicalJson(m.id),
                              R"(,"method":"ping"})");
        return m;
      }
    }
    return Message{msg::kNote, nullptr, ""};
  }
  static Json Response(const Json& id, const std::string& tool) {
    const char* result = tool == "send_note"      ? msg::kSent
                         : tool == "get_customer" ? msg::kGood
                                                  : "{}";
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::parse(result)}};
  }
  // Indexes of the answer's responses to calls (of `tool`, or any).
  std::vector<size_t> Calls(const Generated& g, const std::string& tool = "") {
    std::vector<size_t> out;
    for (size_t k = 0; k < g.answer.size(); ++k) {
      for (const Message& m : g.messages) {
        if (m.id == g.answer[k]["id"] && !m.tool.empty() &&
            (tool.empty() || m.tool == tool)) {
          out.push_back(k);
        }
      }
    }
    return out;
  }
  void Apply(Break brk, Generated* g) {
    Json& a = g->answer;
    const size_t k = Pick(0, static_cast<int>(a.size()) - 1);
    switch (brk) {
      case Break::kNone:
        return;
      case Break::kDrop:
        a.erase(a.begin() + k);
        break;
      case Break::kDouble:
        a.push_back(a[k]);
        break;
      case Break::kExtra:
        a.push_back(Response(Json(1000), ""));
        break;
      case Break::kRetype: {
        Json& id = a[k]["id"];
        id = id.is_string() ? Json(id.get<std::string>()[0] - 'a')
                            : Json(CanonicalJson(id));
        // Retyped onto another message's id: a duplicate, still refused.
        break;
      }
      case Break::kSwap: {
        const std::vector<size_t> gets = Calls(*g, "get_customer");
        const std::vector<size_t> sends = Calls(*g, "send_note");
        if (gets.empty() || sends.empty()) return;  // Nothing to swap.
        std::swap(a[gets[0]]["result"], a[sends[0]]["result"]);
        break;
      }
      case Break::kInvalid: {
        const std::vector<size_t> calls = Calls(*g);
        a[calls[Pick(0, static_cast<int>(calls.size()) - 1)]]["result"] =
            Json::parse(msg::kBad);
        break;
      }
      case Break::kNotification:
        a.push_back(Json::parse(msg::kNote));
        break;
    }
    g->should_pass = false;
  }

  std::mt19937 rng_;
  std::set<std::string> used_;
};

TEST(BatchAnswerProperty, OnlyAWholeValidAnswerGoesOn) {
  Engine engine;
  auto s =
      engine.CreateSnapshot(testing::kManifest, ManifestFormat::kToolgate, "");
  ASSERT_TRUE(s.ok()) << s.status();
  EngineDecider decider(&engine);
  const McpGate gate(&decider, decider.limits());
  AnswerAsk ask;
  ask.snapshot_id = (*s)->id();
  int passed = 0;
  for (unsigned seed = 1; seed <= 600; ++seed) {
    Generator gen(seed);
    const Break brk = static_cast<Break>(seed % kBreaks);
    const Generated g = gen.Make(brk);
    std::vector<std::string> texts;
    for (const Message& m : g.messages) texts.push_back(m.text);
    const std::string request = msg::Batch(texts);
    const std::string body = CanonicalJson(g.answer);
    SCOPED_TRACE(absl::StrCat("seed ", seed, ": ", request, " -> ", body));
    const AnswerPlan plan = gate.Plan(Route::kMcp, "", gate.Read(request));
    ASSERT_EQ(plan.kind, AnswerPlan::Kind::kBatch);
    const AnswerVerdict v =
        gate.Check(plan, ask, HttpAnswer{200, "application/json", body});
    EXPECT_EQ(v.valid, g.should_pass);
    passed += v.valid ? 1 : 0;
    if (!v.valid) {
      // Every message of the request gets its own error, in order.
      ASSERT_TRUE(v.answer.is_array());
      ASSERT_EQ(v.answer.size(), g.messages.size());
      for (size_t i = 0; i < g.messages.size(); ++i) {
        EXPECT_EQ(v.answer[i]["id"], g.messages[i].id);
        EXPECT_TRUE(v.answer[i].contains("error"));
      }
    }
  }
  EXPECT_GT(passed, 50);  // The property is not vacuous.
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
