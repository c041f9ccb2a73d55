#include "core/text/commonmark.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/text/commonmark_lines.h"
#include "core/text/commonmark_parser.h"
#include "core/text/lines.h"

namespace toolgate {
namespace text {
namespace internal {

BlockStructure Parser::Run() && {
  size_t pos = 0;
  // cmark skips a UTF-8 byte order mark at the very start.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;
  // Without a "\r" anywhere, a line ends at the next "\n": one search per
  // line instead of two.
  const bool has_cr = text_.find('\r') != absl::string_view::npos;
  while (pos < text_.size() && !stopped_) {
    line_begin_ = pos;
    size_t end = text_.size();
    if (has_cr) {
      end = LineEnd(text_, pos);
    } else if (const size_t lf = text_.find('\n', pos);
               lf != absl::string_view::npos) {
      end = lf;
    }
    line_ = text_.substr(pos, end - pos);
    next_line_ = SkipLineEnding(text_, end);
    ProcessLine();
    pos = next_line_;
  }
  line_begin_ = text_.size();
  while (chain_.size() > 1) Finish();
  return std::move(result_);
}

void Parser::ScanFirstNonspace() {
  fresh_ = true;
  size_t p = offset_;
  int column = column_;
  // Runs of spaces are counted at once: reasoning, blanked to spaces
  // (core/extract), makes lines of hundreds.
  while (p < line_.size()) {
    if (line_[p] == ' ') {
      const size_t run = p;
      while (p < line_.size() && line_[p] == ' ') ++p;
      column += static_cast<int>(p - run);
    } else if (line_[p] == '\t') {
      column += kTabStop - (column % kTabStop);
      ++p;
    } else {
      break;
    }
  }
  first_nonspace_ = p;
  first_nonspace_column_ = column;
  indent_ = first_nonspace_column_ - column_;
  blank_ = first_nonspace_ >= line_.size();
}

void Parser::Advance(int count, bool columns) {
  while (count > 0 && offset_ < line_.size()) {
    if (line_[offset_] == '\t') {
      const int to_tab = kTabStop - (column_ % kTabStop);
      if (columns) {
        partial_tab_ = to_tab > count;
        const int step = std::min(count, to_tab);
        column_ += step;
        if (!partial_tab_) ++offset_;
        count -= step;
      } else {
        partial_tab_ = false;
        column_ += to_tab;
        ++offset_;
        --count;
      }
    } else {
      partial_tab_ = false;
      ++offset_;
      ++column_;
      --count;
    }
  }
}

void Parser::ProcessLine() {
  offset_ = 0;
  column_ = 0;
  partial_tab_ = false;
  fresh_ = false;
  first_nonspace_ = 0;
  first_nonspace_column_ = 0;
  indent_ = 0;
  blank_ = false;
  if (TopLevelFastPath()) return;
  bool all_matched = true;
  const int matched = MatchOpenBlocks(&all_matched);
  if (matched < 0) return;
  size_t container = static_cast<size_t>(matched);
  opened_ = false;
  OpenNewBlocks(&container, all_matched);
  AddLine(container, static_cast<size_t>(matched));
  if (chain_.size() > kMaxNesting) {
    // Deeper nesting is not followed; nothing after this line is trusted.
    Distrust();
    stopped_ = true;
  }
}

// Most lines of model output are code or prose at the top level; the
// general path below reaches the same result for them through three calls
// (MatchOpenBlocks, OpenNewBlocks, AddLine each return without a change).
// Kept in step with it by //tests/commonmark:cmark_differential_test, which
// compares with cmark itself.
bool Parser::TopLevelFastPath() {
  if (chain_.size() != 2) return false;
  const Block& block = chain_[1];
  FindFirstNonspace();
  if (block.kind == Kind::kFencedCode) {
    CloseFenceAt(1);
    return true;
  }
  return block.kind == Kind::kParagraph && !blank_ &&
         (indent_ >= kCodeIndent ||
          !kMayOpenBlock[static_cast<uint8_t>(Peek(first_nonspace_))]);
}

bool Parser::CloseFenceAt(size_t index) {
  const Block& block = chain_[index];
  if (indent_ > 3 || Peek(first_nonspace_) != block.fence_char ||
      CloseFenceLength(line_, first_nonspace_, block.fence_char) <
          block.fence_length) {
    return false;
  }
  CodeFence& fence = result_.fences[block.fence_index];
  fence.closed = true;
  fence.end = next_line_;
  chain_.resize(index);
  return true;
}

int Parser::MatchOpenBlocks(bool* all_matched) {
  *all_matched = false;
  for (size_t i = 1; i < chain_.size(); ++i) {
    Block& block = chain_[i];
    FindFirstNonspace();
    bool matched = true;
    switch (block.kind) {
      case Kind::kBlockQuote:
        matched = indent_ <= 3 && Peek(first_nonspace_) == '>';
        if (matched) {
          Advance(indent_ + 1, true);
          if (IsSpaceOrTab(Peek(offset_))) Advance(1, true);
        }
        break;
      case Kind::kItem:
        matched = MatchItem(block, i);
        break;
      case Kind::kFencedCode:
        if (CloseFenceAt(i)) return -1;
        break;
      case Kind::kIndentedCode:
        if (indent_ >= kCodeIndent) {
          Advance(kCodeIndent, true);
        } else if (blank_) {
          AdvanceTo(first_nonspace_);
        } else {
          matched = false;
        }
        break;
      case Kind::kHeading:
        matched = false;
        break;
      case Kind::kHtml:
        matched = block.html_type <= 5 || !blank_;
        break;
      case Kind::kParagraph:
        matched = !blank_;
        break;
      default:
        break;
    }
    if (!matched) return static_cast<int>(i) - 1;
  }
  *all_matched = true;
  return static_cast<int>(chain_.size()) - 1;
}

bool Parser::MatchItem(Block& item, size_t index) {
  if (indent_ >= item.content_indent) {
    Advance(item.content_indent, true);
    return true;
  }
  if (!blank_ || !item.has_child) return false;
  // A blank line continues an item that has content. An open child always
  // counts; finished children count unless they may have been paragraphs
  // of link reference definitions only, which cmark removes.
  if (!item.kept_child && index + 1 >= chain_.size()) Distrust();
  AdvanceTo(first_nonspace_);
  return true;
}

}  // namespace internal

BlockStructure ParseBlocks(absl::string_view text) {
  // Most model output has its fences at the start of lines and no HTML:
  // then a scan of the fence lines gives the same answer for a fraction of
  // the parse (about half of an ExtractVerdict's work).
  if (std::optional<BlockStructure> blocks = internal::TopLevelBlocks(text)) {
    return *std::move(blocks);
  }
  return internal::Parser(text).Run();
}

bool IsCommonMarkFence(const BlockStructure& blocks, size_t begin, size_t end) {
  if (end > blocks.trusted_until) return false;
  const auto it = std::lower_bound(
      blocks.fences.begin(), blocks.fences.end(), begin,
      [](const CodeFence& f, size_t b) { return f.opener_line < b; });
  return it != blocks.fences.end() && it->opener_line == begin && it->closed &&
         it->end == end && !it->in_block_quote;
}

}  // namespace text
}  // namespace toolgate
