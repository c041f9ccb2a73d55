// cmark (Debian's libcmark, the CommonMark reference implementation) as a
// test oracle: which fenced code block does a CommonMark reader see last?
// Test-only; toolgate itself never links cmark.
#ifndef TOOLGATE_TESTS_COMMONMARK_CMARK_ORACLE_H_
#define TOOLGATE_TESTS_COMMONMARK_CMARK_ORACLE_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace testutil {

struct OracleBlock {
  bool found = false;
  int start_line = 0;   // 1-based, lines split at \n, \r\n and \r.
  std::string info;     // As cmark reports it (entities, escapes resolved).
  std::string literal;  // The content, container prefixes removed.
};

// The last fenced code block of `text` in document order, as cmark 0.30
// parses it (default options). Indented code blocks are not fenced ones;
// cmark 0.30.2 has no getter for that, so a block whose start looks like a
// fence is checked by parsing again with that fence run broken: a fenced
// block then disappears from its line, an indented one does not.
OracleBlock LastFencedCodeBlock(absl::string_view text);

// 1-based number of the line holding byte `offset` (lines as above).
int LineNumberOf(absl::string_view text, size_t offset);

// True when the info string's first word is empty or "json" in any case,
// the rule toolgate applies (core/text/fences.h IsJsonInfo).
bool IsJsonInfoWord(absl::string_view info);

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_COMMONMARK_CMARK_ORACLE_H_
