// Lexical rules shared by the syntax-repair rewriter and the extractor's
// span scanner, so that both agree on where a string or comment ends.
//
// In the repair dialect a string opens with `"`, `'`, U+201C (closed by
// U+201D) or U+2018 (closed by U+2019); a backslash escapes the next byte.
// Comments are `// ...` to the end of the line and `/* ... */`.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_REPAIR_LEXER_H_
#define TOOLGATE_CORE_REPAIR_LEXER_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace repair {

enum class QuoteKind { kNone, kDouble, kSingle, kSmartDouble, kSmartSingle };

// The kind of string-opening quote at `pos`, and its length in bytes.
QuoteKind OpeningQuoteAt(absl::string_view text, size_t pos, size_t* length);

// True when the closing quote of `kind` is at `pos`; sets its length.
bool ClosingQuoteAt(absl::string_view text, size_t pos, QuoteKind kind,
                    size_t* length);

// With a string opening at `pos`, the position just past its closing quote,
// or npos when the string runs to the end of `text`.
size_t StringEnd(absl::string_view text, size_t pos);

// With `pos` at "//" or "/*", the position just past the comment (a line
// comment ends before its '\n'), or npos for a block comment never closed.
// Returns `pos` when no comment opens there.
size_t CommentEnd(absl::string_view text, size_t pos);

}  // namespace repair
}  // namespace toolgate

#endif  // TOOLGATE_CORE_REPAIR_LEXER_H_
