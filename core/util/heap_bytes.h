// Approximate heap bytes held by common containers, counted the way glibc
// malloc charges them, so that sums of these track mallinfo2 (see
// bench/README.md, "Snapshot memory", for the check). For byte-bounded
// caches and stores, not for exact accounting.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_UTIL_HEAP_BYTES_H_
#define TOOLGATE_CORE_UTIL_HEAP_BYTES_H_

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "core/json/strict_json.h"

namespace toolgate {
namespace heap_bytes {

// One malloc of `n` bytes: an 8-byte header, rounded up to 16, 32 at least.
inline size_t Chunk(size_t n) {
  if (n == 0) return 0;
  return std::max<size_t>(32, (n + 8 + 15) / 16 * 16);
}

// A std::string's own allocation (none within the 15-byte inline buffer).
inline size_t Str(const std::string& s) {
  return s.capacity() > 15 ? Chunk(s.capacity() + 1) : 0;
}

// A vector's array, not what its elements own.
template <typename T>
size_t Vec(const std::vector<T>& v) {
  return Chunk(v.capacity() * sizeof(T));
}

// A std::map / std::set node holding `value_size` bytes.
inline size_t MapNode(size_t value_size) { return Chunk(32 + value_size); }

// What a Json value owns beyond its 16 inline bytes.
inline size_t JsonOwned(const Json& j) {
  switch (j.type()) {
    case Json::value_t::string:
      return Chunk(sizeof(std::string)) + Str(j.get_ref<const std::string&>());
    case Json::value_t::array: {
      const auto& a = j.get_ref<const Json::array_t&>();
      size_t n = Chunk(sizeof(Json::array_t)) + Vec(a);
      for (const Json& e : a) n += JsonOwned(e);
      return n;
    }
    case Json::value_t::object: {
      const auto& o = j.get_ref<const Json::object_t&>();
      size_t n = Chunk(sizeof(Json::object_t));
      for (const auto& [k, v] : o) {
        n +=
            MapNode(sizeof(std::string) + sizeof(Json)) + Str(k) + JsonOwned(v);
      }
      return n;
    }
    default:
      return 0;
  }
}

}  // namespace heap_bytes
}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_HEAP_BYTES_H_
