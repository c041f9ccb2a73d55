// The snapshot store is bounded and never refuses service because of old
// snapshots (issue 11, "Bounded state"): least-recently-used snapshots go
// first, pinned ones and those an admin or --manifests named never, and a
// store those alone fill says so with the numbers.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/snapshot/snapshot.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// One tool named `tool`; `pad` bytes of description (held twice: in the
// tool and in the canonical manifest) make its compiled size
// predictable (the shared input schema is then a rounding error).
std::string Manifest(const std::string& tool, size_t pad = 0) {
  return absl::StrCat(R"([{"type":"function","function":{"name":")", tool,
                      R"(","description":")", std::string(pad, 'd'),
                      R"(","parameters":{"type":"object"}}}])");
}

// kCreate as a caller without the admin role (NameRule::kClaim), kAdmin as
// an admin (kRebind), kLoad as --manifests.
enum class Op {
  kCreate,
  kAdmin,
  kLoad,
  kGet,
  kGetByName,
  kPin,
  kUnpin,
  kDelete
};

struct Step {
  Op op;
  std::string tool;  // Which manifest (Manifest(tool)).
  absl::StatusCode want = absl::StatusCode::kOk;
  std::string name;  // For kCreate / kLoad / kGetByName.
};

struct Case {
  std::string label;
  size_t max_snapshots = 3;
  size_t max_bytes = size_t{256} << 20;
  size_t pad = 0;
  std::vector<Step> steps;
  std::set<std::string> held;  // Tools whose snapshot is held at the end.
  uint64_t evicted = 0;
};

absl::Status Apply(SnapshotStore& store, const Case& c, const Step& step,
                   std::map<std::string, std::string>& ids) {
  const std::string manifest = Manifest(step.tool, c.pad);
  switch (step.op) {
    case Op::kCreate:
    case Op::kAdmin:
    case Op::kLoad: {
      const NameRule rule = step.op == Op::kLoad    ? NameRule::kLoad
                            : step.op == Op::kAdmin ? NameRule::kRebind
                                                    : NameRule::kClaim;
      auto s = store.Create(manifest, ManifestFormat::kAuto, step.name, rule);
      if (s.ok()) ids[step.tool] = (*s)->id();
      return s.status();
    }
    case Op::kGet:
      return store.Get(ids[step.tool]).status();
    case Op::kGetByName:
      return store.GetByName(step.name).status();
    case Op::kPin:
      return store.Pin(ids[step.tool]);
    case Op::kUnpin:
      store.Unpin(ids[step.tool]);
      return absl::OkStatus();
    case Op::kDelete:
      return store.Delete(ids[step.tool]);
  }
  return absl::InternalError("unknown op");
}

TEST(SnapshotStoreBounds, EvictsLeastRecentlyUsedUnpinnedUnloaded) {
  const absl::StatusCode kOk = absl::StatusCode::kOk;
  const absl::StatusCode kFull = absl::StatusCode::kResourceExhausted;
  const absl::StatusCode kPrecondition = absl::StatusCode::kFailedPrecondition;
  const absl::StatusCode kNotFound = absl::StatusCode::kNotFound;
  const std::vector<Case> cases = {
      {"oldest goes first",
       3,
       size_t{256} << 20,
       0,
       {{Op::kCreate, "a"},
        {Op::kCreate, "b"},
        {Op::kCreate, "c"},
        {Op::kCreate, "d"}},
       {"b", "c", "d"},
       1},
      {"a lookup by id counts as use",
       3,
       size_t{256} << 20,
       0,
       {{Op::kCreate, "a"},
        {Op::kCreate, "b"},
        {Op::kCreate, "c"},
        {Op::kGet, "a"},
        {Op::kCreate, "d"}},
       {"a", "c", "d"},
       1},
      {"a lookup by name counts as use",
       3,
       size_t{256} << 20,
       0,
       {{Op::kCreate, "a", kOk, "alpha"},
        {Op::kCreate, "b"},
        {Op::kCreate, "c"},
        {Op::kGetByName, "", kOk, "alpha"},
        {Op::kCreate, "d"}},
       {"a", "c", "d"},
       1},
      {"creating the same manifest again counts as use",
       2,
       size_t{256} << 20,
       0,
       {{Op::kCreate, "a"},
        {Op::kCreate, "b"},
        {Op::kCreate, "a"},
        {Op::kCreate, "c"}},
       {"a", "c"},
       1},
      {"pinned snapshots stay; unpinned they are evictable again",
       2,
       size_t{256} << 20,
       0,
       {{Op::kCreate, "a"},
        {Op::kPin, "a"},
        {Op::kCreate, "b"},
        {Op::kCreate, "c"},
        {Op::kUnpin, "a"},
        {Op::kCreate, "d"},
        {Op::kCreate, "e"}},
       {"d", "e"},
       3},
      {"loaded snapshots stay",
       2,
       size_t{256} << 20,
       0,
       {{Op::kLoad, "a", kOk, "tickets"},
        {Op::kCreate, "b"},
        {Op::kCreate, "c"},
        {Op::kCreate, "d"},
        {Op::kGetByName, "", kOk, "tickets"}},
       {"a", "d"},
       2},
      {"admin-named snapshots stay",
       2,
       size_t{256} << 20,
       0,
       {{Op::kAdmin, "a", kOk, "crm"},
        {Op::kCreate, "b"},
        {Op::kCreate, "c"},
        {Op::kAdmin, "d"},
        {Op::kGetByName, "", kOk, "crm"}},
       {"a", "d"},
       2},
      {"an admin re-pointing the name: the old snapshot becomes evictable",
       2,
       size_t{256} << 20,
       0,
       {{Op::kAdmin, "a", kOk, "crm"},
        {Op::kAdmin, "b", kOk, "crm"},
        {Op::kCreate, "c"}},
       {"b", "c"},
       1},
      {"admin-named and loaded alone fill the store",
       2,
       size_t{256} << 20,
       0,
       {{Op::kLoad, "a", kOk, "tickets"},
        {Op::kAdmin, "b", kOk, "crm"},
        {Op::kCreate, "c", kFull},
        {Op::kAdmin, "c", kFull},
        {Op::kDelete, "b"},
        {Op::kCreate, "c"}},
       {"a", "c"},
       0},
      {"a reload re-points the name: the old snapshot becomes evictable",
       2,
       size_t{256} << 20,
       0,
       {{Op::kLoad, "a", kOk, "tickets"},
        {Op::kLoad, "b", kOk, "tickets"},
        {Op::kCreate, "c"}},
       {"b", "c"},
       1},
      {"evicted names unbind",
       1,
       size_t{256} << 20,
       0,
       {{Op::kCreate, "a", kOk, "alpha"},
        {Op::kCreate, "b"},
        {Op::kGetByName, "", kNotFound, "alpha"}},
       {"b"},
       1},
      {"pinned and loaded alone fill the store",
       2,
       size_t{256} << 20,
       0,
       {{Op::kLoad, "a", kOk, "tickets"},
        {Op::kCreate, "b"},
        {Op::kPin, "b"},
        {Op::kCreate, "c", kFull},
        {Op::kCreate, "b"}},
       {"a", "b"},
       0},
      {"the byte limit evicts too",
       100,
       50000,
       10000,
       {{Op::kCreate, "a"}, {Op::kCreate, "b"}, {Op::kCreate, "c"}},
       {"b", "c"},
       1},
      {"a snapshot bigger than the byte limit is refused",
       100,
       5000,
       10000,
       {{Op::kCreate, "a", kFull}},
       {},
       0},
      {"delete: absent, pinned, loaded, then fine",
       10,
       size_t{256} << 20,
       0,
       {{Op::kLoad, "a", kOk, "tickets"},
        {Op::kCreate, "b", kOk, "beta"},
        {Op::kPin, "b"},
        {Op::kDelete, "a", kPrecondition},
        {Op::kDelete, "b", kPrecondition},
        {Op::kUnpin, "b"},
        {Op::kDelete, "b"},
        {Op::kDelete, "b", kNotFound},
        {Op::kGetByName, "", kNotFound, "beta"}},
       {"a"},
       0},
      {"delete after a reload re-pointed the loaded name",
       10,
       size_t{256} << 20,
       0,
       {{Op::kLoad, "a", kOk, "tickets"},
        {Op::kLoad, "b", kOk, "tickets"},
        {Op::kDelete, "a"},
        {Op::kGetByName, "", kOk, "tickets"}},
       {"b"},
       0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    SnapshotStore store(
        SnapshotStoreOptions{JsonLimits{}, c.max_snapshots, c.max_bytes});
    std::map<std::string, std::string> ids;
    for (size_t i = 0; i < c.steps.size(); ++i) {
      const absl::Status s = Apply(store, c, c.steps[i], ids);
      EXPECT_EQ(s.code(), c.steps[i].want) << "step " << i << ": " << s;
    }
    std::set<std::string> held;
    for (const auto& [tool, id] : ids) {
      if (store.Get(id).ok()) held.insert(tool);
    }
    EXPECT_EQ(held, c.held);
    EXPECT_EQ(store.size(), c.held.size());
    EXPECT_EQ(store.evicted(), c.evicted);
  }
}

TEST(SnapshotStoreBounds, BytesFollowWhatIsHeld) {
  SnapshotStore store(SnapshotStoreOptions{JsonLimits{}, 2});
  auto a = store.Create(Manifest("a", 4000), ManifestFormat::kAuto, "");
  ASSERT_TRUE(a.ok());
  const size_t one = store.bytes();
  EXPECT_GT(one, 4000u);
  ASSERT_TRUE(
      store.Create(Manifest("b", 4000), ManifestFormat::kAuto, "").ok());
  ASSERT_TRUE(
      store.Create(Manifest("c", 4000), ManifestFormat::kAuto, "").ok());
  EXPECT_EQ(store.size(), 2u);
  EXPECT_LT(store.bytes(), 2 * one + 1000);  // a's bytes went with it.
  ASSERT_TRUE(store.Delete((*store.ListAfter("", 1)[0]).id()).ok());
  EXPECT_LT(store.bytes(), one + 1000);
}

TEST(SnapshotStoreBounds, FullStoreSaysWhatHoldsItAndTheLimits) {
  SnapshotStore store(SnapshotStoreOptions{JsonLimits{}, 2, 1 << 20});
  auto a = store.Create(Manifest("a"), ManifestFormat::kAuto, "");
  auto b =
      store.Create(Manifest("b"), ManifestFormat::kAuto, "x", NameRule::kLoad);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(store.Pin((*a)->id()).ok());
  auto full = store.Create(Manifest("c"), ManifestFormat::kAuto, "");
  EXPECT_EQ(full.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(
      full.status().message(),
      AllOf(HasSubstr("2 snapshots of " + std::to_string(store.bytes()) +
                      " bytes"),
            HasSubstr("pinned by open runs, named by an admin or loaded from "
                      "--manifests"),
            HasSubstr("--max_snapshots=2"),
            HasSubstr("--max_snapshot_bytes=1048576")));
  EXPECT_EQ(store.evicted(), 0u);
}

}  // namespace
}  // namespace toolgate
