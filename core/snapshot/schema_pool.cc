#include "core/snapshot/schema_pool.h"

#include <utility>

#include "core/util/heap_bytes.h"

namespace toolgate {
namespace {

// A list node, a hash slot and the Entry itself, beyond the key's text.
constexpr size_t kEntryOverhead = 128;

}  // namespace

SchemaPool& SchemaPool::Global() {
  static auto* const pool = new SchemaPool(kDefaultMaxBytes);
  return *pool;
}

std::shared_ptr<const schema::Schema> SchemaPool::Find(absl::string_view key) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->compiled;
}

void SchemaPool::Insert(absl::string_view key,
                        std::shared_ptr<const schema::Schema> compiled) {
  const size_t cost = kEntryOverhead + heap_bytes::Chunk(key.size() + 1) +
                      compiled->compiled_bytes();
  absl::MutexLock lock(&mu_);
  if (cost > max_bytes_ || index_.contains(key)) return;
  EvictToFit(cost);
  lru_.push_front(Entry{std::string(key), std::move(compiled), cost});
  index_.emplace(lru_.front().key, lru_.begin());
  bytes_ += cost;
  ++inserted_;
}

void SchemaPool::SetMaxBytes(size_t max_bytes) {
  absl::MutexLock lock(&mu_);
  max_bytes_ = max_bytes;
  EvictToFit(0);
}

void SchemaPool::EvictToFit(size_t incoming) {
  while (!lru_.empty() && bytes_ + incoming > max_bytes_) {
    Entry& victim = lru_.back();
    bytes_ -= victim.cost;
    index_.erase(victim.key);
    lru_.pop_back();
    ++evicted_;
  }
}

size_t SchemaPool::max_bytes() const {
  absl::MutexLock lock(&mu_);
  return max_bytes_;
}

size_t SchemaPool::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

size_t SchemaPool::entries() const {
  absl::MutexLock lock(&mu_);
  return lru_.size();
}

uint64_t SchemaPool::inserted() const {
  absl::MutexLock lock(&mu_);
  return inserted_;
}

uint64_t SchemaPool::evicted() const {
  absl::MutexLock lock(&mu_);
  return evicted_;
}

}  // namespace toolgate
