#include "core/engine/schema_cache.h"

#include <utility>

namespace toolgate {
namespace {

// A list node, a hash slot and the Entry itself.
constexpr size_t kEntryOverhead = 128;

}  // namespace

std::shared_ptr<const schema::Schema> SchemaCache::Find(
    absl::string_view text) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(text);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->compiled;
}

void SchemaCache::Insert(absl::string_view text,
                         std::shared_ptr<const schema::Schema> compiled) {
  const size_t cost =
      text.size() + kEntryOverhead + compiled->compiled_bytes();
  if (cost > budget_) return;
  absl::MutexLock lock(&mu_);
  if (index_.contains(text)) return;  // Another call compiled it first.
  EvictToFit(cost);
  lru_.push_front(Entry{std::string(text), std::move(compiled), cost});
  index_.emplace(lru_.front().text, lru_.begin());
  bytes_ += cost;
}

void SchemaCache::EvictToFit(size_t incoming) {
  while (!lru_.empty() && bytes_ + incoming > budget_) {
    Entry& victim = lru_.back();
    bytes_ -= victim.cost;
    index_.erase(victim.text);
    lru_.pop_back();
  }
}

size_t SchemaCache::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

size_t SchemaCache::entries() const {
  absl::MutexLock lock(&mu_);
  return lru_.size();
}

}  // namespace toolgate
