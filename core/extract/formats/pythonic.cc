// The pythonic grammar's structure: the call list, calls, names, keyword
// arguments and containers (pythonic_reader.h). Strings and numbers are in
// pythonic_literal.cc.
#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/extract/formats/formats_internal.h"
#include "core/extract/formats/pythonic_reader.h"

namespace toolgate {
namespace extract {
namespace formats {
namespace {

// Python's keywords by first letter (3.11 and later: none was added since).
absl::Span<const absl::string_view> KeywordsStartingWith(char c) {
  static constexpr absl::string_view kA[] = {"and", "as", "assert", "async",
                                             "await"};
  static constexpr absl::string_view kB[] = {"break"};
  static constexpr absl::string_view kC[] = {"class", "continue"};
  static constexpr absl::string_view kD[] = {"def", "del"};
  static constexpr absl::string_view kE[] = {"elif", "else", "except"};
  static constexpr absl::string_view kF[] = {"finally", "for", "from"};
  static constexpr absl::string_view kG[] = {"global"};
  static constexpr absl::string_view kI[] = {"if", "import", "in", "is"};
  static constexpr absl::string_view kL[] = {"lambda"};
  static constexpr absl::string_view kN[] = {"nonlocal", "not"};
  static constexpr absl::string_view kO[] = {"or"};
  static constexpr absl::string_view kP[] = {"pass"};
  static constexpr absl::string_view kR[] = {"raise", "return"};
  static constexpr absl::string_view kT[] = {"try"};
  static constexpr absl::string_view kW[] = {"while", "with"};
  static constexpr absl::string_view kY[] = {"yield"};
  static constexpr absl::string_view kUpper[] = {"False", "None", "True"};
  switch (c) {
    case 'a': return kA;
    case 'b': return kB;
    case 'c': return kC;
    case 'd': return kD;
    case 'e': return kE;
    case 'f': return kF;
    case 'g': return kG;
    case 'i': return kI;
    case 'l': return kL;
    case 'n': return kN;
    case 'o': return kO;
    case 'p': return kP;
    case 'r': return kR;
    case 't': return kT;
    case 'w': return kW;
    case 'y': return kY;
    case 'F': case 'N': case 'T': return kUpper;
    default: return {};
  }
}

// A new member of `object` under `key`, built in place (one descent finds
// a duplicate and the insertion point); null when `key` is already there.
template <typename Key>
Json* NewMember(Json* object, Key&& key) {
  Json::object_t& members = *object->get_ptr<Json::object_t*>();
  const std::string_view view(key.data(), key.size());
  const auto hint = members.lower_bound(view);
  if (hint != members.end() && hint->first == view) return nullptr;
  return &members
              .emplace_hint(hint, std::piecewise_construct,
                            std::forward_as_tuple(std::forward<Key>(key)),
                            std::forward_as_tuple())
              ->second;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

}  // namespace

bool IsPythonKeyword(absl::string_view word) {
  if (word.size() < 2 || word.size() > 8) return false;
  for (absl::string_view k : KeywordsStartingWith(word[0])) {
    if (k == word) return true;
  }
  return false;
}

PythonicReader::PythonicReader(absl::string_view text,
                               const ReadOptions& options)
    : text_(text),
      options_(options),
      max_nesting_(std::min(options.json.max_depth, kMaxPythonicNesting)) {}

bool PythonicReader::Fail(absl::string_view code, absl::string_view message) {
  if (!error_.code.empty()) return false;
  std::string pointer;
  if (call_index_ >= 0) {
    pointer = absl::StrCat("/", call_index_);
    if (in_arguments_) absl::StrAppend(&pointer, "/arguments");
    for (const PathEntry& e : path_) {
      absl::StrAppend(&pointer, "/",
                      e.is_key ? EscapePointerToken(e.key)
                               : absl::StrCat(e.index));
    }
  }
  error_ = Error(code, std::move(pointer),
                 absl::StrCat("at byte ", p_, ": ", message));
  error_.call_index = call_index_;
  return false;
}

bool PythonicReader::Cut(absl::string_view what) {
  return Fail(kTruncatedOutput,
              absl::StrCat("the output was cut off ", what));
}

bool PythonicReader::SkipSpaceSlow() {
  while (p_ < text_.size() && IsSpace(text_[p_])) ++p_;
  if (p_ == text_.size()) return true;
  if (text_[p_] == '#') {
    return Fail(kUnsupportedSyntax, "comments are not read");
  }
  if (text_[p_] == '\\') {
    return Fail(kUnsupportedSyntax,
                "a backslash (line continuation) outside a string");
  }
  return true;
}

bool PythonicReader::Open(int depth) {
  ++p_;
  if (depth <= max_nesting_) return true;
  return Fail(kNestingTooDeep,
              absl::StrCat("more than ", max_nesting_, " nested brackets"));
}

Block PythonicReader::ReadBlock(size_t begin) {
  Block block;
  // Room for a call per 256 bytes, up to 16 (more are refused later:
  // max_calls_per_output, 64 by default): reallocating the list while
  // reading cost a tenth of reading 64 calls.
  block.calls.reserve(std::min<size_t>(16, 1 + text_.size() / 256));
  const bool wrapped = At(text_, begin, kPythonOpen);
  p_ = begin + (wrapped ? kPythonOpen.size() : 0);
  bool ok = SkipToMore("before the call list");
  if (ok && text_[p_] != '[') {
    ok = Fail(kMalformedToolCall, "expected '[' opening the call list");
  }
  const size_t list = p_;
  ok = ok && Open(1);
  while (ok) {
    ok = SkipToMore("in the call list");
    if (!ok || text_[p_] == ']') break;
    call_index_ = static_cast<int>(block.calls.size());
    ExtractedCall call;
    ok = ReadCall(&call) && SkipToMore("in the call list");
    if (!ok) break;
    block.calls.push_back(std::move(call));
    call_index_ = -1;
    if (text_[p_] == ',') {
      ++p_;
    } else if (text_[p_] != ']') {
      ok = Fail(kMalformedToolCall, "expected ',' or ']' after a call");
    } else {
      break;
    }
  }
  if (ok) {
    ++p_;  // The ']'.
    error_ = NoMarkerWithin(text_, list, p_);
    ok = error_.code.empty();
  }
  if (ok && wrapped) {
    ok = SkipSpace();
    switch (ok ? ExpectAt(text_, p_, kPythonClose) : Expect::kNo) {
      case Expect::kMatch:
        p_ += kPythonClose.size();
        break;
      case Expect::kCut:
        ok = Cut("before <|python_end|>");
        break;
      case Expect::kNo:
        ok = ok && Fail(kMalformedToolCall,
                        "expected <|python_end|> after the call list");
        break;
    }
  }
  if (!ok) {
    block.calls.clear();
    block.error = std::move(error_);
    return block;
  }
  block.end = p_;
  return block;
}

bool PythonicReader::ReadCall(ExtractedCall* call) {
  if (!ReadName(&call->name) || !SkipToMore("after a tool name")) return false;
  if (text_[p_] != '(') {
    return Fail(kMalformedToolCall,
                "expected '(' after the tool name: each element is a call");
  }
  if (!Open(2)) return false;
  Json args = Json::object();
  in_arguments_ = true;
  while (true) {
    if (!SkipToMore("in a call's arguments")) return false;
    if (text_[p_] == ')') break;
    if (!ReadKeyword(&args) || !SkipToMore("in a call's arguments")) {
      return false;
    }
    if (text_[p_] == ',') {
      ++p_;
    } else if (text_[p_] == ')') {
      break;
    } else {
      return Fail(kMalformedToolCall,
                  "expected ',' or ')' after an argument (a value is a "
                  "literal, not an expression)");
    }
  }
  ++p_;  // The ')'.
  in_arguments_ = false;
  call->arguments = std::move(args);
  return true;
}

bool PythonicReader::ReadIdentifier(absl::string_view* ident) {
  const size_t start = p_;
  while (p_ < text_.size() && IsIdentChar(text_[p_])) ++p_;
  if (p_ < text_.size() && static_cast<unsigned char>(text_[p_]) >= 0x80) {
    return Fail(kUnsupportedSyntax,
                "non-ASCII names are not read (Python normalizes them)");
  }
  *ident = text_.substr(start, p_ - start);
  if (ident->empty() || !IsIdentStart((*ident)[0])) {
    p_ = start;
    return Fail(kMalformedToolCall, "expected a name");
  }
  if (IsPythonKeyword(*ident)) {
    p_ = start;
    return Fail(kMalformedToolCall,
                absl::StrCat("\"", *ident, "\" is a Python keyword, not a name"));
  }
  return true;
}

bool PythonicReader::ReadName(std::string* name) {
  while (true) {
    absl::string_view part;
    if (!ReadIdentifier(&part)) return false;
    name->append(part.data(), part.size());
    if (!SkipSpace()) return false;
    if (p_ == text_.size() || text_[p_] != '.') return true;
    ++p_;
    if (!SkipToMore("in a dotted name")) return false;
    name->push_back('.');
  }
}

bool PythonicReader::ReadKeyword(Json* args) {
  if (text_[p_] == '*') {
    return Fail(kMalformedToolCall, "starred arguments are expressions");
  }
  if (!IsIdentStart(text_[p_]) &&
      static_cast<unsigned char>(text_[p_]) < 0x80) {
    return Fail(kMalformedToolCall,
                "a positional argument: arguments are written name=value");
  }
  absl::string_view key;
  if (!ReadIdentifier(&key)) return false;
  if (key == "__debug__") {
    return Fail(kMalformedToolCall, "__debug__ cannot name an argument");
  }
  if (!SkipToMore("after an argument name")) return false;
  if (text_[p_] != '=' ||
      (p_ + 1 < text_.size() && text_[p_ + 1] == '=')) {
    return Fail(kMalformedToolCall,
                "a positional argument or an expression: arguments are "
                "written name=value");
  }
  ++p_;
  Json* value = NewMember(args, std::string(key));
  if (value == nullptr) {
    return Fail(kDuplicateKey,
                absl::StrCat("argument \"", key, "\" is given twice"));
  }
  path_.push_back(PathEntry{key, 0, true});
  if (!ReadValue(value, 3)) return false;
  path_.pop_back();
  return true;
}

bool PythonicReader::ReadValue(Json* out, int depth) {
  if (!SkipToMore("before a value")) return false;
  const char c = text_[p_];
  const bool dot_digit = c == '.' && p_ + 1 < text_.size() &&
                         text_[p_ + 1] >= '0' && text_[p_ + 1] <= '9';
  switch (c) {
    case '[':
      return ReadList(out, depth);
    case '(':
      return ReadParen(out, depth);
    case '{':
      return ReadDict(out, depth);
    case '\'':
    case '"':
      return ReadStringValue(out);
    case '-':
    case '+': {
      ++p_;
      if (!SkipToMore("after a sign")) return false;
      const char d = text_[p_];
      const bool number = (d >= '0' && d <= '9') ||
                          (d == '.' && p_ + 1 < text_.size() &&
                           text_[p_ + 1] >= '0' && text_[p_ + 1] <= '9');
      if (!number) {
        return Fail(kMalformedToolCall,
                    "a sign applies only to a number here (an expression)");
      }
      return ReadNumber(c == '-', out);
    }
    default:
      break;
  }
  if ((c >= '0' && c <= '9') || dot_digit) return ReadNumber(false, out);
  if (IsIdentStart(c)) return ReadWord(out);
  return Fail(kMalformedToolCall, "expected a Python literal");
}

bool PythonicReader::ReadElements(char close, Json* array, int depth) {
  while (true) {
    if (!SkipToMore("in a list or tuple")) return false;
    if (text_[p_] == close) break;
    path_.push_back(PathEntry{{}, array->size(), false});
    // Built in place; nothing else is added to `array` meanwhile.
    if (!ReadValue(&array->get_ref<Json::array_t&>().emplace_back(),
                   depth + 1)) {
      return false;
    }
    path_.pop_back();
    if (!SkipToMore("in a list or tuple")) return false;
    if (text_[p_] == ',') {
      ++p_;
    } else if (text_[p_] != close) {
      return Fail(kMalformedToolCall,
                  absl::StrCat("expected ',' or '", std::string(1, close),
                               "' (a value is a literal, not an expression)"));
    } else {
      break;
    }
  }
  ++p_;  // The closer.
  return true;
}

bool PythonicReader::ReadList(Json* out, int depth) {
  if (!Open(depth)) return false;
  *out = Json::array();
  return ReadElements(']', out, depth);
}

// "( value )" is the value itself; a comma makes a tuple.
bool PythonicReader::ReadParen(Json* out, int depth) {
  if (!Open(depth) || !SkipToMore("in parentheses")) return false;
  if (text_[p_] == ')') {
    ++p_;
    *out = Json::array();
    return true;
  }
  Json first;
  if (!ReadValue(&first, depth + 1) || !SkipToMore("in parentheses")) {
    return false;
  }
  if (text_[p_] == ')') {
    ++p_;
    *out = std::move(first);
    return true;
  }
  if (text_[p_] != ',') {
    return Fail(kMalformedToolCall,
                "expected ',' or ')' (a value is a literal, not an "
                "expression)");
  }
  ++p_;
  *out = Json::array();
  out->push_back(std::move(first));
  return ReadElements(')', out, depth);
}

bool PythonicReader::ReadDict(Json* out, int depth) {
  if (!Open(depth)) return false;
  *out = Json::object();
  for (bool first = true;; first = false) {
    if (!SkipToMore("in a dict")) return false;
    if (text_[p_] == '}') break;
    Json key;
    if (!ReadValue(&key, depth + 1)) return false;
    if (!key.is_string()) {
      return Fail(kUnsupportedSyntax, "dict keys other than strings are not "
                                      "read (JSON keys are strings)");
    }
    if (!SkipToMore("in a dict")) return false;
    if (text_[p_] != ':') {
      const bool set = first && (text_[p_] == ',' || text_[p_] == '}');
      return Fail(set ? kUnsupportedSyntax : kMalformedToolCall,
                  set ? "sets are not read" : "expected ':' after a dict key");
    }
    ++p_;
    const std::string& name = key.get_ref<const std::string&>();
    Json* value = NewMember(out, name);
    if (value == nullptr) {
      return Fail(kDuplicateKey,
                  absl::StrCat("dict key \"", name,
                               "\" is given twice (Python keeps the last)"));
    }
    path_.push_back(PathEntry{name, 0, true});
    if (!ReadValue(value, depth + 1)) return false;
    path_.pop_back();
    if (!SkipToMore("in a dict")) return false;
    if (text_[p_] == ',') {
      ++p_;
    } else if (text_[p_] != '}') {
      return Fail(kMalformedToolCall,
                  "expected ',' or '}' (a value is a literal, not an "
                  "expression)");
    } else {
      break;
    }
  }
  ++p_;  // The '}'.
  return true;
}

bool PythonicReader::ReadWord(Json* out) {
  const size_t start = p_;
  while (p_ < text_.size() && IsIdentChar(text_[p_])) ++p_;
  const absl::string_view word = text_.substr(start, p_ - start);
  if (p_ < text_.size() && (text_[p_] == '\'' || text_[p_] == '"')) {
    if (word == "u" || word == "U") return ReadStringValue(out);
    if (word.size() <= 2 &&
        word.find_first_not_of("rRbBfF") == absl::string_view::npos) {
      return Fail(kUnsupportedSyntax,
                  "string prefixes other than u (raw, bytes, f-strings) are "
                  "not read");
    }
  }
  if (p_ < text_.size() && static_cast<unsigned char>(text_[p_]) >= 0x80) {
    return Fail(kUnsupportedSyntax,
                "non-ASCII names are not read (Python normalizes them)");
  }
  if (word == "True" || word == "False") {
    *out = Json(word == "True");
    return true;
  }
  if (word == "None") {
    *out = Json(nullptr);
    return true;
  }
  p_ = start;
  return Fail(kMalformedToolCall,
              absl::StrCat("\"", word, "\" is a name, an expression: values "
                           "are literals (nothing is evaluated)"));
}

Block ReadPythonicBlock(absl::string_view text, size_t begin,
                        const ReadOptions& options) {
  Block block = PythonicReader(text, options).ReadBlock(begin);
  if (!block.error.code.empty()) return block;
  // The frame skips ASCII white space around the block; Python's does not
  // include a vertical tab ("invalid non-printable character U+000B").
  size_t before = begin;
  while (before > 0 && absl::ascii_isspace(text[before - 1])) --before;
  const size_t after = SkipSpace(text, block.end);
  const absl::string_view around[] = {
      text.substr(before, begin - before),
      text.substr(block.end, after - block.end)};
  for (absl::string_view space : around) {
    if (space.find('\v') != absl::string_view::npos) {
      return formats::Fail(kMalformedToolCall, "",
                           "a vertical tab around the calls (Python refuses "
                           "it)");
    }
  }
  return block;
}

}  // namespace formats
}  // namespace extract
}  // namespace toolgate
