// The pythonic grammar (internal to core/extract/formats): a strict
// recursive-descent reader of a list of Python calls whose arguments are
// keyword arguments with literal values, producing JSON directly. Nothing
// is evaluated, and nothing is read differently from Python: what Python
// would read as another value (or refuse) is refused.
//
//   block    [<|python_start|>] ws '[' ws [call (ws ',' ws call)* [ws ',']] ws ']'
//            ws [<|python_end|> when opened with <|python_start|>]
//   call     name ws '(' ws [kwarg (ws ',' ws kwarg)* [ws ',']] ws ')'
//   name     ident (ws '.' ws ident)*         ASCII identifiers, no keyword
//   kwarg    ident ws '=' ws value            no keyword, no duplicate
//   value    string | number | True | False | None | list | tuple | dict
//            | '(' value ')'                  grouping, as Python reads it
//   list     '[' [value (',' value)* [',']] ']'             -> JSON array
//   tuple    '(' ')' | '(' value ',' [value (',' value)* [',']] ')' -> array
//   dict     '{' [string ':' value (',' string ':' value)* [',']] '}'
//   number   ['-' | '+'] ws decimal integer or float      (Python's syntax)
//   ws       space, tab, line feed, carriage return, form feed
//
// Strings: '...', "...", '''...''', """...""", optionally prefixed u/U,
// with Python's escapes (\\ \' \" \a \b \f \n \r \t \v \ooo \xhh \uXXXX
// \UXXXXXXXX and backslash-newline); triple-quoted strings keep their line
// feeds. Integers are kept exactly from -2^63 to 2^64-1 and refused beyond
// (number_out_of_range); floats must be exactly what JSON's strict reading
// of the same decimal gives (number_out_of_range, number_inexact), so
// non-finite values never appear.
//
// Refusals: truncated_output (the text ends inside the block);
// malformed_tool_call (any expression: names, operators, calls, attribute
// access, subscripts, comprehensions, lambdas, starred arguments;
// positional arguments; syntax Python refuses too); unsupported_syntax
// (valid Python deliberately not read: see formats.h); duplicate_key (a
// repeated keyword argument or dict key); nesting_too_deep (more than
// kMaxPythonicNesting open brackets, below CPython's own limit of 200).
// Pointers address the call list as JSON ("/0/arguments/items/2").
#ifndef TOOLGATE_CORE_EXTRACT_FORMATS_PYTHONIC_READER_H_
#define TOOLGATE_CORE_EXTRACT_FORMATS_PYTHONIC_READER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/extract/formats/frame.h"

namespace toolgate {
namespace extract {
namespace formats {

// Open brackets at once, the call list's and the call's included. CPython
// refuses more than 200 ("too many nested parentheses").
inline constexpr int kMaxPythonicNesting = 100;

// ASCII identifier bytes; Python keywords (which cannot name a tool or
// an argument).
struct ByteClasses {
  bool ident_start[256];
  bool ident[256];
  bool space_or_special[256];  // Python white space, '#', '\\'.
};
constexpr ByteClasses MakeByteClasses() {
  ByteClasses t{};
  for (int c = 0; c < 256; ++c) {
    t.ident_start[c] =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    t.ident[c] = t.ident_start[c] || (c >= '0' && c <= '9');
    t.space_or_special[c] = c == ' ' || c == '\t' || c == '\n' ||
                            c == '\r' || c == '\f' || c == '#' || c == '\\';
  }
  return t;
}
inline constexpr ByteClasses kByteClasses = MakeByteClasses();
inline bool IsIdentStart(char c) {
  return kByteClasses.ident_start[static_cast<unsigned char>(c)];
}
inline bool IsIdentChar(char c) {
  return kByteClasses.ident[static_cast<unsigned char>(c)];
}
bool IsPythonKeyword(absl::string_view word);

class PythonicReader {
 public:
  PythonicReader(absl::string_view text, const ReadOptions& options);

  Block ReadBlock(size_t begin);

 private:
  struct PathEntry {
    absl::string_view key;  // Set for an argument or a dict value.
    size_t index = 0;       // Otherwise: the element's index.
    bool is_key = false;
  };

  // Each Read* returns false after recording the first error.
  bool Fail(absl::string_view code, absl::string_view message);
  bool Cut(absl::string_view what);
  // Past white space; refuses a comment or a line continuation. Most
  // tokens follow no white space: that case is inline.
  bool SkipSpace() {
    if (p_ < text_.size() && !kByteClasses.space_or_special[
                                 static_cast<unsigned char>(text_[p_])]) {
      return true;
    }
    return SkipSpaceSlow();
  }
  bool SkipSpaceSlow();
  // SkipSpace, then: not at the end (else truncated_output, naming `what`).
  bool SkipToMore(absl::string_view what) {
    if (!SkipSpace()) return false;
    return p_ < text_.size() || Cut(what);
  }

  bool ReadCall(ExtractedCall* call);
  bool ReadName(std::string* name);
  bool ReadIdentifier(absl::string_view* ident);
  bool ReadKeyword(Json* args);
  bool ReadValue(Json* out, int depth);
  bool ReadList(Json* out, int depth);
  bool ReadParen(Json* out, int depth);
  bool ReadDict(Json* out, int depth);
  bool ReadElements(char close, Json* array, int depth);
  bool ReadWord(Json* out);
  bool Open(int depth);

  // pythonic_literal.cc: strings and numbers.
  bool ReadStringValue(Json* out);
  // A one-line string without escapes or raw control characters, read as
  // a view of the text; false (nothing consumed) for any other string.
  bool ReadPlainString(absl::string_view* out);
  bool ReadString(std::string* out);
  bool ReadEscape(std::string* out);
  bool ReadHex(int digits, uint32_t* value);
  bool ReadNumber(bool negative, Json* out);
  bool ReadInteger(bool negative, absl::string_view digits, Json* out);
  bool ReadFloat(bool negative, absl::string_view int_part,
                 absl::string_view frac, bool dot, absl::string_view exp,
                 Json* out);
  bool NoConcatenation();

  absl::string_view text_;
  const ReadOptions& options_;
  const int max_nesting_;
  size_t p_ = 0;
  ExtractionError error_;
  int call_index_ = -1;
  bool in_arguments_ = false;
  std::vector<PathEntry> path_;
};



}  // namespace formats
}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_FORMATS_PYTHONIC_READER_H_
