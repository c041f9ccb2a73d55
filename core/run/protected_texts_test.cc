// Protected texts are stored once per distinct set, however many runs carry
// them, within one byte budget (issue 25, item 10).
#include "core/run/protected_texts.h"

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/run/run_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using Detector = std::shared_ptr<const policy::LeakDetector>;

std::string RandomText(size_t bytes, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(bytes, ' ');
  for (char& c : s) c = static_cast<char>(' ' + rng() % 95);
  return s;
}

// What one table of `texts` (as the store keys them) is accounted.
size_t TableBytes(std::vector<std::string> texts) {
  std::sort(texts.begin(), texts.end());
  texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
  return policy::LeakTable::PlannedBytes(texts) + kProtectedTableOverheadBytes;
}

Detector MustIntern(ProtectedTextStore& store,
                    const std::vector<std::string>& texts) {
  absl::StatusOr<Detector> d = store.Intern(texts);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : nullptr;
}

const std::string kPrompt = RandomText(32 * 1024, 1);
const std::string kSecret = RandomText(200, 2);
const std::string kOther = RandomText(4000, 3);

TEST(ProtectedTextStore, TheSameSetInAnyOrderIsOneTable) {
  struct Case {
    std::string label;
    std::vector<std::vector<std::string>> runs;
  };
  const std::vector<Case> cases = {
      {"one prompt, a thousand runs",
       std::vector<std::vector<std::string>>(1000, {kPrompt})},
      {"two texts, both orders", {{kPrompt, kSecret}, {kSecret, kPrompt}}},
      {"a text given twice", {{kPrompt, kSecret}, {kSecret, kPrompt, kSecret}}},
      {"three texts, every rotation",
       {{kPrompt, kSecret, kOther},
        {kSecret, kOther, kPrompt},
        {kOther, kPrompt, kSecret}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    ProtectedTextStore store;
    std::vector<Detector> held;
    for (const auto& texts : c.runs) held.push_back(MustIntern(store, texts));
    EXPECT_EQ(store.tables(), 1u);
    EXPECT_EQ(store.bytes(), TableBytes(c.runs[0]));
    for (const Detector& d : held) {
      EXPECT_EQ(d->table(), held[0]->table());
    }
    held.clear();
    EXPECT_EQ(store.bytes(), 0u);
    EXPECT_EQ(store.tables(), 0u);
  }
}

TEST(ProtectedTextStore, DistinctSetsAreDistinctTables) {
  ProtectedTextStore store;
  Detector a = MustIntern(store, {kPrompt});
  Detector b = MustIntern(store, {kPrompt, kSecret});
  Detector c = MustIntern(store, {kSecret});
  EXPECT_EQ(store.tables(), 3u);
  EXPECT_EQ(store.bytes(), TableBytes({kPrompt}) +
                               TableBytes({kPrompt, kSecret}) +
                               TableBytes({kSecret}));
  EXPECT_NE(a->table(), b->table());
  EXPECT_NE(b->table(), c->table());
  // Texts whose concatenations agree are still different sets.
  Detector d = MustIntern(store, {"ab", "c"});
  Detector e = MustIntern(store, {"a", "bc"});
  EXPECT_NE(d->table(), e->table());
}

TEST(ProtectedTextStore, MessagesNumberTextsAsEachRunGaveThem) {
  ProtectedTextStore store;
  Detector forward = MustIntern(store, {kPrompt, kSecret});
  Detector reverse = MustIntern(store, {kSecret, kPrompt});
  Detector doubled = MustIntern(store, {kSecret, kSecret, kPrompt});
  ASSERT_EQ(forward->table(), reverse->table());
  const std::string leak_secret = "x " + kSecret.substr(50, 40) + " y";
  const std::string leak_prompt = "x " + kPrompt.substr(9000, 40) + " y";
  const std::vector<std::tuple<Detector, std::string, std::string>> cases = {
      {forward, leak_secret, "#1 "}, {forward, leak_prompt, "#0 "},
      {reverse, leak_secret, "#0 "}, {reverse, leak_prompt, "#1 "},
      {doubled, leak_secret, "#0 "}, {doubled, leak_prompt, "#2 "},
  };
  for (const auto& [detector, argument, number] : cases) {
    auto v = detector->Check(argument);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->code, "argument_leak");
    EXPECT_THAT(v->message, HasSubstr("protected text " + number));
  }
  EXPECT_FALSE(forward->Check(RandomText(500, 9)).has_value());
}

// A shared table decides exactly as a run's own table would.
TEST(ProtectedTextStore, SharedTablesAgreeWithOwnTables) {
  std::mt19937 rng(5);
  ProtectedTextStore store;
  const std::vector<std::string> pool = {kSecret, kOther, RandomText(64, 4),
                                         "short", ""};
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> texts;
    for (int k = rng() % 4; k >= 0; --k) texts.push_back(pool[rng() % 5]);
    Detector shared = MustIntern(store, texts);
    const policy::LeakDetector own(texts);
    for (int q = 0; q < 10; ++q) {
      const std::string& from = pool[rng() % 3];
      std::string arg = RandomText(20 + rng() % 50, 100 + round * 10 + q);
      if (q % 2 == 0) arg += from.substr(rng() % 20, 32 + rng() % 10);
      auto a = shared->Check(arg);
      auto b = own.Check(arg);
      ASSERT_EQ(a.has_value(), b.has_value()) << round;
      if (a.has_value()) {
        EXPECT_EQ(a->message, b->message);
      }
    }
  }
}

TEST(ProtectedTextStore, BudgetRefusesNewSetsNotHeldOnes) {
  ProtectedTextStore store(TableBytes({kPrompt}) + TableBytes({kSecret}));
  Detector prompt = MustIntern(store, {kPrompt});
  Detector secret = MustIntern(store, {kSecret});
  absl::StatusOr<Detector> other = store.Intern({kOther});
  EXPECT_EQ(other.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(other.status().message(),
              AllOf(HasSubstr("--max_protected_text_bytes="),
                    HasSubstr("close finished runs")));
  EXPECT_EQ(store.tables(), 2u);  // Nothing left behind by the refusal.
  // Sets already held cost nothing more, in any order.
  std::vector<Detector> more;
  for (int i = 0; i < 100; ++i) more.push_back(MustIntern(store, {kPrompt}));
  // Once every run holding a set is gone, its bytes serve others.
  prompt.reset();
  EXPECT_FALSE(store.Intern({kOther}).ok());  // `more` still holds it.
  more.clear();
  EXPECT_TRUE(store.Intern({kOther}).ok());
}

TEST(ProtectedTextStore, NoTextsNoTable) {
  ProtectedTextStore store(0);
  absl::StatusOr<Detector> none = store.Intern({});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
  EXPECT_EQ(store.Intern({"x"}).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(ProtectedTextStore, TablesMayOutliveTheStore) {
  Detector kept;
  {
    ProtectedTextStore store;
    kept = MustIntern(store, {kSecret});
  }
  EXPECT_TRUE(kept->Check(kSecret).has_value());
}

TEST(ProtectedTextStore, ConcurrentInternAndReleaseBalance) {
  ProtectedTextStore store;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Detector> held;
      for (int i = 0; i < 200; ++i) {
        // Half the threads share sets, half make their own.
        const std::string text = t % 2 == 0
                                     ? kSecret.substr(0, 40 + i % 7)
                                     : absl::StrCat(t, "-", i, "-", kSecret);
        absl::StatusOr<Detector> d = store.Intern({text, kSecret});
        ASSERT_TRUE(d.ok()) << d.status();
        ASSERT_TRUE((*d)->Check(text).has_value());
        held.push_back(*d);
        if (held.size() > 5) held.erase(held.begin());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(store.bytes(), 0u);
  EXPECT_EQ(store.tables(), 0u);
}

// Through the registry: runs share, closed runs give the bytes back, and a
// refused OpenRun leaves nothing behind.
TEST(ProtectedTextsInRuns, ManyRunsOneTextThenClosed) {
  Manifest m;
  m.tools.push_back(ToolSpec{"t", "", Json(true)});
  auto snapshot = Snapshot::Compile(m, "test");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  RunRegistryOptions options;
  options.max_protected_text_bytes = TableBytes({kPrompt}) + 1000;
  RunRegistry runs(options);
  std::vector<OpenedRun> opened;
  for (int i = 0; i < 1000; ++i) {
    auto run = runs.Open(*snapshot, "m", {}, {}, {kPrompt});
    ASSERT_TRUE(run.ok()) << i << ": " << run.status();
    opened.push_back(*std::move(run));
  }
  EXPECT_EQ(runs.protected_text_bytes(), TableBytes({kPrompt}));
  EXPECT_EQ(runs.protected_text_sets(), 1u);
  auto refused = runs.Open(*snapshot, "m", {}, {}, {kOther});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(runs.size(), 1000u);
  for (OpenedRun& run : opened) {
    ASSERT_TRUE(runs.Close(run.run->id(), run.token).ok());
  }
  opened.clear();
  EXPECT_EQ(runs.protected_text_bytes(), 0u);
  EXPECT_EQ(runs.protected_text_sets(), 0u);
  auto now_fits = runs.Open(*snapshot, "m", {}, {}, {kOther});
  EXPECT_TRUE(now_fits.ok()) << now_fits.status();
}

}  // namespace
}  // namespace toolgate
