// A process-wide table that lets equal immutable values share one copy
// without keeping any alive: it maps a key to a weak reference, so a value
// is freed with its last user and the table's size follows the live values
// (bounded by whoever bounds their users), never its own history.
//
// Thread-safety: internally synchronized; the values must be immutable.
#ifndef TOOLGATE_CORE_UTIL_WEAK_INTERN_H_
#define TOOLGATE_CORE_UTIL_WEAK_INTERN_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace toolgate {

template <typename T>
class WeakIntern {
 public:
  // The live value for `key`, or null.
  std::shared_ptr<const T> Find(const std::string& key) {
    absl::MutexLock lock(&mu_);
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second.lock();
  }

  // Interns `value` unless an equal key is live (another thread built it
  // first); returns the value to use either way.
  std::shared_ptr<const T> Insert(const std::string& key,
                                  std::shared_ptr<const T> value) {
    absl::MutexLock lock(&mu_);
    std::weak_ptr<const T>& slot = map_[key];
    if (auto live = slot.lock()) return live;
    slot = value;
    // Forget freed keys whenever the map doubles: amortized O(1) per
    // insert, and never more than twice the live keys (plus a floor).
    if (map_.size() >= sweep_at_) {
      absl::erase_if(map_, [](const auto& kv) { return kv.second.expired(); });
      sweep_at_ = std::max(kMinSweep, 2 * map_.size());
    }
    return value;
  }

  // Keys whose value is alive.
  size_t LiveCount() {
    absl::MutexLock lock(&mu_);
    return std::count_if(map_.begin(), map_.end(),
                         [](const auto& kv) { return !kv.second.expired(); });
  }

 private:
  static constexpr size_t kMinSweep = 256;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::weak_ptr<const T>> map_
      ABSL_GUARDED_BY(mu_);
  size_t sweep_at_ ABSL_GUARDED_BY(mu_) = kMinSweep;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_WEAK_INTERN_H_
