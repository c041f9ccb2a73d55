#include "core/schema/internal/regex.h"

#include <cctype>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

// ECMA-262 WhiteSpace and LineTerminator: RE2's \s is ASCII only.
constexpr absl::string_view kEcmaSpace =
    "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}"
    "\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
// ECMA '.' excludes line terminators; RE2's excludes only \n.
constexpr absl::string_view kEcmaDot = "[^\\n\\r\\x{2028}\\x{2029}]";

absl::Status Refuse(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

std::string CodePoint(uint32_t cp) { return absl::StrFormat("\\x{%X}", cp); }

bool ReadHex(absl::string_view s, size_t pos, size_t n, uint32_t* out) {
  if (pos + n > s.size()) return false;
  uint32_t v = 0;
  for (size_t k = 0; k < n; ++k) {
    const char c = s[pos + k];
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    v = v * 16 + static_cast<uint32_t>(std::isdigit(c) ? c - '0'
                                                       : (std::tolower(c) - 'a' + 10));
  }
  *out = v;
  return true;
}

// Unicode property names as ECMA spells them -> RE2's names.
std::string PropertyName(std::string name) {
  for (absl::string_view prefix :
       {"General_Category=", "gc=", "Script=", "sc=", "Script_Extensions=",
        "scx="}) {
    if (absl::string_view(name).substr(0, prefix.size()) == prefix) {
      name = name.substr(prefix.size());
    }
  }
  static const std::pair<const char*, const char*> kLong[] = {
      {"Letter", "L"}, {"Lowercase_Letter", "Ll"}, {"Uppercase_Letter", "Lu"},
      {"Titlecase_Letter", "Lt"}, {"Modifier_Letter", "Lm"},
      {"Other_Letter", "Lo"}, {"Mark", "M"}, {"Number", "N"},
      {"Decimal_Number", "Nd"}, {"digit", "Nd"}, {"Letter_Number", "Nl"},
      {"Other_Number", "No"}, {"Punctuation", "P"}, {"punct", "P"},
      {"Symbol", "S"}, {"Separator", "Z"}, {"Space_Separator", "Zs"},
      {"Other", "C"}, {"Control", "Cc"}, {"cntrl", "Cc"},
  };
  for (const auto& [from, to] : kLong) {
    if (name == from) return to;
  }
  return name;
}

class Translator {
 public:
  explicit Translator(absl::string_view p) : p_(p) {}

  absl::StatusOr<std::string> Run() {
    while (i_ < p_.size()) {
      absl::Status s = Step();
      if (!s.ok()) return s;
    }
    if (in_class_) return Refuse("unterminated character class");
    return out_;
  }

 private:
  absl::Status Step() {
    const char c = p_[i_];
    if (c == '\\') return Escape();
    if (in_class_) return ClassChar(c);
    if (c == '[') return OpenClass();
    if (c == '(') return Group();
    if (c == '.') {
      absl::StrAppend(&out_, kEcmaDot);
      ++i_;
      return absl::OkStatus();
    }
    out_ += c;
    ++i_;
    return absl::OkStatus();
  }

  absl::Status OpenClass() {
    ++i_;
    const bool negated = i_ < p_.size() && p_[i_] == '^';
    if (negated) ++i_;
    if (i_ < p_.size() && p_[i_] == ']') {  // [] or [^]
      ++i_;
      out_ += negated ? "[\\x{0}-\\x{10FFFF}]" : "[^\\x{0}-\\x{10FFFF}]";
      return absl::OkStatus();
    }
    out_ += negated ? "[^" : "[";
    in_class_ = true;
    return absl::OkStatus();
  }

  absl::Status ClassChar(char c) {
    ++i_;
    if (c == ']') {
      in_class_ = false;
      out_ += ']';
    } else if (c == '[') {
      out_ += "\\[";
    } else {
      out_ += c;
    }
    return absl::OkStatus();
  }

  absl::Status Group() {
    absl::string_view rest = p_.substr(i_);
    if (rest.substr(0, 3) == "(?=" || rest.substr(0, 3) == "(?!" ||
        rest.substr(0, 4) == "(?<=" || rest.substr(0, 4) == "(?<!") {
      return Refuse(absl::StrCat("lookaround assertion \"", rest.substr(0, 4),
                                 "...\" is not supported (RE2 runs in linear "
                                 "time and has no lookaround)"));
    }
    if (rest.substr(0, 3) == "(?<") {
      out_ += "(?P<";
      i_ += 3;
      return absl::OkStatus();
    }
    out_ += '(';
    ++i_;
    return absl::OkStatus();
  }

  absl::Status Escape() {
    if (i_ + 1 >= p_.size()) return Refuse("pattern ends with a backslash");
    const char c = p_[i_ + 1];
    i_ += 2;
    switch (c) {
      case 'd': case 'D': case 'w': case 'W':
      case 'f': case 'n': case 'r': case 't': case 'v':
        absl::StrAppend(&out_, "\\", std::string(1, c));
        return absl::OkStatus();
      case 'b': case 'B':
        if (in_class_ && c == 'b') {
          out_ += "\\x08";
        } else if (in_class_) {
          return Refuse("\\B inside a character class");
        } else {
          absl::StrAppend(&out_, "\\", std::string(1, c));
        }
        return absl::OkStatus();
      case 's':
        out_ += in_class_ ? std::string(kEcmaSpace)
                          : absl::StrCat("[", kEcmaSpace, "]");
        return absl::OkStatus();
      case 'S':
        if (in_class_) return Refuse("\\S inside a character class");
        absl::StrAppend(&out_, "[^", kEcmaSpace, "]");
        return absl::OkStatus();
      case 'u': return Unicode();
      case 'x': {
        uint32_t v;
        if (!ReadHex(p_, i_, 2, &v)) return Refuse("malformed \\x escape");
        i_ += 2;
        out_ += CodePoint(v);
        return absl::OkStatus();
      }
      case 'c': {
        if (i_ >= p_.size() || !std::isalpha(static_cast<unsigned char>(p_[i_]))) {
          return Refuse("malformed \\c escape");
        }
        out_ += CodePoint(static_cast<uint32_t>(p_[i_++]) % 32);
        return absl::OkStatus();
      }
      case 'p': case 'P': return Property(c);
      case 'k':
        return Refuse("named backreference \\k<...> is not supported (RE2 "
                      "runs in linear time and has no backreferences)");
      case '0':
        out_ += "\\x00";
        return absl::OkStatus();
      default:
        break;
    }
    if (c >= '1' && c <= '9') {
      return Refuse(absl::StrCat("backreference \\", std::string(1, c),
                                 " is not supported (RE2 runs in linear time "
                                 "and has no backreferences)"));
    }
    if (std::isalnum(static_cast<unsigned char>(c))) {
      return Refuse(absl::StrCat("unknown escape \\", std::string(1, c)));
    }
    if (static_cast<unsigned char>(c) >= 0x80) {  // Escaped non-ASCII: itself.
      --i_;
      return absl::OkStatus();
    }
    absl::StrAppend(&out_, "\\", std::string(1, c));
    return absl::OkStatus();
  }

  absl::Status Unicode() {
    uint32_t cp;
    if (i_ < p_.size() && p_[i_] == '{') {
      const size_t close = p_.find('}', i_);
      if (close == absl::string_view::npos || close - i_ - 1 > 6 ||
          !ReadHex(p_, i_ + 1, close - i_ - 1, &cp) || cp > 0x10FFFF) {
        return Refuse("malformed \\u{...} escape");
      }
      i_ = close + 1;
    } else {
      if (!ReadHex(p_, i_, 4, &cp)) return Refuse("malformed \\u escape");
      i_ += 4;
      uint32_t low;
      if (cp >= 0xD800 && cp <= 0xDBFF && p_.substr(i_, 2) == "\\u" &&
          ReadHex(p_, i_ + 2, 4, &low) && low >= 0xDC00 && low <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        i_ += 6;
      }
    }
    out_ += CodePoint(cp);
    return absl::OkStatus();
  }

  absl::Status Property(char c) {
    if (i_ >= p_.size() || p_[i_] != '{') {
      return Refuse("malformed \\p escape");
    }
    const size_t close = p_.find('}', i_);
    if (close == absl::string_view::npos) return Refuse("malformed \\p escape");
    const std::string name =
        PropertyName(std::string(p_.substr(i_ + 1, close - i_ - 1)));
    i_ = close + 1;
    absl::StrAppend(&out_, "\\", std::string(1, c), "{", name, "}");
    return absl::OkStatus();
  }

  absl::string_view p_;
  size_t i_ = 0;
  bool in_class_ = false;
  std::string out_;
};

}  // namespace

absl::StatusOr<std::string> TranslateEcmaRegex(absl::string_view pattern) {
  return Translator(pattern).Run();
}

absl::StatusOr<std::unique_ptr<RE2>> CompileEcmaRegex(
    absl::string_view pattern, absl::string_view pointer) {
  auto translated = TranslateEcmaRegex(pattern);
  if (!translated.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern at ", pointer, " is refused: ",
                     translated.status().message()));
  }
  return CompileRe2(*translated, pointer);
}

absl::StatusOr<std::unique_ptr<RE2>> CompileRe2(const std::string& translated,
                                                absl::string_view pointer) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_encoding(RE2::Options::EncodingUTF8);
  auto re = std::make_unique<RE2>(translated, options);
  if (re->ok()) return re;
  const bool too_large = re->error_code() == RE2::ErrorPatternTooLarge ||
                         re->error_code() == RE2::ErrorRepeatSize;
  return absl::InvalidArgumentError(absl::StrCat(
      "pattern at ", pointer, " is refused: ",
      too_large ? "schema_too_complex: its program would be too large (" : "",
      re->error(), too_large ? ")" : ""));
}

bool IsEcmaRegex(absl::string_view s) {
  auto translated = TranslateEcmaRegex(s);
  if (!translated.ok()) return false;
  RE2::Options options;
  options.set_log_errors(false);
  options.set_encoding(RE2::Options::EncodingUTF8);
  // Room for ~1,000 instructions: RE2 parses the whole pattern (and checks
  // its repetition counts) before it compiles, and stops compiling there.
  options.set_max_mem(int64_t{96} << 10);
  RE2 re(*translated, options);
  return re.ok() || re.error_code() == RE2::ErrorPatternTooLarge;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
