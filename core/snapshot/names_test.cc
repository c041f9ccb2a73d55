// Snapshot names are what agents and mesh routes resolve: they must not be
// re-pointed by whoever calls CreateSnapshot next (hardening finding 3).
#include <functional>
#include <string>

#include "core/snapshot/snapshot.h"
#include "gmock/gmock.h"
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

// Hardening round 2, item 1: a caller without the admin role floods a
// small store with junk until the snapshot an admin (or --manifests) named
// would be the least recently used, then claims the name with a permissive
// manifest. Each way a trusted name can come to be bound is tried; none
// may ever resolve to the attacker's snapshot, under any store pressure.
struct TrustedName {
  std::string label;
  // Binds "crm" in `store`; returns the id it must keep resolving to.
  std::function<std::string(SnapshotStore &)> bind;
};

std::string Bound(SnapshotStore &store, const std::string &tool,
                  NameRule rule) {
  auto s = store.Create(Manifest(tool), ManifestFormat::kAuto, "crm", rule);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? (*s)->id() : "";
}

const TrustedName kTrustedNames[] = {
    {"admin CreateSnapshot",
     [](SnapshotStore &s) { return Bound(s, "strict", NameRule::kRebind); }},
    {"loaded from --manifests",
     [](SnapshotStore &s) { return Bound(s, "strict", NameRule::kLoad); }},
    {"reload (SIGHUP) re-pointed it",
     [](SnapshotStore &s) {
       Bound(s, "strict", NameRule::kLoad);
       return Bound(s, "strict_v2", NameRule::kLoad);
     }},
    {"an admin re-pointed it",
     [](SnapshotStore &s) {
       Bound(s, "strict", NameRule::kRebind);
       return Bound(s, "strict_v2", NameRule::kRebind);
     }},
    {"an admin re-pointed a name an agent had claimed",
     [](SnapshotStore &s) {
       Bound(s, "agent", NameRule::kClaim);
       return Bound(s, "strict", NameRule::kRebind);
     }},
    {"an admin named what an agent had named (same manifest)",
     [](SnapshotStore &s) {
       Bound(s, "strict", NameRule::kClaim);
       return Bound(s, "strict", NameRule::kRebind);
     }},
    {"an agent named it again after the admin (same manifest)",
     [](SnapshotStore &s) {
       const std::string id = Bound(s, "strict", NameRule::kRebind);
       Bound(s, "strict", NameRule::kClaim);
       return id;
     }},
    {"the admin's snapshot is also held under the agent's own name",
     [](SnapshotStore &s) {
       const std::string id = Bound(s, "strict", NameRule::kRebind);
       EXPECT_TRUE(s.Create(Manifest("strict"), ManifestFormat::kAuto, "mine",
                            NameRule::kClaim)
                       .ok());
       return id;
     }},
};

TEST(SnapshotNames, TrustedNamesSurviveAJunkFlood) {
  for (const TrustedName &t : kTrustedNames) {
    SCOPED_TRACE(t.label);
    SnapshotStore store(SnapshotStoreOptions{JsonLimits{}, 4});
    const std::string trusted = t.bind(store);
    int junk = 0;
    for (int i = 0; i < 10; ++i) {
      // More junk than the store holds, with no lookup of the name between
      // (a lookup counts as use): the trusted snapshot is the oldest.
      for (int k = 0; k < 5; ++k, ++junk) {
        auto j = store.Create(Manifest("junk" + std::to_string(junk)),
                              ManifestFormat::kAuto, "", NameRule::kClaim);
        ASSERT_TRUE(j.ok()) << junk << ": " << j.status();
      }
      auto hijack =
          store.Create(Manifest("permissive" + std::to_string(i)),
                       ManifestFormat::kAuto, "crm", NameRule::kClaim);
      ASSERT_FALSE(hijack.ok()) << i;
      ASSERT_EQ(IdByName(store, "crm"), trusted) << i;
    }
    EXPECT_GT(store.evicted(), 40u);  // The flood did evict (junk only).
    EXPECT_TRUE(store.Get(trusted).ok());
  }
}

TEST(SnapshotNames, AdminCreatesUnderPressureNeverFreeATrustedName) {
  SnapshotStore store(SnapshotStoreOptions{JsonLimits{}, 3});
  const std::string crm = Bound(store, "strict", NameRule::kRebind);
  // Admin creates (named or not) evict junk, never the named snapshot.
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(store
                    .Create(Manifest("junk" + std::to_string(i)),
                            ManifestFormat::kAuto, "", NameRule::kClaim)
                    .ok());
    ASSERT_TRUE(store
                    .Create(Manifest("admin" + std::to_string(i)),
                            ManifestFormat::kAuto, "", NameRule::kRebind)
                    .ok());
    ASSERT_EQ(IdByName(store, "crm"), crm) << i;
  }
  // Trusted snapshots filling the store refuse everyone, binding nothing.
  ASSERT_TRUE(store
                  .Create(Manifest("billing"), ManifestFormat::kAuto, "billing",
                          NameRule::kRebind)
                  .ok());
  ASSERT_TRUE(store
                  .Create(Manifest("tickets"), ManifestFormat::kAuto, "tickets",
                          NameRule::kLoad)
                  .ok());
  for (NameRule rule : {NameRule::kClaim, NameRule::kRebind}) {
    auto full =
        store.Create(Manifest("more"), ManifestFormat::kAuto, "more", rule);
    EXPECT_EQ(full.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(std::string(full.status().message()),
                ::testing::HasSubstr("named by an admin"));
    EXPECT_EQ(IdByName(store, "more"), "");
  }
  EXPECT_EQ(IdByName(store, "crm"), crm);
}

TEST(SnapshotNames, OnlyDeleteOrRepointingFreesAnAdminName) {
  SnapshotStore store(SnapshotStoreOptions{JsonLimits{}, 2});
  const std::string v1 = Bound(store, "strict", NameRule::kRebind);
  const std::string v2 = Bound(store, "strict_v2", NameRule::kRebind);
  // v1 lost the name: junk may evict it now, and the name stays on v2.
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store
                    .Create(Manifest("junk" + std::to_string(i)),
                            ManifestFormat::kAuto, "", NameRule::kClaim)
                    .ok());
  }
  EXPECT_FALSE(store.Get(v1).ok());
  EXPECT_EQ(IdByName(store, "crm"), v2);
  // DeleteSnapshot (admin only) removes it and frees the name, as README
  // says; then it is an ordinary free name.
  ASSERT_TRUE(store.Delete(v2).ok());
  EXPECT_EQ(IdByName(store, "crm"), "");
  EXPECT_TRUE(store
                  .Create(Manifest("agent"), ManifestFormat::kAuto, "crm",
                          NameRule::kClaim)
                  .ok());
}

TEST(SnapshotNames, ALoadedNameOverAnAdminNameCannotBeDeleted) {
  SnapshotStore store;
  const std::string id = Bound(store, "strict", NameRule::kRebind);
  EXPECT_EQ(Bound(store, "strict", NameRule::kLoad), id);
  EXPECT_EQ(store.Delete(id).code(), absl::StatusCode::kFailedPrecondition);
  // The name stays loaded: an admin cannot re-point it.
  auto admin = store.Create(Manifest("other"), ManifestFormat::kAuto, "crm",
                            NameRule::kRebind);
  EXPECT_EQ(admin.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(SnapshotNames, NameThatLooksLikeAnIdIsRefused) {
  SnapshotStore store;
  auto s = store.Create(Manifest("a"), ManifestFormat::kAuto, "sha256:0123abcd",
                        NameRule::kLoad);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace toolgate
