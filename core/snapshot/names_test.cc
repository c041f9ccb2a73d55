// Snapshot names are what agents and mesh routes resolve: they must not be
// re-pointed by whoever calls CreateSnapshot next (hardening finding 3).
#include <string>

#include "core/snapshot/snapshot.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

std::string Manifest(const std::string &tool) {
  return R"([{"type":"function","function":{"name":")" + tool +
         R"(","parameters":{"type":"object"}}}])";
}

std::string IdByName(const SnapshotStore &store, const std::string &name) {
  auto s = store.GetByName(name);
  return s.ok() ? (*s)->id() : "";
}

TEST(SnapshotNames, LoadedNameChangesOnlyByReload) {
  SnapshotStore store;
  auto loaded = store.Create(Manifest("strict"), ManifestFormat::kAuto,
                             "tickets", NameRule::kLoad);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  for (NameRule rule : {NameRule::kClaim, NameRule::kRebind}) {
    auto hijack = store.Create(Manifest("permissive"), ManifestFormat::kAuto,
                               "tickets", rule);
    EXPECT_EQ(hijack.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(IdByName(store, "tickets"), (*loaded)->id());
  }
  auto reloaded = store.Create(Manifest("v2"), ManifestFormat::kAuto, "tickets",
                               NameRule::kLoad);
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(IdByName(store, "tickets"), (*reloaded)->id());
  // The old snapshot stays reachable by id (runs pin it).
  EXPECT_TRUE(store.Get((*loaded)->id()).ok());
}

TEST(SnapshotNames, ClaimedNameNeedsAdminToRebind) {
  SnapshotStore store;
  auto first = store.Create(Manifest("a"), ManifestFormat::kAuto, "crm");
  ASSERT_TRUE(first.ok());
  auto other = store.Create(Manifest("b"), ManifestFormat::kAuto, "crm");
  EXPECT_EQ(other.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(IdByName(store, "crm"), (*first)->id());
  // The same manifest under its own name again is no re-binding.
  EXPECT_TRUE(store.Create(Manifest("a"), ManifestFormat::kAuto, "crm").ok());
  auto admin = store.Create(Manifest("b"), ManifestFormat::kAuto, "crm",
                            NameRule::kRebind);
  ASSERT_TRUE(admin.ok());
  EXPECT_EQ(IdByName(store, "crm"), (*admin)->id());
}

TEST(SnapshotNames, DedupeFastPathNeverBindsAroundTheChecks) {
  SnapshotStore store(SnapshotStoreOptions{JsonLimits{}, 2});
  auto held = store.Create(Manifest("a"), ManifestFormat::kAuto, "");
  ASSERT_TRUE(held.ok());
  auto loaded = store.Create(Manifest("b"), ManifestFormat::kAuto, "tickets",
                             NameRule::kLoad);
  ASSERT_TRUE(loaded.ok());
  // An identical manifest is found without compiling; its name must still
  // pass the binding rules.
  auto hijack = store.Create(Manifest("a"), ManifestFormat::kAuto, "tickets",
                             NameRule::kRebind);
  EXPECT_EQ(hijack.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(IdByName(store, "tickets"), (*loaded)->id());
  // Store full of what may not go (one pinned, one loaded): a new
  // manifest is refused and its name is not bound.
  ASSERT_TRUE(store.Pin((*held)->id()).ok());
  auto full = store.Create(Manifest("c"), ManifestFormat::kAuto, "x",
                           NameRule::kRebind);
  EXPECT_EQ(full.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(IdByName(store, "x"), "");
}

TEST(SnapshotNames, NameThatLooksLikeAnIdIsRefused) {
  SnapshotStore store;
  auto s = store.Create(Manifest("a"), ManifestFormat::kAuto, "sha256:0123abcd",
                        NameRule::kLoad);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace toolgate
