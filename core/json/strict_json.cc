#include "core/json/strict_json.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "core/json/strict_json_parser_internal.h"
#include "core/json/strict_json_sax_internal.h"
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
  // Inputs were UTF-8 checked at parse; replace keeps dump() from throwing
  // on values built elsewhere.
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
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
