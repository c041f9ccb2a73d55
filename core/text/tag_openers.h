// Where an HTML tokenizer can start a tag: shared by the output gate's
// markup scan and the `text` argument rule's strip_html, which both decide
// from it whether a string needs an HTML parse at all, and bound the parse.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_TEXT_TAG_OPENERS_H_
#define TOOLGATE_CORE_TEXT_TAG_OPENERS_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace text {

// Offset of the first tag opener at or after `from`: "<" followed by an
// ASCII letter, "!", "/" or "?". Only there does the HTML tokenizer start a
// tag, comment or doctype, so a string without one is text to any HTML
// parser and needs no parse. npos when there is none.
size_t FindTagOpener(absl::string_view text, size_t from = 0);

// Number of tag openers in `text`: what bounds a parser's work on it.
size_t CountTagOpeners(absl::string_view text);

}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_TAG_OPENERS_H_
