#include "core/extract/scan.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/extract/scan_commonmark.h"
#include "core/repair/lexer.h"
#include "core/text/fences.h"
#include "core/text/lines.h"
#include "core/text/stop_bytes.h"

namespace toolgate {
namespace extract {
namespace {

constexpr absl::string_view kTagOpen = "<tool_call>";
constexpr absl::string_view kTagClose = "</tool_call>";
constexpr absl::string_view kThinkOpen = "<think>";
constexpr absl::string_view kThinkClose = "</think>";
constexpr absl::string_view kAction = "Action:";
constexpr absl::string_view kActionInput = "Action Input:";
constexpr size_t kNpos = absl::string_view::npos;

using text::Fence;
using text::IsFenceOpenerLine;
using text::IsJsonInfo;
using text::MatchFenceAt;

bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '$';
}

// The bytes the scan must look at outside a line start: line ends, "<"
// (tags), and with bare objects "{" and "[".
constexpr auto kStops = text::MakeStopBytes("\n\r<");
constexpr auto kStopsBare = text::MakeStopBytes("\n\r<{[");

struct Span {
  size_t end = 0;
  bool closed = false;  // Brackets balanced at `end`.
  bool at_eof = false;  // Still open at the end of the text.
};

class Scanner {
 public:
  Scanner(absl::string_view text, const ScanOptions& options)
      : text_(text), options_(options) {}

  ScanResult Run() && {
    size_t pos = 0;
    bool line_start = true;
    while (pos < text_.size() && !done_) {
      if (!line_start) {
        pos = SkipPlain(pos);
        if (pos == text_.size()) break;
      }
      size_t next = line_start ? AtLineStart(pos) : pos;
      if (next == pos) next = AtChar(pos);
      pos = next == pos ? pos + 1 : next;
      // After "\n", or after a "\r" not followed by "\n" (lines.h).
      const char before = text_[pos - 1];
      line_start =
          before == '\n' ||
          (before == '\r' && (pos == text_.size() || text_[pos] != '\n'));
    }
    if (!done_) CheckPartialDelimiter();
    return std::move(result_);
  }

  const Reasoning& reasoning() const { return reasoning_; }

 private:
  // Bytes that are no line end and where AtChar finds nothing are passed
  // at once: byte by byte, this loop was a quarter of ExtractVerdict.
  size_t SkipPlain(size_t pos) const {
    return options_.bare_objects ? kStopsBare.Find(text_, pos)
                                 : kStops.Find(text_, pos);
  }

  bool At(size_t pos, absl::string_view s) const {
    return text_.substr(pos, s.size()) == s;
  }
  size_t SkipBlank(size_t pos) const {  // Spaces and tabs.
    while (pos < text_.size() && (text_[pos] == ' ' || text_[pos] == '\t')) {
      ++pos;
    }
    return pos;
  }
  size_t SkipSpace(size_t pos) const {
    while (pos < text_.size() && absl::ascii_isspace(text_[pos])) ++pos;
    return pos;
  }
  size_t LineEnd(size_t pos) const { return text::LineEnd(text_, pos); }

  size_t Truncate(Truncation kind, std::string message) {
    result_.truncation = kind;
    result_.truncation_message = std::move(message);
    done_ = true;
    return text_.size();
  }

  Candidate& Add(CallSource source, size_t begin, size_t end, size_t json_begin,
                 size_t json_end) {
    Candidate c;
    c.source = source;
    c.begin = begin;
    c.end = end;
    c.json = text_.substr(json_begin, json_end - json_begin);
    result_.candidates.push_back(std::move(c));
    return result_.candidates.back();
  }

  size_t AtLineStart(size_t pos) {
    if (IsFenceOpenerLine(text_, pos)) return OnFence(pos);
    if (options_.react) return OnReact(pos);
    return pos;
  }

  size_t AtChar(size_t pos) {
    const char c = text_[pos];
    if (c == '<') {
      if (At(pos, kThinkOpen)) return OnThink(pos);
      if (At(pos, kThinkClose)) {
        // Everything before an unopened </think> was reasoning.
        result_.candidates.clear();
        reasoning_.prefix_end = pos + kThinkClose.size();
        return pos + kThinkClose.size();
      }
      if (options_.tags && At(pos, kTagOpen)) return OnTag(pos);
    }
    if (options_.bare_objects && (c == '{' || c == '[') &&
        LooksLikeObject(pos)) {
      return OnBare(pos);
    }
    return pos;
  }

  size_t OnFence(size_t pos);
  size_t OnThink(size_t pos);
  size_t OnTag(size_t pos);
  size_t OnBare(size_t pos);
  size_t OnReact(size_t pos);
  size_t OnReactInput(size_t begin, std::string name, size_t pos);
  size_t OnReactFence(size_t begin, std::string name, size_t line);
  bool LooksLikeObject(size_t pos) const;
  Span ScanSpan(size_t pos) const;
  void CheckPartialDelimiter();

  absl::string_view text_;
  const ScanOptions& options_;
  ScanResult result_;
  Reasoning reasoning_;
  bool done_ = false;
};

size_t Scanner::OnFence(size_t pos) {
  std::optional<Fence> fence = MatchFenceAt(text_, pos);
  if (!fence->closed) {
    return Truncate(
        Truncation::kUnclosedFence,
        absl::StrCat("code fence opened at byte ", pos, " is never closed"));
  }
  if (IsJsonInfo(fence->info)) {
    Candidate& c = Add(CallSource::kFencedBlock, fence->begin, fence->end,
                       fence->content_begin, fence->content_end);
    c.fence_begin = fence->begin;
    c.fence_end = fence->end;
  }
  return fence->end;
}

size_t Scanner::OnThink(size_t pos) {
  const size_t close = text_.find(kThinkClose, pos + kThinkOpen.size());
  if (close == kNpos) {
    return Truncate(Truncation::kUnclosedReasoning,
                    absl::StrCat("<think> at byte ", pos, " is never closed"));
  }
  reasoning_.spans.emplace_back(pos, close + kThinkClose.size());
  return close + kThinkClose.size();
}

size_t Scanner::OnTag(size_t pos) {
  const size_t begin = pos + kTagOpen.size();
  size_t i = begin;
  while (i < text_.size()) {
    if (text_[i] == '"') {
      i = repair::StringEnd(text_, i);
      if (i == kNpos) break;
      continue;
    }
    if (At(i, kTagClose)) {
      Add(CallSource::kToolCallTag, pos, i + kTagClose.size(), begin, i);
      return i + kTagClose.size();
    }
    ++i;
  }
  return Truncate(
      Truncation::kUnclosedTag,
      absl::StrCat("<tool_call> at byte ", pos, " is never closed"));
}

bool Scanner::LooksLikeObject(size_t pos) const {
  size_t i = pos;
  if (text_[i] == '[') {
    i = SkipSpace(i + 1);
    if (i >= text_.size() || text_[i] != '{') return false;
  }
  i = SkipSpace(i + 1);
  // A "{" at the very end may be a call that was cut off.
  if (i >= text_.size()) return true;
  size_t quote_len = 0;
  if (repair::OpeningQuoteAt(text_, i, &quote_len) !=
      repair::QuoteKind::kNone) {
    return true;
  }
  if (!absl::ascii_isalpha(static_cast<unsigned char>(text_[i])) &&
      text_[i] != '_' && text_[i] != '$') {
    return false;
  }
  while (i < text_.size() && IsIdentifierChar(text_[i])) ++i;
  i = SkipSpace(i);
  return i >= text_.size() || text_[i] == ':';
}

// Bracket depth with strings and comments skipped. Stops early (not
// closed, not at EOF) at a fence line or a tag, which an object cannot
// contain outside a string.
Span Scanner::ScanSpan(size_t pos) const {
  Span span;
  int depth = 0;
  size_t i = pos;
  while (i < text_.size()) {
    const char c = text_[i];
    size_t quote_len = 0;
    if (repair::OpeningQuoteAt(text_, i, &quote_len) !=
        repair::QuoteKind::kNone) {
      i = repair::StringEnd(text_, i);
      if (i == kNpos) break;
      continue;
    }
    if (c == '/') {
      const size_t end = repair::CommentEnd(text_, i);
      if (end == kNpos) break;
      if (end != i) {
        i = end;
        continue;
      }
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) {
      span.end = i + 1;
      span.closed = true;
      return span;
    }
    const bool tag = c == '<' && (At(i, kTagOpen) || At(i, kThinkOpen) ||
                                  At(i, kThinkClose));
    if (tag || (text::IsLineEndChar(c) && text::IsLineStart(text_, i + 1) &&
                IsFenceOpenerLine(text_, i + 1))) {
      span.end = tag ? i : i + 1;
      return span;
    }
    ++i;
  }
  span.end = text_.size();
  span.at_eof = true;
  return span;
}

size_t Scanner::OnBare(size_t pos) {
  const Span span = ScanSpan(pos);
  if (span.at_eof) {
    return Truncate(
        Truncation::kUnclosedObject,
        absl::StrCat("object opened at byte ", pos, " is never closed"));
  }
  Candidate& c = Add(CallSource::kBareObject, pos, span.end, pos, span.end);
  if (!span.closed) {
    c.defect_code = "invalid_json";
    c.defect_message = absl::StrCat("object opened at byte ", pos,
                                    " is not closed before a fence or tag");
  }
  return span.end;
}

size_t Scanner::OnReact(size_t pos) {
  const size_t action = SkipBlank(pos);
  if (!At(action, kAction)) return pos;
  const size_t name_end = LineEnd(action);
  if (name_end == text_.size()) {
    return Truncate(Truncation::kUnclosedReact, "text ends in an Action line");
  }
  std::string name(absl::StripAsciiWhitespace(text_.substr(
      action + kAction.size(), name_end - action - kAction.size())));
  // Blank lines may separate the two lines.
  const size_t first = SkipSpace(name_end + 1);
  const size_t line =
      first >= text_.size() ? text_.size() : text::LineStart(text_, first);
  const size_t input = SkipBlank(line);
  if (At(input, kActionInput)) {
    return OnReactInput(pos, std::move(name), input + kActionInput.size());
  }
  const absl::string_view rest =
      absl::StripAsciiWhitespace(text_.substr(line, LineEnd(line) - line));
  if (LineEnd(line) == text_.size() && absl::StartsWith(kActionInput, rest)) {
    return Truncate(Truncation::kUnclosedReact,
                    "text ends before the Action Input");
  }
  Candidate& c = Add(CallSource::kReact, pos, line, line, line);
  c.react_name = std::move(name);
  c.defect_code = "not_a_tool_call";
  c.defect_message = "an Action line is not followed by an Action Input line";
  return line;
}

size_t Scanner::OnReactInput(size_t begin, std::string name, size_t pos) {
  pos = SkipBlank(pos);
  if (pos < text_.size() && (text_[pos] == '\r' || text_[pos] == '\n')) {
    pos = SkipSpace(pos);
    const size_t line = text::LineStart(text_, pos);
    if (pos < text_.size() && IsFenceOpenerLine(text_, line)) {
      return OnReactFence(begin, std::move(name), line);
    }
  }
  if (pos >= text_.size()) {
    return Truncate(Truncation::kUnclosedReact,
                    "text ends right after \"Action Input:\"");
  }
  size_t end = LineEnd(pos);
  Span span;
  if (text_[pos] == '{' || text_[pos] == '[') {
    span = ScanSpan(pos);
    if (span.at_eof) {
      return Truncate(Truncation::kUnclosedReact,
                      "the Action Input object is never closed");
    }
    end = span.end;
  } else {
    span.closed = true;
  }
  Candidate& c = Add(CallSource::kReact, begin, end, pos, end);
  c.react_name = std::move(name);
  if (!span.closed) {
    c.defect_code = "invalid_json";
    c.defect_message = "the Action Input is not closed before a fence or tag";
  }
  return end;
}

size_t Scanner::OnReactFence(size_t begin, std::string name, size_t line) {
  std::optional<Fence> fence = MatchFenceAt(text_, line);
  if (!fence->closed) return OnFence(line);
  Candidate& c = Add(CallSource::kReact, begin, fence->end,
                     fence->content_begin, fence->content_end);
  c.react_name = std::move(name);
  c.fence_begin = fence->begin;
  c.fence_end = fence->end;
  if (!IsJsonInfo(fence->info)) {
    c.defect_code = "invalid_json";
    c.defect_message = "the Action Input is a non-JSON code block";
  }
  return fence->end;
}

void Scanner::CheckPartialDelimiter() {
  if (text::EndsWithPartialFenceOpener(text_)) {
    Truncate(Truncation::kPartialFence, "text ends in a partial fence");
    return;
  }
  // Only a partial tag can matter, so only the last few bytes are looked
  // at (a search over the whole text here cost 13% of ExtractVerdict).
  const size_t window = std::max(kTagOpen.size(), kThinkOpen.size());
  const size_t from = text_.size() > window ? text_.size() - window : 0;
  const size_t in_window = text_.substr(from).rfind('<');
  if (in_window == kNpos) return;
  const absl::string_view rest = text_.substr(from + in_window);
  if ((options_.tags && absl::StartsWith(kTagOpen, rest)) ||
      absl::StartsWith(kThinkOpen, rest)) {
    Truncate(Truncation::kPartialTag,
             absl::StrCat("text ends in a partial tag \"", rest, "\""));
  }
}

}  // namespace

absl::string_view CallSourceName(CallSource source) {
  switch (source) {
    case CallSource::kToolCallTag:
      return "tool_call_tag";
    case CallSource::kFencedBlock:
      return "fenced_block";
    case CallSource::kReact:
      return "react";
    case CallSource::kBareObject:
      return "bare_object";
    case CallSource::kHermes:
      return "hermes";
    case CallSource::kMistral:
      return "mistral";
    case CallSource::kLlama3Json:
      return "llama3_json";
    case CallSource::kPythonic:
      return "pythonic";
    case CallSource::kGranite:
      return "granite";
    case CallSource::kDeepSeekV3:
      return "deepseek_v3";
  }
  return "unknown";
}

ScanResult ScanCandidates(absl::string_view text, const ScanOptions& options) {
  Scanner scanner(text, options);
  const Reasoning& reasoning = scanner.reasoning();
  ScanResult result = std::move(scanner).Run();
  result.last_fence_line = text::LastFenceLikeLine(text);
  if (result.truncation == Truncation::kNone) {
    DropFencesCommonMarkDoesNotRead(text, reasoning, &result);
  }
  return result;
}

}  // namespace extract
}  // namespace toolgate
