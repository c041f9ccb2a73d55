#include "core/repair/lexer.h"

namespace toolgate {
namespace repair {
namespace {

// UTF-8 encodings of the typographic quotes models emit in place of ASCII.
constexpr absl::string_view kLeftDouble = "\xE2\x80\x9C";   // U+201C
constexpr absl::string_view kRightDouble = "\xE2\x80\x9D";  // U+201D
constexpr absl::string_view kLeftSingle = "\xE2\x80\x98";   // U+2018
constexpr absl::string_view kRightSingle = "\xE2\x80\x99";  // U+2019

bool HasAt(absl::string_view text, size_t pos, absl::string_view s) {
  return text.substr(pos, s.size()) == s;
}

}  // namespace

QuoteKind OpeningQuoteAt(absl::string_view text, size_t pos, size_t* length) {
  *length = 1;
  if (pos >= text.size()) return QuoteKind::kNone;
  if (text[pos] == '"') return QuoteKind::kDouble;
  if (text[pos] == '\'') return QuoteKind::kSingle;
  *length = 3;
  if (HasAt(text, pos, kLeftDouble)) return QuoteKind::kSmartDouble;
  if (HasAt(text, pos, kLeftSingle)) return QuoteKind::kSmartSingle;
  return QuoteKind::kNone;
}

bool ClosingQuoteAt(absl::string_view text, size_t pos, QuoteKind kind,
                    size_t* length) {
  *length = 1;
  switch (kind) {
    case QuoteKind::kDouble: return pos < text.size() && text[pos] == '"';
    case QuoteKind::kSingle: return pos < text.size() && text[pos] == '\'';
    case QuoteKind::kSmartDouble:
      *length = 3;
      return HasAt(text, pos, kRightDouble);
    case QuoteKind::kSmartSingle:
      *length = 3;
      return HasAt(text, pos, kRightSingle);
    case QuoteKind::kNone: return false;
  }
  return false;
}

size_t StringEnd(absl::string_view text, size_t pos) {
  size_t open_len = 0;
  const QuoteKind kind = OpeningQuoteAt(text, pos, &open_len);
  if (kind == QuoteKind::kNone) return pos;
  size_t i = pos + open_len;
  while (i < text.size()) {
    if (text[i] == '\\') {
      i += 2;
      continue;
    }
    size_t close_len = 0;
    if (ClosingQuoteAt(text, i, kind, &close_len)) return i + close_len;
    ++i;
  }
  return absl::string_view::npos;
}

size_t CommentEnd(absl::string_view text, size_t pos) {
  if (pos + 1 >= text.size() || text[pos] != '/') return pos;
  if (text[pos + 1] == '/') {
    const size_t nl = text.find('\n', pos + 2);
    return nl == absl::string_view::npos ? text.size() : nl;
  }
  if (text[pos + 1] == '*') {
    const size_t close = text.find("*/", pos + 2);
    return close == absl::string_view::npos ? absl::string_view::npos
                                            : close + 2;
  }
  return pos;
}

}  // namespace repair
}  // namespace toolgate
