#include "core/extract/formats/frame.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/repair/lexer.h"
#include "core/text/stop_bytes.h"

namespace toolgate {
namespace extract {
namespace formats {
namespace {

constexpr absl::string_view kThinkOpen = "<think>";
constexpr absl::string_view kThinkClose = "</think>";

// Every marker a runtime reads as the start of calls, matched in any case
// (a case variant is no call to us, but may be to some runtime).
constexpr absl::string_view kMarkers[] = {
    kHermesOpen,         kMistralOpen,       kLlamaOpen,  kPythonOpen,
    kGraniteOpen,        kDeepSeekCallsBegin, kDeepSeekCallBegin,
    "<function=",        "<invoke",
};

// Markers and reasoning tags all open with one of these.
constexpr auto kMarkerStarts = text::MakeStopBytes("<[");
// What can end or open something inside a JSON span: quotes (U+201C and
// U+2018 start with 0xE2), brackets, a comment's "/".
constexpr auto kSpanStops = text::MakeStopBytes("\"'{}[]/\xE2");

size_t MarkerAt(absl::string_view text, size_t pos) {
  for (absl::string_view m : kMarkers) {
    if (absl::EqualsIgnoreCase(text.substr(pos, m.size()), m)) return m.size();
  }
  return 0;
}

// The text from `pos` (white space skipped) is a proper prefix of a marker
// or a reasoning tag: it was cut off in one.
bool EndsInPartialMarker(absl::string_view text, size_t pos) {
  const absl::string_view rest = text.substr(SkipSpace(text, pos));
  if (rest.empty()) return false;
  for (absl::string_view m : kMarkers) {
    if (rest.size() < m.size() &&
        absl::EqualsIgnoreCase(rest, m.substr(0, rest.size()))) {
      return true;
    }
  }
  return (rest.size() < kThinkOpen.size() && absl::StartsWith(kThinkOpen, rest)) ||
         (rest.size() < kThinkClose.size() && absl::StartsWith(kThinkClose, rest));
}

// Only the last bytes can hold a partial marker.
bool TextEndsInPartialMarker(absl::string_view text) {
  size_t longest = kThinkClose.size();
  for (absl::string_view m : kMarkers) longest = std::max(longest, m.size());
  const size_t from = text.size() > longest ? text.size() - longest : 0;
  for (size_t i = from; i < text.size(); ++i) {
    if ((text[i] == '<' || text[i] == '[') &&
        EndsInPartialMarker(text.substr(i), 0)) {
      return true;
    }
  }
  return false;
}

struct Located {
  size_t block = kNpos;
  ExtractionError error;
};

class Locator {
 public:
  Locator(absl::string_view text, const Family& family)
      : text_(text), family_(family) {}

  // From `p`: 0, or past a prefilled reasoning's "</think>".
  Located Run(size_t p) && {
    while (true) {
      if (!prose_) {
        p = SkipSpace(text_, p);
        if (p == text_.size()) break;
        if (StartsBlock(p)) return Block(p);
        if (!At(text_, p, kThinkOpen) && !At(text_, p, kThinkClose)) {
          prose_ = true;
        }
      }
      const size_t q = kMarkerStarts.Find(text_, p);
      if (q == text_.size()) break;
      if (At(text_, q, kThinkOpen)) {
        const size_t close = text_.find(kThinkClose, q + kThinkOpen.size());
        if (close == kNpos) {
          return Refuse(kTruncatedOutput,
                        absl::StrCat("<think> at byte ", q, " is never closed"));
        }
        p = close + kThinkClose.size();
      } else if (At(text_, q, kThinkClose)) {
        // Everything before an unopened </think> was reasoning.
        prose_ = false;
        foreign_ = own_late_ = kNpos;
        p = q + kThinkClose.size();
      } else if (family_.prose_before && At(text_, q, family_.marker)) {
        return Block(q);
      } else if (const size_t m = MarkerAt(text_, q); m > 0) {
        size_t& seen = At(text_, q, family_.marker) ? own_late_ : foreign_;
        seen = std::min(seen, q);
        p = q + m;
      } else {
        p = q + 1;
      }
    }
    return NoBlock();
  }

 private:
  bool StartsBlock(size_t p) const {
    if (At(text_, p, family_.marker)) return true;
    return !family_.prose_before && text_[p] == family_.bare_start;
  }

  Located Block(size_t p) const {
    if (foreign_ != kNpos) return Foreign();
    Located found;
    found.block = p;
    return found;
  }

  Located Foreign() const {
    return Refuse(kAmbiguousOutput,
                  absl::StrCat("another family's call marker at byte ",
                               foreign_, " (", TextFormatName(family_.format),
                               " output holds only ", family_.marker,
                               " calls): it would go unchecked"));
  }

  Located NoBlock() const {
    if (TextEndsInPartialMarker(text_)) {
      return Refuse(kTruncatedOutput, "the text ends in a partial marker");
    }
    if (foreign_ != kNpos) return Foreign();
    if (own_late_ != kNpos) {
      return Refuse(kMalformedToolCall,
                    absl::StrCat(family_.marker, " at byte ", own_late_,
                                 " follows text: ",
                                 TextFormatName(family_.format),
                                 " calls open the output (after reasoning)"));
    }
    return Refuse(kNoToolCall,
                  family_.prose_before
                      ? absl::StrCat("no tool call found: no ", family_.marker)
                      : absl::StrCat("no tool call found: ",
                                     TextFormatName(family_.format),
                                     " calls open the output with ",
                                     family_.marker, " or '",
                                     std::string(1, family_.bare_start), "'"));
  }

  static Located Refuse(absl::string_view code, std::string message) {
    Located refused;
    refused.error = Error(code, "", std::move(message));
    return refused;
  }

  absl::string_view text_;
  const Family& family_;
  bool prose_ = false;       // Text other than reasoning since the last reset.
  size_t foreign_ = kNpos;   // First marker of another family.
  size_t own_late_ = kNpos;  // First own marker after prose (no-prose family).
};

// A "</think>" before any "<think>": the chat template prefilled the
// opener, and everything up to it is reasoning (reasoning parsers split it
// off before a tool parser reads the rest). Its end, or npos.
size_t PrefillEnd(absl::string_view text) {
  const size_t close = text.find(kThinkClose);
  if (close == kNpos || text.substr(0, close).find(kThinkOpen) != kNpos) {
    return kNpos;
  }
  return close + kThinkClose.size();
}

// repair::StringEnd, with plain quotes found a run at a time.
size_t QuotedEnd(absl::string_view text, size_t pos) {
  const char quote = text[pos];
  if (quote != '"' && quote != '\'') return repair::StringEnd(text, pos);
  const char stops[] = {quote, '\\'};
  size_t i = pos + 1;
  while ((i = text.find_first_of(absl::string_view(stops, 2), i)) != kNpos) {
    if (text[i] == quote) return i + 1;
    i += 2;  // An escape: the next byte is not a closer.
  }
  return kNpos;
}

// Only white space may follow the block.
ExtractionError CheckAfter(absl::string_view text, size_t end) {
  const size_t p = SkipSpace(text, end);
  if (p == text.size()) return {};
  if (EndsInPartialMarker(text, p)) {
    return Error(kTruncatedOutput, "",
                 "the text ends in a partial marker after the calls");
  }
  for (size_t q = kMarkerStarts.Find(text, p); q < text.size();
       q = kMarkerStarts.Find(text, q + 1)) {
    if (MarkerAt(text, q) > 0) {
      return Error(kAmbiguousOutput, "",
                   absl::StrCat("a second call marker at byte ", q,
                                " after the calls: the output holds one call "
                                "block"));
    }
  }
  return Error(kMalformedToolCall, "",
               absl::StrCat("text after the calls at byte ", p,
                            ": the output must end with them"));
}

}  // namespace

ExtractionError Error(absl::string_view code, std::string pointer,
                      std::string message) {
  ExtractionError error;
  error.code = std::string(code);
  error.pointer = std::move(pointer);
  error.message = std::move(message);
  return error;
}

Block Fail(absl::string_view code, std::string pointer, std::string message) {
  Block block;
  block.error = Error(code, std::move(pointer), std::move(message));
  return block;
}

std::string MapJsonCode(absl::string_view code) {
  if (code == kTruncatedJson) return std::string(kTruncatedOutput);
  if (code == kEmptyInput) return std::string(kInvalidJson);
  return std::string(code);
}

size_t SkipSpace(absl::string_view text, size_t pos) {
  while (pos < text.size() && absl::ascii_isspace(text[pos])) ++pos;
  return pos;
}

bool At(absl::string_view text, size_t pos, absl::string_view token) {
  return text.substr(pos, token.size()) == token;
}

Expect ExpectAt(absl::string_view text, size_t pos, absl::string_view token) {
  const absl::string_view rest = text.substr(pos, token.size());
  if (rest == token) return Expect::kMatch;
  if (pos + rest.size() == text.size() && absl::StartsWith(token, rest)) {
    return Expect::kCut;
  }
  return Expect::kNo;
}

ExtractionError NoMarkerWithin(absl::string_view text, size_t begin,
                               size_t end) {
  const absl::string_view calls = text.substr(0, end);
  // One memchr pass per opening byte: the calls are on the hot path.
  for (const char start : {'<', '['}) {
    for (size_t q = calls.find(start, begin); q != kNpos;
         q = calls.find(start, q + 1)) {
      // Every marker's second byte is one of these (any case): most
      // brackets in the calls ("[1, 2]") are rejected by that alone.
      const char next = q + 1 < calls.size() ? calls[q + 1] : '\0';
      if (absl::string_view("tTfFiI|\xEF").find(next) == kNpos) continue;
      if (MarkerAt(calls, q) > 0 || At(calls, q, kPythonClose)) {
        return Error(kAmbiguousOutput, "",
                     absl::StrCat("a call marker at byte ", q,
                                  " inside the calls: runtimes strip or "
                                  "split on it there and read other calls"));
      }
    }
  }
  return {};
}

size_t JsonSpanEnd(absl::string_view text, size_t pos) {
  int depth = 0;
  size_t i = pos;
  while ((i = kSpanStops.Find(text, i)) < text.size()) {
    const char c = text[i];
    size_t quote_len = 0;
    if (c == '"' || c == '\'' || c == '\xE2') {
      if (repair::OpeningQuoteAt(text, i, &quote_len) ==
          repair::QuoteKind::kNone) {
        ++i;  // A byte of another character (U+2xxx), not a quote.
        continue;
      }
      i = QuotedEnd(text, i);
      if (i == kNpos) return kNpos;
      continue;
    }
    if (c == '/') {
      const size_t end = repair::CommentEnd(text, i);
      if (end == kNpos) return kNpos;
      i = end != i ? end : i + 1;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    ++i;
  }
  return kNpos;
}

namespace {

// The block found from `start` and read, with what follows it checked.
Block ReadFrom(absl::string_view text, size_t start, const Family& family,
               const ReadOptions& options) {
  Located located = Locator(text, family).Run(start);
  if (located.block == kNpos) {
    Block refused;
    refused.error = std::move(located.error);
    return refused;
  }
  Block block = family.read(text, located.block, options);
  if (block.error.code.empty()) block.error = CheckAfter(text, block.end);
  if (block.error.code.empty() && block.calls.empty()) {
    block.error = Error(kNoToolCall, "",
                        absl::StrCat("the ", TextFormatName(family.format),
                                     " call list is empty"));
  }
  return block;
}

}  // namespace

ExtractionResult ReadFramed(absl::string_view text, const Family& family,
                            const ReadOptions& options, size_t max_bytes) {
  ExtractionResult result;
  if (text.size() > max_bytes) {
    result.error =
        Error(kInputTooLarge, "",
              absl::StrCat("output is ", text.size(), " bytes; the limit is ",
                           max_bytes));
    return result;
  }
  const size_t prefill = PrefillEnd(text);
  Block block = ReadFrom(text, prefill == kNpos ? 0 : prefill, family, options);
  if (prefill != kNpos) {
    // Read as if nothing were reasoning, a block before the "</think>"
    // (one whose string holds it) would be a second, different reading:
    // which one a runtime executes depends on its reasoning parser.
    // The check reads leniently (under syntax repair) whatever the policy,
    // so that the same text is refused alike under both.
    ReadOptions lenient = options;
    lenient.policy = repair::RepairPolicy::kSyntaxRepair;
    const Located naive = Locator(text, family).Run(0);
    if (naive.block != kNpos && naive.block < prefill &&
        ReadFrom(text, 0, family, lenient).error.code.empty()) {
      block.calls.clear();
      block.error = Error(
          kAmbiguousOutput, "",
          absl::StrCat("a \"</think>\" at byte ", prefill - 8,
                       " inside the calls: read with or without a reasoning "
                       "parser, the output holds different calls"));
    }
  }
  if (!block.error.code.empty()) {
    result.error = std::move(block.error);
    return result;
  }
  result.candidates_seen = static_cast<int>(block.calls.size());
  for (ExtractedCall& call : block.calls) {
    call.source = family.source;
    call.candidates_seen = result.candidates_seen;
  }
  result.calls = std::move(block.calls);
  return result;
}

}  // namespace formats
}  // namespace extract
}  // namespace toolgate
