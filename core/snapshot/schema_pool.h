// A byte-bounded, least-recently-used pool of compiled schemas. Two are in
// use: the process-wide pool of tool schemas compiled on use (Global(),
// below), and each Engine's inline ExtractVerdict result schemas, keyed by
// their text (--result_schema_cache_bytes). Bounded by bytes, not entries:
// schemas of equal text size can compile to programs thousands of times
// apart, so a cap on entries bounds nothing.
//
// A snapshot keeps only as many compiled programs resident as its memory
// budget allows (Snapshot::Compile); a tool past it is compiled again when
// a call uses it, and the pool keeps what was compiled that way so the next
// call of a hot tool finds it. Entries are keyed by the tool schema's
// content (its canonical text, format_assertion and $ref documents' digest:
// what the key that shares identical schemas across snapshots digests), so
// two snapshots with the same schema share one pooled program. Each entry is
// charged the schema's compiled_bytes() plus its key and bookkeeping; the least
// recently used entries go first, and a program that alone exceeds the budget
// is used for its call and not kept. A budget of 0 keeps nothing: every use
// compiles.
//
// Thread-safety: internally synchronized; Find and Insert may race freely.
#ifndef TOOLGATE_CORE_SNAPSHOT_SCHEMA_POOL_H_
#define TOOLGATE_CORE_SNAPSHOT_SCHEMA_POOL_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/schema/schema.h"

namespace toolgate {

class SchemaPool {
 public:
  // Default budget of the process-wide pool (--schema_pool_bytes).
  static constexpr size_t kDefaultMaxBytes = size_t{64} << 20;

  // The pool lazily compiled tool schemas use; its budget is set once at
  // start-up (server/options.cc) and by tests.
  static SchemaPool& Global();

  explicit SchemaPool(size_t max_bytes) : max_bytes_(max_bytes) {}
  SchemaPool(const SchemaPool&) = delete;
  SchemaPool& operator=(const SchemaPool&) = delete;

  // The program held for `key`, or null; a hit becomes most recently used.
  std::shared_ptr<const schema::Schema> Find(absl::string_view key);
  // Keeps `compiled` for `key` (a no-op when `key` is held already),
  // evicting least recently used entries until the total fits.
  void Insert(absl::string_view key,
              std::shared_ptr<const schema::Schema> compiled);
  // Changes the budget, evicting down to it at once.
  void SetMaxBytes(size_t max_bytes);

  size_t max_bytes() const;
  size_t bytes() const;       // Charged to the entries held now.
  size_t entries() const;     // Entries held now.
  uint64_t inserted() const;  // Programs kept since start.
  uint64_t evicted() const;   // Programs dropped to make room since start.

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const schema::Schema> compiled;
    size_t cost = 0;
  };
  using Lru = std::list<Entry>;  // Most recently used first.

  void EvictToFit(size_t incoming) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  size_t max_bytes_ ABSL_GUARDED_BY(mu_);
  Lru lru_ ABSL_GUARDED_BY(mu_);
  // Keys view the key held by the entry they point at.
  absl::flat_hash_map<absl::string_view, Lru::iterator> index_
      ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t inserted_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t evicted_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_SNAPSHOT_SCHEMA_POOL_H_
