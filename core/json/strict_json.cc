#include "core/json/strict_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "core/json/strict_json_parser_internal.h"
#include "core/json/strict_json_sax_internal.h"
#include "core/json/strict_json_scan_internal.h"
#include "core/json/utf8.h"

namespace toolgate {
namespace {

constexpr absl::string_view kCodePayload = "type.toolgate.dev/json_error_code";
constexpr absl::string_view kPointerPayload = "type.toolgate.dev/json_pointer";

// Why the fast parser refused `text`. It only decides; the SAX parser it
// replaced explains, so codes, pointers and messages stay exactly what they
// were (callers quote them). Refusals are the rare path, so they pay: up to
// ~1.6x the old cost when the error is at the end of a large input
// (strict_json_benchmark's Refused rows), rather than every accepted input
// paying for line/column and token-text bookkeeping.
absl::Status RefusalStatus(absl::string_view text, const JsonLimits& limits,
                           size_t error_offset) {
  absl::StatusOr<Json> sax =
      json_internal::ParseStrictJsonWithSax(text, limits);
  if (!sax.ok()) return sax.status();
  // The SAX parser accepts what it should not in one case: nlohmann's lexer
  // takes a NUL byte outside strings for the end of the input, so
  // "{}\0junk" passed as {}. Trailing bytes are refused, NUL included.
  // The fast parser stopped at that byte.
  const size_t at = std::min(error_offset, text.size() - 1);
  return MakeJsonError(
      kInvalidJson, "",
      absl::StrCat("unexpected byte 0x",
                   absl::Hex(static_cast<unsigned char>(text[at]),
                             absl::kZeroPad2),
                   " at byte offset ", at, "; expected end of input"));
}

// Writes what nlohmann's dump() writes, so canonical bytes (and the snapshot
// ids hashed from them) stay what they were, except that doubles get the
// shortest digits closest to them: dump()'s Grisu2 misses those for about
// one double in a thousand, and ParseStrictJson refuses its digits there as
// number_inexact.
void AppendDump(const Json& value, std::string* out) {
  // replace keeps dump() from throwing on invalid UTF-8 in values built
  // elsewhere (parsed input was checked).
  out->append(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

// Bytes dump() copies as they are: printable ASCII but '"' and '\\'. A
// table, so the common case costs one load per byte.
struct PlainBytes {
  bool plain[256] = {};
  constexpr PlainBytes() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr PlainBytes kPlainBytes;

// Whether all eight bytes at `p` are plain: none with the high bit, none
// under 0x20, no '"' and no '\\'. The "has a byte less than" tests are exact
// for existence, which is all this asks.
inline bool PlainWord(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = kOnes << 7;
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  if ((w & kHigh) != 0) return false;
  const uint64_t quote = w ^ (kOnes * '"');
  const uint64_t backslash = w ^ (kOnes * '\\');
  const uint64_t control = (w - kOnes * 0x20) & ~w;
  const uint64_t is_quote = (quote - kOnes) & ~quote;
  const uint64_t is_backslash = (backslash - kOnes) & ~backslash;
  return ((control | is_quote | is_backslash) & kHigh) == 0;
}

// A JSON string as dump() escapes it: the two-character escapes, \u00XX for
// other control characters, everything else as is.
void AppendString(const std::string& s, std::string* out) {
  const size_t start = out->size();
  out->push_back('"');
  const char* p = s.data();
  const char* const end = p + s.size();
  while (p < end) {
    // Most text needs no escaping: copy each plain run at once.
    const char* const run = p;
    while (end - p >= 8 && PlainWord(p)) p += 8;
    while (p < end && kPlainBytes.plain[static_cast<unsigned char>(*p)]) ++p;
    out->append(run, static_cast<size_t>(p - run));
    if (p == end) break;
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(p, end);
      if (len == 0) {  // Invalid UTF-8: dump()'s replacement rules.
        out->resize(start);
        AppendDump(Json(s), out);
        return;
      }
      out->append(p, len);
      p += len;
      continue;
    }
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (c < 0x20) {
          absl::StrAppend(out, "\\u00", absl::Hex(c, absl::kZeroPad2));
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++p;
  }
  out->push_back('"');
}

void AppendCanonical(const Json& value, std::string* out) {
  switch (value.type()) {
    case Json::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (const auto& [key, member] : value.get_ref<const Json::object_t&>()) {
        if (!first) out->push_back(',');
        first = false;
        AppendString(key, out);
        out->push_back(':');
        AppendCanonical(member, out);
      }
      out->push_back('}');
      return;
    }
    case Json::value_t::array: {
      out->push_back('[');
      bool first = true;
      for (const Json& element : value) {
        if (!first) out->push_back(',');
        first = false;
        AppendCanonical(element, out);
      }
      out->push_back(']');
      return;
    }
    case Json::value_t::string:
      AppendString(value.get_ref<const std::string&>(), out);
      return;
    case Json::value_t::null:
      out->append("null");
      return;
    case Json::value_t::boolean:
      out->append(value.get<bool>() ? "true" : "false");
      return;
    case Json::value_t::number_integer:
      absl::StrAppend(out, value.get<Json::number_integer_t>());
      return;
    case Json::value_t::number_unsigned:
      absl::StrAppend(out, value.get<Json::number_unsigned_t>());
      return;
    case Json::value_t::number_float: {
      const double d = value.get<double>();
      if (!std::isfinite(d)) break;  // dump() writes null.
      char buf[32];
      out->append(buf, json_internal::FormatDouble(d, buf));
      return;
    }
    default:
      break;
  }
  AppendDump(value, out);
}

}  // namespace

absl::StatusOr<Json> ParseStrictJson(absl::string_view text,
                                     const JsonLimits& limits) {
  if (absl::Status s = json_internal::CheckSizeAndPresence(text, limits);
      !s.ok()) {
    return s;
  }
  Json root;
  size_t error_offset = 0;
  try {
    if (json_internal::FastParseJson(text, limits.max_depth, &root,
                                     &error_offset)) {
      return root;
    }
  } catch (const std::exception& e) {  // std::bad_alloc
    return MakeJsonError(kInvalidJson, "", e.what());
  }
  return RefusalStatus(text, limits, error_offset);
}

absl::Status MakeJsonError(absl::string_view code, absl::string_view pointer,
                           absl::string_view message) {
  // Messages may quote raw input (nlohmann's "last read: ..."): keep them
  // valid UTF-8 so they can travel in proto strings.
  absl::Status s(absl::StatusCode::kInvalidArgument,
                 ToValidUtf8(pointer.empty()
                                 ? message
                                 : absl::StrCat(message, " at ", pointer)));
  s.SetPayload(kCodePayload, absl::Cord(code));
  s.SetPayload(kPointerPayload, absl::Cord(pointer));
  return s;
}

std::string JsonErrorCode(const absl::Status& status) {
  auto code = status.GetPayload(kCodePayload);
  return code.has_value() ? std::string(*code) : std::string(kInvalidJson);
}

std::string JsonErrorPointer(const absl::Status& status) {
  auto p = status.GetPayload(kPointerPayload);
  return p.has_value() ? std::string(*p) : std::string();
}

std::string CanonicalJson(const Json& value) {
  std::string out;
  AppendCanonical(value, &out);
  return out;
}

std::string TruncatedJson(const Json& value, size_t max_chars) {
  std::string s = CanonicalJson(value);
  if (s.size() <= max_chars) return s;
  size_t cut = max_chars;
  // Never split a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  s += "...";
  return s;
}

std::string EscapePointerToken(absl::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

absl::string_view JsonTypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "integer";
    case Json::value_t::number_float: {
      const double d = value.get<double>();
      return std::floor(d) == d ? "integer" : "number";
    }
    case Json::value_t::string: return "string";
    case Json::value_t::array: return "array";
    case Json::value_t::object: return "object";
    default: return "unknown";
  }
}

}  // namespace toolgate
