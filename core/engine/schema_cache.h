// Compiled inline result schemas, reused across ExtractVerdict calls.
//
// Bounded by bytes, not entries: schemas of equal text size can compile to
// programs thousands of times apart, so a cap on entries bounds nothing.
// Each entry is charged its schema text plus the compiled schema's
// compiled_bytes; the least recently used entries go first, and a
// schema that alone exceeds the budget is used for its call and not kept.
//
// Thread-safety: internally synchronized.
#ifndef TOOLGATE_CORE_ENGINE_SCHEMA_CACHE_H_
#define TOOLGATE_CORE_ENGINE_SCHEMA_CACHE_H_

#include <cstddef>
#include <list>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/schema/schema.h"

namespace toolgate {

class SchemaCache {
 public:
  explicit SchemaCache(size_t budget_bytes) : budget_(budget_bytes) {}
  SchemaCache(const SchemaCache&) = delete;
  SchemaCache& operator=(const SchemaCache&) = delete;

  // The schema compiled from exactly `text`, or null; a hit becomes the
  // most recently used entry.
  std::shared_ptr<const schema::Schema> Find(absl::string_view text);
  // Keeps `compiled` for `text`, dropping least recently used entries until
  // the total is within the budget.
  void Insert(absl::string_view text,
              std::shared_ptr<const schema::Schema> compiled);

  size_t budget_bytes() const { return budget_; }
  size_t bytes() const;    // Charged to the entries held now.
  size_t entries() const;  // Entries held now.

 private:
  struct Entry {
    std::string text;
    std::shared_ptr<const schema::Schema> compiled;
    size_t cost = 0;
  };
  using Lru = std::list<Entry>;  // Most recently used first.

  void EvictToFit(size_t incoming) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t budget_;
  mutable absl::Mutex mu_;
  Lru lru_ ABSL_GUARDED_BY(mu_);
  // Keys view the text held by the entry they point at.
  absl::flat_hash_map<absl::string_view, Lru::iterator> index_
      ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_SCHEMA_CACHE_H_
