// HTML markup inside a string the model reads, found with an HTML5 parser
// (gumbo) rather than a list of tag names. Internal to core/output; the
// public API is core/output/output.h.
//
// A string is parsed as an HTML document exactly as a browser would parse
// it, and counts as markup when the parse yields any of:
//   - an element with a name HTML knows (a, b, p, img, svg, math, form,
//     meta, base, style, details, ... and newer ones the parser's table
//     lacks: dialog, picture, search, slot, portal, fencedframe,
//     selectedcontent), or any SVG/MathML element;
//   - an html, head or body start or end tag anywhere (read from the text:
//     the parser adds these elements to every document and folds repeated
//     tags into them, so the tree does not show them);
//   - an element of any name (Vec<String> makes a "string" element) with an
//     event-handler attribute (on + letters), a style attribute, or an
//     attribute whose value is a javascript:, vbscript: or scriptable data:
//     URL (text/html, application/xhtml+xml, image/svg+xml, text/xml,
//     application/xml), read as a browser reads URLs: character references
//     decoded, leading/trailing spaces and controls dropped, tabs and
//     newlines ignored, any case;
//   - a comment (<!-- -->, or a bogus comment such as <?php ?> or <!x>):
//     hidden when rendered;
//   - a doctype.
// Not markup: "<" not followed by a letter, "!", "/" or "?" ("a < b", "<3",
// "x <= 5"), a tag cut off by the end of the string ("x<y"), elements with
// names HTML does not know and no such attribute ("Vec<String>",
// "<user@example.com>", "<T>"), and other end tags that close nothing (the
// parser drops them: "a </span> b").
//
// Thread-safe: all functions are pure (gumbo keeps no global state).
#ifndef TOOLGATE_CORE_OUTPUT_INTERNAL_MARKUP_SCAN_H_
#define TOOLGATE_CORE_OUTPUT_INTERNAL_MARKUP_SCAN_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "core/output/internal/string_scan.h"
#include "core/text/tag_openers.h"

namespace toolgate {
namespace output {
namespace internal {

// Tag openers: core/text/tag_openers.h.
using ::toolgate::text::CountTagOpeners;
using ::toolgate::text::FindTagOpener;

// True when every tag opener in `text` starts a plain start tag "<name>"
// (no attributes, not self-closing) whose name HTML does not know, or one
// cut off by the end of the text: "Vec<String>", "<ops@example.com>",
// "Option<Box<T>>". Such text parses to unknown elements without
// attributes and to text, none of which is markup, so it needs no parse.
bool HoldsOnlyInertTags(absl::string_view text);

// Parses `text` and finds the first markup node in document order (see the
// file comment). On a hit fills `match` (code "markup_in_string", start at
// the node's "<") and, when given, `what` with a short description such as
// "event-handler attribute onerror on <img>". The parse costs time
// quadratic in the number of tag openers in the worst case: callers bound
// it (ValidateToolOutput does, with OutputLimits).
bool FindMarkupInString(absl::string_view text, PatternMatch* match,
                        std::string* what = nullptr);

}  // namespace internal
}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_INTERNAL_MARKUP_SCAN_H_
