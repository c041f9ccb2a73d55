// Finding the next byte of a small set in text: the scanners' fast path
// past plain prose.
//
// Thread-safety: a StopBytes is immutable once constructed; Find is safe
// from any number of threads.
#ifndef TOOLGATE_CORE_TEXT_STOP_BYTES_H_
#define TOOLGATE_CORE_TEXT_STOP_BYTES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace text {

// N stop bytes, known at compile time so that Find's word test unrolls.
template <size_t N>
class StopBytes {
 public:
  constexpr explicit StopBytes(const char (&bytes)[N + 1]) {
    for (size_t i = 0; i < N; ++i) {
      words_[i] = kOnes * static_cast<uint8_t>(bytes[i]);
      is_stop_[static_cast<uint8_t>(bytes[i])] = true;
    }
  }

  bool Contains(char c) const { return is_stop_[static_cast<uint8_t>(c)]; }

  // The first position at or after `pos` holding a stop byte, or
  // text.size(). Eight bytes are tested at a time, so a line of prose
  // costs a few instructions per word rather than per byte.
  size_t Find(absl::string_view text, size_t pos) const {
    while (pos + sizeof(uint64_t) <= text.size() &&
           !AnyInWord(text.data() + pos)) {
      pos += sizeof(uint64_t);
    }
    while (pos < text.size() && !Contains(text[pos])) ++pos;
    return pos;
  }

 private:
  static constexpr uint64_t kOnes = 0x0101010101010101ull;

  // Whether one of the eight bytes at `p` is a stop byte. Exact: the zero
  // byte test sets a bit in a higher byte only after a real match below.
  bool AnyInWord(const char* p) const {
    uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    uint64_t hit = 0;
    for (size_t i = 0; i < N; ++i) {
      const uint64_t x = word ^ words_[i];
      hit |= (x - kOnes) & ~x & (kOnes << 7);
    }
    return hit != 0;
  }

  std::array<uint64_t, N> words_{};  // Each stop byte in all eight bytes.
  std::array<bool, 256> is_stop_{};
};

// StopBytes from a string literal: MakeStopBytes("\n\r<").
template <size_t M>
constexpr StopBytes<M - 1> MakeStopBytes(const char (&bytes)[M]) {
  return StopBytes<M - 1>(bytes);
}

}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_STOP_BYTES_H_
