#include "core/repair/repair.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/repair/lexer.h"
#include "core/text/fences.h"
#include "core/text/lines.h"

namespace toolgate {
namespace repair {
namespace {

bool IsWordChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '$' || c == '-' || c == '+' || c == '.';
}

bool IsIdentifier(absl::string_view word) {
  if (word.empty()) return false;
  const unsigned char first = static_cast<unsigned char>(word[0]);
  if (!absl::ascii_isalpha(first) && first != '_' && first != '$') return false;
  for (char c : word) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' &&
        c != '$') {
      return false;
    }
  }
  return true;
}

// One forward pass over the input. A tiny grammar state (what the next
// token should be) decides whether a bare word is a key; everything the
// rewriter does not understand is copied verbatim for the strict parser to
// refuse.
class Rewriter {
 public:
  explicit Rewriter(absl::string_view in) : in_(in) {
    out_.reserve(in.size() + 16);
  }

  RewriteResult Run() && {
    size_t i = 0;
    while (i < in_.size() && !cut_off_) i = Step(i);
    RewriteResult result;
    result.text = std::move(out_);
    result.repairs = std::move(repairs_);
    result.cut_off = cut_off_;
    return result;
  }

 private:
  enum class Expect { kValue, kKey, kColon, kCommaOrEnd };

  size_t Step(size_t i) {
    const char c = in_[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      out_ += c;
      return i + 1;
    }
    if (c == '/') {
      const size_t end = CommentEnd(in_, i);
      if (end == absl::string_view::npos) {
        cut_off_ = true;
        return in_.size();
      }
      if (end != i) {
        Note(kComment);
        return end;
      }
    }
    size_t quote_len = 0;
    const QuoteKind kind = OpeningQuoteAt(in_, i, &quote_len);
    if (kind != QuoteKind::kNone) return String(i, kind, quote_len);
    if (c == '{' || c == '[') return Open(i);
    if (c == '}' || c == ']') return Close(i);
    if (c == ',') return Comma(i);
    if (c == ':') return Token(i, 1, Expect::kValue);
    if (IsWordChar(c)) return Word(i);
    return Token(i, 1, Expect::kCommaOrEnd);
  }

  void Note(absl::string_view repair) {
    if (std::find(repairs_.begin(), repairs_.end(), repair) == repairs_.end()) {
      repairs_.emplace_back(repair);
    }
  }

  // A comma is written where it stands, so that strict JSON comes back
  // byte for byte, and remembered until the next token: when that token
  // closes the container it was a trailing comma and is taken out again
  // (only whitespace follows it in out_, so each byte moves at most once).
  void KeepComma() { pending_comma_ = false; }

  Expect AfterScalar() const {
    return expect_ == Expect::kKey ? Expect::kColon : Expect::kCommaOrEnd;
  }

  size_t Token(size_t i, size_t len, Expect next) {
    KeepComma();
    out_.append(in_.data() + i, len);
    expect_ = next;
    return i + len;
  }

  size_t Open(size_t i) {
    KeepComma();
    out_ += in_[i];
    stack_.push_back(in_[i]);
    expect_ = in_[i] == '{' ? Expect::kKey : Expect::kValue;
    return i + 1;
  }

  size_t Close(size_t i) {
    if (pending_comma_) {
      pending_comma_ = false;
      out_.erase(pending_comma_at_, 1);
      Note(kTrailingComma);
    }
    out_ += in_[i];
    if (!stack_.empty()) stack_.pop_back();
    expect_ = Expect::kCommaOrEnd;
    return i + 1;
  }

  size_t Comma(size_t i) {
    if (expect_ != Expect::kCommaOrEnd || stack_.empty()) {
      return Token(i, 1, expect_);  // Leading or doubled: left invalid.
    }
    pending_comma_ = true;
    pending_comma_at_ = out_.size();
    out_ += ',';
    expect_ = stack_.back() == '{' ? Expect::kKey : Expect::kValue;
    return i + 1;
  }

  size_t Word(size_t i) {
    size_t end = i;
    while (end < in_.size() && IsWordChar(in_[end])) ++end;
    const absl::string_view word = in_.substr(i, end - i);
    KeepComma();
    if (expect_ == Expect::kKey && IsIdentifier(word)) {
      absl::StrAppend(&out_, "\"", word, "\"");
      Note(kUnquotedKey);
    } else if (expect_ == Expect::kValue && word == "True") {
      out_ += "true";
      Note(kPythonLiteral);
    } else if (expect_ == Expect::kValue && word == "False") {
      out_ += "false";
      Note(kPythonLiteral);
    } else if (expect_ == Expect::kValue && word == "None") {
      out_ += "null";
      Note(kPythonLiteral);
    } else {
      out_.append(word.data(), word.size());
    }
    expect_ = AfterScalar();
    return end;
  }

  size_t String(size_t i, QuoteKind kind, size_t quote_len);
  void StringByte(char c, QuoteKind kind);

  absl::string_view in_;
  std::string out_;
  std::vector<std::string> repairs_;
  std::vector<char> stack_;
  Expect expect_ = Expect::kValue;
  bool pending_comma_ = false;
  size_t pending_comma_at_ = 0;  // Where in out_ the pending comma is.
  bool cut_off_ = false;
};

// Copies one string as a double-quoted JSON string. An unterminated string
// is copied to the end without a closing quote: truncated stays truncated.
size_t Rewriter::String(size_t i, QuoteKind kind, size_t quote_len) {
  KeepComma();
  if (kind == QuoteKind::kSingle) Note(kSingleQuotes);
  if (kind == QuoteKind::kSmartDouble || kind == QuoteKind::kSmartSingle) {
    Note(kSmartQuotes);
  }
  out_ += '"';
  size_t pos = i + quote_len;
  while (pos < in_.size()) {
    size_t close_len = 0;
    if (ClosingQuoteAt(in_, pos, kind, &close_len)) {
      out_ += '"';
      expect_ = AfterScalar();
      return pos + close_len;
    }
    if (in_[pos] == '\\' && pos + 1 < in_.size()) {
      // \' is not a JSON escape; inside a single-quoted string it means '.
      if (kind == QuoteKind::kSingle && in_[pos + 1] == '\'') {
        out_ += '\'';
      } else {
        out_.append(in_.data() + pos, 2);
      }
      pos += 2;
      continue;
    }
    StringByte(in_[pos], kind);
    ++pos;
  }
  expect_ = AfterScalar();
  return pos;
}

void Rewriter::StringByte(char c, QuoteKind kind) {
  const unsigned char u = static_cast<unsigned char>(c);
  if (u < 0x20) {
    Note(kControlCharacter);
    switch (c) {
      case '\n': out_ += "\\n"; return;
      case '\r': out_ += "\\r"; return;
      case '\t': out_ += "\\t"; return;
      case '\b': out_ += "\\b"; return;
      case '\f': out_ += "\\f"; return;
      default: absl::StrAppendFormat(&out_, "\\u%04x", u); return;
    }
  }
  if (c == '"' && kind != QuoteKind::kDouble) {
    out_ += "\\\"";
    return;
  }
  out_ += c;
}

// A value wrapped in one markdown fence (and nothing else but whitespace)
// is unwrapped. A fence that never closes means the text was cut off.
struct Unfenced {
  absl::string_view text;
  bool stripped = false;
  bool cut_off = false;
};

Unfenced StripMarkdownFence(absl::string_view text) {
  Unfenced result{text};
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == absl::string_view::npos) return result;
  const size_t line = text::LineStart(text, first);
  std::optional<text::Fence> fence = text::MatchFenceAt(text, line);
  if (!fence.has_value() || !text::IsJsonInfo(fence->info)) return result;
  if (!fence->closed) {
    result.cut_off = true;
    return result;
  }
  if (text.find_first_not_of(" \t\r\n", fence->end) !=
      absl::string_view::npos) {
    return result;
  }
  result.text = fence->Content(text);
  result.stripped = true;
  return result;
}

ParsedJson Failure(const absl::Status& status, absl::string_view prefix) {
  ParsedJson out;
  out.code = JsonErrorCode(status);
  out.pointer = JsonErrorPointer(status);
  out.message = absl::StrCat(prefix, status.message());
  return out;
}

}  // namespace

RewriteResult RewriteSyntax(absl::string_view text) {
  const Unfenced unfenced = StripMarkdownFence(text);
  if (unfenced.cut_off) {
    RewriteResult result;
    result.text = std::string(text);
    result.cut_off = true;
    return result;
  }
  RewriteResult result = Rewriter(unfenced.text).Run();
  if (unfenced.stripped) {
    result.repairs.insert(result.repairs.begin(), std::string(kMarkdownFence));
  }
  return result;
}

ParsedJson ParseJson(absl::string_view text, RepairPolicy policy,
                     const JsonLimits& limits) {
  absl::StatusOr<Json> strict = ParseStrictJson(text, limits);
  if (strict.ok()) {
    ParsedJson out;
    out.value = *std::move(strict);
    return out;
  }
  if (policy == RepairPolicy::kStrict ||
      JsonErrorCode(strict.status()) != kInvalidJson) {
    return Failure(strict.status(), "");
  }
  RewriteResult rewritten = RewriteSyntax(text);
  if (rewritten.cut_off) {
    ParsedJson out;
    out.code = std::string(kTruncatedJson);
    out.message = "text ends inside an unclosed comment or markdown fence";
    return out;
  }
  if (rewritten.repairs.empty()) return Failure(strict.status(), "");
  JsonLimits relaxed = limits;
  relaxed.max_bytes = std::max(limits.max_bytes, rewritten.text.size());
  absl::StatusOr<Json> repaired = ParseStrictJson(rewritten.text, relaxed);
  if (!repaired.ok()) {
    return Failure(repaired.status(), "still not JSON after syntax repair: ");
  }
  ParsedJson out;
  out.value = *std::move(repaired);
  out.repairs = std::move(rewritten.repairs);
  return out;
}

}  // namespace repair
}  // namespace toolgate
