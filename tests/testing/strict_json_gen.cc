#include "tests/testing/strict_json_gen.h"

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace toolgate {
namespace json_internal {
namespace {

// Code points of a valid UTF-8 string (the generator's own key pool).
std::vector<uint32_t> DecodeUtf8(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    const int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? b : b & (0xFF >> (len + 1));
    for (int k = 1; k < len; ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string HexEscape(uint32_t unit, bool upper) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), upper ? "\\u%04X" : "\\u%04x", unit);
  return buf;
}

}  // namespace

uint32_t JsonTextGenerator::RandomCodePoint() {
  switch (Uniform(0, 9)) {
    case 0:
      return static_cast<uint32_t>(Uniform(0, 0x1F));  // Control.
    case 1: {
      static constexpr char kPunct[] = "\"\\/ '{}[],:";
      return static_cast<uint32_t>(kPunct[Uniform(0, sizeof(kPunct) - 2)]);
    }
    case 2:
      return static_cast<uint32_t>(Uniform(0x80, 0x7FF));
    case 3: {
      // Three-byte, avoiding surrogates; the edges of the ranges included.
      static constexpr uint32_t kEdges[] = {0x800, 0xD7FF, 0xE000, 0xFFFD,
                                            0xFFFF, 0x4E2D};
      if (Chance(0.5)) return kEdges[Uniform(0, 5)];
      const uint32_t cp = static_cast<uint32_t>(Uniform(0x800, 0xFFFF));
      return cp >= 0xD800 && cp <= 0xDFFF ? cp - 0x800 : cp;
    }
    case 4:
      return Chance(0.3) ? 0x10FFFF
                         : static_cast<uint32_t>(Uniform(0x10000, 0x10FFFF));
    default:
      return static_cast<uint32_t>(Uniform(0x20, 0x7E));
  }
}

void JsonTextGenerator::AppendCodePoint(uint32_t cp, std::string* out) {
  const bool upper = Chance(0.5);
  static constexpr char kShort[] = "\"\\/\b\f\n\r\t";
  static constexpr char kShortName[] = "\"\\/bfnrt";
  for (int i = 0; i < 8; ++i) {
    if (cp == static_cast<unsigned char>(kShort[i]) && Chance(0.7)) {
      *out += '\\';
      *out += kShortName[i];
      return;
    }
  }
  const bool must_escape = cp < 0x20 || cp == '"' || cp == '\\';
  if (must_escape || Chance(0.25)) {
    if (cp >= 0x10000) {
      const uint32_t v = cp - 0x10000;
      *out += HexEscape(0xD800 + (v >> 10), upper);
      *out += HexEscape(0xDC00 + (v & 0x3FF), upper);
    } else {
      *out += HexEscape(cp, upper);
    }
    return;
  }
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string JsonTextGenerator::String() {
  std::string out = "\"";
  // Mostly short; sometimes long plain runs, which take the word-at-a-time
  // scanning path, with a special byte at every alignment.
  const int n = Chance(0.2) ? Uniform(8, 120) : Uniform(0, 12);
  const double plain = Chance(0.3) ? 0.95 : 0.5;
  for (int i = 0; i < n; ++i) {
    if (Chance(plain)) {
      out += static_cast<char>(Uniform('a', 'z'));
    } else {
      AppendCodePoint(RandomCodePoint(), &out);
    }
  }
  return out + "\"";
}

std::string JsonTextGenerator::KeyText(int index) {
  std::string out = "\"";
  for (uint32_t cp : DecodeUtf8(keys_[index])) {
    AppendCodePoint(cp, &out);
  }
  return out + "\"";
}

std::string JsonTextGenerator::Number() {
  static const char* const kEdges[] = {
      "0", "-0", "0.0", "-0.0", "1", "-1", "9223372036854775807",
      "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
      "18446744073709551615", "18446744073709551616", "99999999999999999999",
      "-18446744073709551616", "1e308", "1.7976931348623157e308",
      "1.7976931348623159e308", "1e309", "-1e400", "1e-400", "-1e-400",
      "4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
      "2.2250738585072014e-308", "1E+2", "1e-2", "0e0", "-0E-0", "1.5e+999",
      "123456789012345678901234567890", "0.1", "1e00000000000000000001"};
  switch (Uniform(0, 5)) {
    case 0:
      return kEdges[Uniform(0, sizeof(kEdges) / sizeof(kEdges[0]) - 1)];
    case 1:
      return std::to_string(Uniform(-1000, 1000));
    case 2: {
      const uint64_t v = rng_();
      return Chance(0.5) ? std::to_string(v)
                         : std::to_string(static_cast<int64_t>(v));
    }
    default: {
      std::string out = Chance(0.3) ? "-" : "";
      if (Chance(0.2)) {
        out += '0';  // JSON allows no other leading zero.
      } else {
        out += static_cast<char>(Uniform('1', '9'));
        for (int i = Chance(0.05) ? Uniform(20, 400) : Uniform(0, 5); i > 0;
             --i) {
          out += static_cast<char>(Uniform('0', '9'));
        }
      }
      if (Chance(0.5)) {
        out += '.';
        // Mostly digits a double holds; long fractions are refused as
        // number_inexact when not a double's shortest form.
        for (int i = Chance(0.2) ? Uniform(11, 20) : Uniform(1, 10); i > 0;
             --i) {
          out += static_cast<char>(Uniform('0', '9'));
        }
      }
      if (Chance(0.4)) {
        out += Chance(0.5) ? 'e' : 'E';
        if (Chance(0.5)) out += Chance(0.5) ? '+' : '-';
        out += std::to_string(Chance(0.2) ? Uniform(300, 330) : Uniform(0, 30));
      }
      return out;
    }
  }
}

std::string JsonTextGenerator::Whitespace() {
  if (Chance(0.6)) return "";
  if (Chance(0.6)) return " ";
  static constexpr char kWs[] = " \t\n\r";
  std::string out;
  for (int i = Uniform(1, 3); i > 0; --i) out += kWs[Uniform(0, 3)];
  return out;
}

std::string JsonTextGenerator::Object(int depth, int max_depth,
                                      bool* duplicate_key) {
  std::string out = "{" + Whitespace();
  std::vector<std::string> used;   // As spelled.
  std::vector<int> used_pool_keys;  // Which pool keys, however spelled.
  const int n = Uniform(0, 5);
  for (int i = 0; i < n; ++i) {
    std::string key;
    const int k = Uniform(0, static_cast<int>(keys_.size()) - 1);
    bool fresh = true;
    for (int u : used_pool_keys) fresh &= u != k;
    if (*duplicate_key && !used.empty() && Chance(0.5)) {
      // A key again: verbatim, or a pool key spelled anew.
      const auto pick = [this](int size) { return Uniform(0, size - 1); };
      key = !used_pool_keys.empty() && Chance(0.5)
                ? KeyText(used_pool_keys[pick(used_pool_keys.size())])
                : used[pick(used.size())];
      *duplicate_key = false;
    } else if (fresh && Chance(0.8)) {
      key = KeyText(k);
      used_pool_keys.push_back(k);
    } else {
      // Unique by its prefix: pool keys hold no '#'.
      key = "\"#" + std::to_string(i) + "#" + String().substr(1);
    }
    used.push_back(key);
    if (i > 0) out += "," + Whitespace();
    out += key + Whitespace() + ":" + Whitespace() +
           Value(depth + 1, max_depth, duplicate_key) + Whitespace();
  }
  return out + "}";
}

std::string JsonTextGenerator::Array(int depth, int max_depth,
                                     bool* duplicate_key) {
  std::string out = "[" + Whitespace();
  const int n = Uniform(0, 6);
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += "," + Whitespace();
    out += Value(depth + 1, max_depth, duplicate_key) + Whitespace();
  }
  return out + "]";
}

std::string JsonTextGenerator::Value(int depth, int max_depth,
                                     bool* duplicate_key) {
  if (depth < max_depth && Chance(depth == 0 ? 0.9 : 0.35)) {
    return Chance(0.6) ? Object(depth, max_depth, duplicate_key)
                       : Array(depth, max_depth, duplicate_key);
  }
  switch (Uniform(0, 6)) {
    case 0: case 1: case 2: return String();
    case 3: case 4: return Number();
    case 5: return Chance(0.5) ? "true" : "false";
    default: return "null";
  }
}

std::string JsonTextGenerator::Document(int max_depth, bool duplicate_key) {
  std::string out = Chance(0.03) ? "\xEF\xBB\xBF" : "";
  out += Whitespace();
  out += Value(0, max_depth, &duplicate_key);
  return out + Whitespace();
}

std::string JsonTextGenerator::Nested(int depth) {
  std::string open, close;
  for (int i = 0; i < depth; ++i) {
    if (Chance(0.5)) {
      open += "[";
      close = "]" + close;
    } else {
      open += "{\"k\":";
      close = "}" + close;
    }
  }
  return open + "1" + close;
}

std::string JsonTextGenerator::Mutate(const std::string& text) {
  static const char* const kSnippets[] = {
      ",", "]", "}", "[", "{", ":", "\"", "\\", "\\u", "\\ud800", "\\udc00",
      "\\ud800\\u0041", "\\uD83D\\uDE00", "\\ud800\\", "\\x", "\\u12G4",
      "\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xED\xA0\x80", "\xC0\xAF",
      "\xF4\x90\x80\x80", "\xE0\x80\x80", "\xF0\x80\x80\x80", "\x80",
      "\x01", "\x1F", "\x7F", " ", "1e", "-",
      "01", ".5", "5.", "+1", "NaN", "Infinity", "tru", "nul", "fals",
      "\xEF\xBB\xBF", "//", "/*", "1e400", "\"k\":1,"};
  static constexpr char kBytes[] =
      "\"\\,:[]{} \t\n0123456789-+.eEtfnu/\x01\x1f\x7f\x80\xbf\xc0\xc2\xdf"
      "\xe0\xed\xef\xf0\xf4\xf5\xff";
  std::string out = text;
  const size_t pos =
      static_cast<size_t>(Uniform(0, static_cast<int>(out.size())));
  switch (Uniform(0, 4)) {
    case 0:  // Replace a byte.
      if (pos < out.size()) {
        out[pos] = Chance(0.8) ? kBytes[Uniform(0, sizeof(kBytes) - 2)]
                               : static_cast<char>(Uniform(0, 255));
      }
      break;
    case 1:  // Remove one byte or a short range.
      out.erase(pos, Chance(0.7) ? 1 : Uniform(1, 8));
      break;
    case 2:
      out.insert(pos, 1, '\0');
      break;
    default: {  // Insert a snippet.
      const size_t n = sizeof(kSnippets) / sizeof(kSnippets[0]);
      const size_t k = static_cast<size_t>(Uniform(0, static_cast<int>(n) - 1));
      out.insert(pos, kSnippets[k]);
      break;
    }
  }
  return out;
}

}  // namespace json_internal
}  // namespace toolgate
