#include "core/run/protected_texts.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/util/ids.h"

namespace toolgate {

struct ProtectedTextStore::State {
  explicit State(size_t max) : max_bytes(max) {}

  struct Entry {
    std::weak_ptr<const policy::LeakTable> table;
    // Which table the entry names, so that a table released after its
    // entry was replaced does not erase its successor's.
    const policy::LeakTable* raw = nullptr;
  };

  const size_t max_bytes;
  absl::Mutex mu;
  // Key: SHA-256 of the canonical set (see Canonicalize).
  absl::flat_hash_map<std::string, Entry> entries ABSL_GUARDED_BY(mu);
  size_t bytes ABSL_GUARDED_BY(mu) = 0;
  size_t tables ABSL_GUARDED_BY(mu) = 0;
};

namespace {

using State = ProtectedTextStore::State;

// The set of texts a run gave, in the order tables are keyed by: distinct
// texts sorted, and for each the index the run gave it first.
struct Canonical {
  std::vector<std::string> texts;
  std::vector<uint32_t> numbers;
  std::string key;
};

Canonical Canonicalize(const std::vector<std::string>& texts) {
  std::vector<uint32_t> order(texts.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable: among equal texts the run's first one comes first and names it.
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return texts[a] < texts[b]; });
  Canonical c;
  std::string keyed;
  for (uint32_t i : order) {
    if (!c.texts.empty() && c.texts.back() == texts[i]) continue;
    c.texts.push_back(texts[i]);
    c.numbers.push_back(i);
    // Length-prefixed, so that no two sets concatenate alike.
    absl::StrAppend(&keyed, texts[i].size(), ":", texts[i]);
  }
  c.key = Sha256(keyed);
  return c;
}

// Owns a table held by runs: returns its bytes to the budget and drops its
// entry when the last run lets go.
struct Releaser {
  std::shared_ptr<State> state;
  size_t bytes;
  std::string key;

  void operator()(const policy::LeakTable* table) const {
    {
      absl::MutexLock lock(&state->mu);
      state->bytes -= bytes;
      --state->tables;
      auto it = state->entries.find(key);
      if (it != state->entries.end() && it->second.raw == table) {
        state->entries.erase(it);
      }
    }
    delete table;
  }
};

// The held table for `c`, if any. The caller must drop the result only
// after releasing the lock: dropping the last reference runs Releaser.
std::shared_ptr<const policy::LeakTable> FindLocked(State& state,
                                                    const Canonical& c)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(state.mu) {
  auto it = state.entries.find(c.key);
  if (it == state.entries.end()) return nullptr;
  return it->second.table.lock();
}

}  // namespace

ProtectedTextStore::ProtectedTextStore(size_t max_bytes)
    : state_(std::make_shared<State>(max_bytes)) {}

absl::StatusOr<std::shared_ptr<const policy::LeakDetector>>
ProtectedTextStore::Intern(const std::vector<std::string>& texts) {
  if (texts.empty()) return nullptr;
  const Canonical c = Canonicalize(texts);
  std::shared_ptr<const policy::LeakTable> found;
  const size_t need =
      policy::LeakTable::PlannedBytes(c.texts) + kProtectedTableOverheadBytes;
  {
    absl::MutexLock lock(&state_->mu);
    found = FindLocked(*state_, c);
    if (found == nullptr) {
      if (state_->bytes + need > state_->max_bytes) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "protected_texts: their index needs ", need,
            " bytes, and the protected texts of open runs hold ", state_->bytes,
            " of --max_protected_text_bytes=", state_->max_bytes, " (",
            state_->tables,
            " distinct sets); close finished runs (runs with the same "
            "texts share one index and cost nothing more)"));
      }
      state_->bytes += need;  // Reserved while building, unlocked.
      ++state_->tables;
    }
  }
  if (found != nullptr && found->Holds(c.texts)) {
    return std::make_shared<const policy::LeakDetector>(std::move(found),
                                                        c.numbers);
  }
  if (found != nullptr) {
    // A SHA-256 collision: never share it; build an unshared table instead.
    return std::make_shared<const policy::LeakDetector>(texts);
  }
  std::shared_ptr<const policy::LeakTable> built(new policy::LeakTable(c.texts),
                                                 Releaser{state_, need, c.key});
  {
    absl::MutexLock lock(&state_->mu);
    found = FindLocked(*state_, c);  // Built meanwhile by another Intern?
    if (found == nullptr) {
      state_->entries[c.key] = State::Entry{built, built.get()};
    }
  }
  // `built` drops (returning its reservation) after the lock is released.
  if (found != nullptr && found->Holds(c.texts)) built = std::move(found);
  return std::make_shared<const policy::LeakDetector>(std::move(built),
                                                      c.numbers);
}

size_t ProtectedTextStore::bytes() const {
  absl::MutexLock lock(&state_->mu);
  return state_->bytes;
}

size_t ProtectedTextStore::tables() const {
  absl::MutexLock lock(&state_->mu);
  return state_->tables;
}

size_t ProtectedTextStore::max_bytes() const { return state_->max_bytes; }

}  // namespace toolgate
