// Snapshots: a manifest compiled once into immutable, shareable form.
//
// A Snapshot owns the compiled input (and output) schema of every tool, or,
// for tools past its memory budget (ResidentBudget), what compiles them
// again on use. It is content-addressed (id = "sha256:" + digest of the
// canonical manifest), so the same manifest yields the same id on any replica,
// and it never changes after Compile: runs pin it by shared_ptr for their whole
// life.
//
// Thread-safety: Snapshot is immutable and safe to share. SnapshotStore is
// internally synchronized.
#ifndef TOOLGATE_CORE_SNAPSHOT_SNAPSHOT_H_
#define TOOLGATE_CORE_SNAPSHOT_SNAPSHOT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/manifest/manifest.h"
#include "core/schema/schema.h"
#include "core/snapshot/tool_schema.h"
#include "core/util/cancel.h"

namespace toolgate {

class SnapshotBacking;  // snapshot_backing.h

struct CompiledTool {
  // The tool as declared, except its schema documents (input_schema,
  // output_schema: null once compiled; canonical_json() keeps their text).
  ToolSpec spec;
  // Identical schemas with identical options are shared process-wide.
  // Either the compiled program (resident) or, for a tool past the
  // snapshot's resident budget, a LazyToolSchema that compiles it on use
  // (tool_schema.h): both validate alike, so callers need not know which.
  std::shared_ptr<const schema::Schema> input;
  std::shared_ptr<const schema::Schema> output;  // Null when none declared.
};

// How many compiled programs a snapshot keeps resident. A manifest of all-
// new schemas compiles to ~20-40 heap bytes per manifest byte, so keeping
// every program would let each manifest cost tens of times its size;
// programs past the budget are compiled again on use (SchemaPool).
struct ResidentBudget {
  // The manifest's bytes as submitted; 0: its canonical JSON's size.
  size_t manifest_bytes = 0;
  // Programs stay resident while compiled_bytes(), counting each resident
  // program whole (not its share), stays within this many times
  // manifest_bytes, ...
  size_t times_manifest = 4;
  // ... or, however little that leaves, while the resident programs add up
  // to at most this: a small manifest keeps all of its programs.
  size_t min_program_bytes = size_t{64} << 10;
};

// What compiling one manifest may cost (CreateSnapshot, reload): the
// Schema::compile_work() of the schemas it compiles, summed. Each schema
// is bounded by itself (CompileOptions::max_compiled_bytes); this bounds
// how many times a manifest can multiply that: many small tool schemas
// that each $ref one large document compile the document into each, and
// a schema whose program was dropped (not resident) is compiled again
// when another tool repeats it. Past it the manifest is refused
// (INVALID_ARGUMENT, "schema_too_complex").
struct CompileBudget {
  // 64 MiB is at most ~0.5 s of CPU (Schema::compile_work()).
  size_t min_bytes = size_t{64} << 20;
  // Or this many times the manifest's bytes (ResidentBudget's), if more:
  // real manifests cost 40-60 per byte (programs of 20-40 bytes per byte,
  // and 128 per JSON value, one per ~8 bytes).
  size_t times_manifest = 128;
};

class Snapshot {
 public:
  // Compiles every tool's schemas; the first schema that does not compile
  // refuses the whole manifest (INVALID_ARGUMENT naming tool and pointer).
  // Checks `cancel` (if given) between tools: CANCELLED/DEADLINE_EXCEEDED.
  // Every schema is compiled (and its warnings kept); then, in tool name
  // order, a tool's programs stay resident while they fit `budget` (first
  // fit), and the others are dropped and compiled again on use. Compiling
  // more than `compile` allows refuses the manifest.
  static absl::StatusOr<std::shared_ptr<const Snapshot>> Compile(
      Manifest manifest, std::string name, const CancelToken* cancel = nullptr,
      ResidentBudget budget = ResidentBudget(),
      CompileBudget compile = CompileBudget());

  const std::string& id() const { return id_; }
  const std::string& name() const { return name_; }
  ManifestFormat source_format() const { return source_format_; }
  const std::string& canonical_json() const { return source_->canonical_json; }
  const RunSettings& settings() const { return settings_; }
  const std::vector<std::string>& tool_names() const { return tool_names_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Exact, case-sensitive lookup; nullptr when absent.
  const CompiledTool* FindTool(absl::string_view name) const;

  // Up to `max` tool names close to `name` (case-insensitive equality or a
  // small edit distance), nearest first, for hints only: never used to
  // resolve a call. Bounded work: a name longer than kMaxToolNameBytes gets
  // none, a candidate whose length alone puts it too far is skipped, and
  // the distance is computed in a band that stops once it exceeds the
  // cutoff. Stops early (with what it found) once `cancel` says so.
  std::vector<std::string> NearestToolNames(
      absl::string_view name, size_t max = 3,
      const CancelToken* cancel = nullptr) const;

  // Approximate heap bytes this snapshot holds: its canonical manifest,
  // tool table, and resident compiled schemas (not the programs of lazy
  // tools, which SchemaPool holds and bounds). A compiled schema or regex
  // shared with other snapshots (see CompiledTool) counts its size divided by
  // its users, so the figures of all live snapshots add up to what they hold
  // together; one snapshot's figure can therefore grow when another that
  // shared its schemas is released. Counted from container capacities with
  // glibc's allocation sizes (core/util/heap_bytes.h); tracks mallinfo2
  // within ~10% on bench/memory's generated manifest (bench/README.md).
  size_t compiled_bytes() const;

  // How many of the tools' schemas are resident / compiled on use.
  size_t resident_schemas() const;
  size_t lazy_schemas() const { return source_->lazy.size(); }

 private:
  Snapshot() = default;
  // The snapshot's own bytes without its tools' entries, resident programs
  // and lazy schemas.
  size_t TableBytes() const;
  // What `budget` leaves for resident programs once the canonical JSON,
  // tool table and lazy schemas of `manifest` are counted (Compile calls
  // it with canonical JSON, documents and reserved tables in place).
  size_t ProgramBudget(const Manifest& manifest,
                       const ResidentBudget& budget) const;
  // What `s` (a tool's input or output) holds by itself: a resident
  // program's share, nothing for a lazy schema (counted with source_).
  size_t ResidentShare(const std::shared_ptr<const schema::Schema>& s) const;

  std::string id_;
  std::string name_;
  ManifestFormat source_format_ = ManifestFormat::kAuto;
  // Canonical JSON, $ref documents and lazy schemas (tool_schema.h).
  std::shared_ptr<SchemaSource> source_;
  RunSettings settings_;
  std::vector<std::string> tool_names_;
  std::vector<std::string> warnings_;
  std::vector<CompiledTool> tools_;  // Sorted by spec.name.
};

// Who may point a snapshot name at a snapshot. A name is what agents and
// mesh routes resolve, so re-pointing it silently would let any caller
// swap a permissive manifest in under a name others trust. A name bound
// under kRebind or kLoad is also never freed by eviction (SnapshotStore):
// otherwise a caller could flood the store until the trusted snapshot was
// evicted, then claim its name.
enum class NameRule {
  kClaim,   // Bind a free name; a name bound to another snapshot is refused.
  kRebind,  // Admin: may also re-point a name bound by CreateSnapshot.
  kLoad,    // --manifests (start-up or reload): owns the name; only kLoad
            // re-points a loaded name.
};

struct SnapshotStoreOptions {
  JsonLimits limits;
  size_t max_snapshots = 1024;
  // Summed Snapshot::compiled_bytes(), each as measured when it was added.
  size_t max_snapshot_bytes = size_t{256} << 20;
  // Resident programs per snapshot; manifest_bytes is set by Create.
  ResidentBudget resident;
  CompileBudget compile;
};

// The snapshots this replica holds, bounded by count and bytes.
//
// Adding a snapshot to a full store first evicts least-recently-used
// snapshots that are neither pinned (by an open run: see Pin) nor held by
// a protected name: one bound by an admin (NameRule::kRebind) or loaded
// from --manifests (kLoad). An evicted snapshot's names (all bound by
// kClaim) unbind. So a protected name never becomes free, whatever others
// create: it changes only by admin re-pointing, Delete, or reload. When
// pinned and protected snapshots alone fill the store, Create is
// RESOURCE_EXHAUSTED with the numbers. "Used" is being created or deduplicated,
// looked up by id or name, pinned or unpinned. A lookup already holds the
// store's lock, so marking the entry used is one counter increment under it,
// not another lock round trip or list splice; eviction scans the evictable
// entries instead (only when full, and cheap next to compiling a manifest).
//
// Thread-safety: internally synchronized; all methods may be called
// concurrently. Lock order: a caller may hold its own lock while calling in
// (the run registry does); the store never calls out.
class SnapshotStore {
 public:
  explicit SnapshotStore(SnapshotStoreOptions options = {})
      : options_(options) {}

  // Shares snapshots and names with other replicas through `backing`
  // (snapshot_backing.h; it must outlive the store). Set it before any
  // other call; null (the default) keeps everything in this process.
  // With a backing: Create publishes the manifest and binds its name in
  // the backing (which checks the name rules atomically); names always
  // resolve there, so a re-pointed name never resolves from a local copy;
  // Get of an id not held here fetches its manifest, compiles it (once
  // per id at a time) and keeps it; an id held here is served from here
  // even if deleted elsewhere meanwhile (content-addressed: it is still
  // exactly that manifest). Local entries are then a cache: any unpinned
  // one may be evicted. Pins here are this replica's (runs of the memory
  // registry); Delete also asks the backing, which refuses while a run
  // open on any replica pins the id.
  void SetBacking(SnapshotBacking* backing) { backing_ = backing; }

  // Parses, compiles and stores a manifest; an identical manifest returns
  // the snapshot already held. A non-empty `name` is bound to it under
  // `rule`, and only after every other check passed: a name held by
  // another snapshot is PERMISSION_DENIED (kClaim) or FAILED_PRECONDITION
  // (a loaded name, for anything but kLoad); names that could be taken for
  // an id ("sha256:...") are INVALID_ARGUMENT. RESOURCE_EXHAUSTED when
  // evicting every evictable snapshot would not make room.
  absl::StatusOr<std::shared_ptr<const Snapshot>> Create(
      absl::string_view manifest_json, ManifestFormat format,
      absl::string_view name, NameRule rule = NameRule::kClaim,
      const CancelToken* cancel = nullptr);

  // NOT_FOUND when no snapshot has that id (or name).
  absl::StatusOr<std::shared_ptr<const Snapshot>> Get(
      absl::string_view id) const;
  absl::StatusOr<std::shared_ptr<const Snapshot>> GetByName(
      absl::string_view name) const;

  // Removes a snapshot and unbinds every name pointing at it (admin-bound
  // ones included: only admins may call it). NOT_FOUND if absent;
  // FAILED_PRECONDITION while an open run pins it or a name loaded from
  // --manifests points at it (that changes only by reload).
  absl::Status Delete(absl::string_view id);
  // With a backing: another replica deleted `id`; the compiled copy held
  // here goes unless a run of this replica pins it (it keeps its copy, as
  // such a run would have refused the delete in one process).
  void ForgetDeleted(absl::string_view id);

  // An open run holds `id`: never evicted or deleted until as many Unpin
  // calls. NOT_FOUND if the snapshot is no longer held (evicted or deleted
  // since the caller looked it up). Counted here rather than read from
  // shared_ptr::use_count, which in-flight calls raise too.
  absl::Status Pin(absl::string_view id);
  void Unpin(absl::string_view id);

  // Up to `max` snapshots in id order, from the first id after `after_id`
  // ("" = from the start): ids only sort after one another, so a snapshot
  // added meanwhile never shifts the ones already listed.
  std::vector<std::shared_ptr<const Snapshot>> ListAfter(
      absl::string_view after_id, size_t max) const;

  // How many snapshots are held (the toolgate_snapshots gauge), their
  // counted bytes, and how many were evicted so far
  // (toolgate_snapshots_evicted_total).
  size_t size() const;
  size_t bytes() const;
  uint64_t evicted() const;

 private:
  struct Entry {
    std::shared_ptr<const Snapshot> snapshot;
    size_t bytes = 0;                // compiled_bytes() when added.
    mutable uint64_t last_used = 0;  // A tick of used_clock_.
    size_t pins = 0;
    size_t loaded_names = 0;         // Names bound to it by NameRule::kLoad.
    size_t admin_names = 0;          // ... by NameRule::kRebind.
    std::vector<std::string> names;  // Every name bound to it.
    // Never evicted: pinned, or a name others trust resolves to it.
    bool Evictable() const {
      return pins == 0 && loaded_names == 0 && admin_names == 0;
    }
  };
  struct NameBinding {
    std::string id;
    // The strongest rule that bound the name to `id` (kLoad over kRebind
    // over kClaim): what may re-point it, and whether it holds `id`.
    NameRule rule = NameRule::kClaim;
  };
  using EntryMap = std::map<std::string, Entry, std::less<>>;

  void Touch(const Entry& entry) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    entry.last_used = ++used_clock_;
  }
  // Whether `rule` lets `name` point at `id`; OK for an empty name.
  absl::Status CheckName(absl::string_view name, const std::string& id,
                         NameRule rule) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Points `name` at `id` (CheckName passed); no-op for an empty name.
  void BindName(absl::string_view name, const std::string& id, NameRule rule)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds `delta` (+1/-1) to the count of names bound under `rule` that
  // `entry` keeps (loaded_names, admin_names; kClaim counts none).
  static void CountName(Entry& entry, NameRule rule, int delta);
  // Evicts least-recently-used evictable entries until one more of
  // `bytes` fits; evicts nothing and says why when it cannot fit.
  absl::Status MakeRoom(size_t bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Erase(EntryMap::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::shared_ptr<const Snapshot>> Insert(
      std::shared_ptr<const Snapshot> snapshot, size_t bytes,
      absl::string_view name, NameRule rule) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // With a backing (snapshot_store_shared.cc).
  absl::StatusOr<std::shared_ptr<const Snapshot>> CreateShared(
      absl::string_view manifest_json, ManifestFormat format,
      Manifest manifest, const std::string& id, absl::string_view name,
      NameRule rule, const CancelToken* cancel);
  absl::StatusOr<std::shared_ptr<const Snapshot>> GetShared(
      absl::string_view id);
  absl::StatusOr<std::shared_ptr<const Snapshot>> FetchAndCompile(
      const std::string& id);
  absl::Status DeleteShared(absl::string_view id);
  std::vector<std::shared_ptr<const Snapshot>> ListShared(
      absl::string_view after_id, size_t max);
  // The local entry of `id` (touched), or null.
  std::shared_ptr<const Snapshot> Held(absl::string_view id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One fetch-and-compile of an id in progress; later callers wait on it.
  struct Flight {
    absl::Notification done;
    absl::StatusOr<std::shared_ptr<const Snapshot>> result;
  };

  const SnapshotStoreOptions options_;
  SnapshotBacking* backing_ = nullptr;  // Set before use: read unlocked.
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Flight>, std::less<>> flights_
      ABSL_GUARDED_BY(mu_);
  EntryMap by_id_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, NameBinding, std::less<>> names_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t evicted_ ABSL_GUARDED_BY(mu_) = 0;
  mutable uint64_t used_clock_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_SNAPSHOT_SNAPSHOT_H_
