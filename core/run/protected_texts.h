// Protected texts (OpenRunRequest.protected_texts) stored once however many
// runs carry them, within one byte budget for all runs together.
//
// Agents open every run with the same system prompt: each run used to build
// its own leak index (~17 bytes per protected byte, ~550 KB for 32 KiB), so
// a thousand runs held half a gigabyte of identical tables. Here the index
// (a policy::LeakTable) is built once per distinct SET of texts: the texts
// are deduplicated and sorted, so the same texts in any order share one
// table, and each run gets a light LeakDetector that numbers the texts as
// that run gave them. A table is freed when the last run holding it goes,
// and its bytes return to the budget then.
//
// Budget: the planned bytes of every distinct table held (the text copy
// and the slot table; LeakTable::PlannedBytes) plus a fixed overhead per
// table. Interning a new set past the budget is RESOURCE_EXHAUSTED; a set
// already held costs nothing more, so runs with the usual prompt are never
// refused for it.
//
// Thread-safety: internally synchronized. Tables may outlive the store
// (a run still held by a call in flight): their release reaches state the
// store shares with them, never the store itself.
#ifndef TOOLGATE_CORE_RUN_PROTECTED_TEXTS_H_
#define TOOLGATE_CORE_RUN_PROTECTED_TEXTS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/policy/secret_checks.h"

namespace toolgate {

// --max_protected_text_bytes' default.
inline constexpr size_t kDefaultMaxProtectedTextBytes = size_t{64} << 20;
// Accounted per distinct table beyond its planned bytes: the table object,
// its key and its entry in the store.
inline constexpr size_t kProtectedTableOverheadBytes = 256;

class ProtectedTextStore {
 public:
  explicit ProtectedTextStore(size_t max_bytes = kDefaultMaxProtectedTextBytes);
  ProtectedTextStore(const ProtectedTextStore&) = delete;
  ProtectedTextStore& operator=(const ProtectedTextStore&) = delete;

  // A detector over `texts` sharing the store's table for the same set;
  // null for no texts. RESOURCE_EXHAUSTED when a new table would take the
  // bytes held past the budget (the message gives the numbers).
  absl::StatusOr<std::shared_ptr<const policy::LeakDetector>> Intern(
      const std::vector<std::string>& texts);

  // Bytes accounted for the tables held now, and how many there are.
  size_t bytes() const;
  size_t tables() const;
  size_t max_bytes() const;

  // Internal: what the store shares with the tables it accounts for.
  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_RUN_PROTECTED_TEXTS_H_
