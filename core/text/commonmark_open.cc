#include <algorithm>
#include <cstdint>

#include "core/text/commonmark_lines.h"
#include "core/text/commonmark_parser.h"

namespace toolgate {
namespace text {
namespace internal {
void Parser::OpenNewBlocks(size_t* container, bool all_matched) {
  bool maybe_lazy = chain_.back().kind == Kind::kParagraph;
  Kind kind = chain_[*container].kind;
  while (kind != Kind::kFencedCode && kind != Kind::kIndentedCode &&
         kind != Kind::kHtml) {
    FindFirstNonspace();
    const bool indented = indent_ >= kCodeIndent;
    const size_t at = first_nonspace_;
    // Most lines are prose: no block can start with their first character.
    if (!indented && !kMayOpenBlock[static_cast<uint8_t>(Peek(at))]) break;
    size_t fence = 0;
    int html = 0;
    if (!indented && Peek(at) == '>') {
      AdvanceTo(at + 1);
      if (IsSpaceOrTab(Peek(offset_))) Advance(1, true);
      AddChild(container, Kind::kBlockQuote);
    } else if (!indented && IsAtxHeadingStart(line_, at)) {
      AddChild(container, Kind::kHeading);
    } else if (!indented && (fence = OpenFenceLength(line_, at))) {
      Block& block = AddChild(container, Kind::kFencedCode);
      block.fence_char = line_[at];
      block.fence_length = fence;
      AdvanceTo(at + fence);
    } else if (!indented && (html = HtmlStartAt(at, kind, maybe_lazy))) {
      AddChild(container, Kind::kHtml).html_type = html;
    } else if (!indented && kind == Kind::kParagraph &&
               SetextLevel(line_, at)) {
      // cmark keeps a paragraph of link reference definitions only as a
      // paragraph here; which it is needs the inline parser.
      if (MayBeOnlyReferences(chain_[*container], line_begin_)) Distrust();
      chain_[*container].kind = Kind::kHeading;
      Block& parent = chain_[*container - 1];
      if (parent.kind == Kind::kItem) parent.kept_child = true;
      AdvanceTo(line_.size());
    } else if (!indented && !(kind == Kind::kParagraph && !all_matched) &&
               IsThematicBreak(line_, at)) {
      AddChild(container, Kind::kThematicBreak);
      AdvanceTo(line_.size());
    } else if (indent_ < 4 && OpenListItem(container, kind)) {
      // Opened.
    } else if (indented && !maybe_lazy && !blank_) {
      Advance(kCodeIndent, true);
      AddChild(container, Kind::kIndentedCode);
    } else {
      break;
    }
    if (AcceptsLines(chain_[*container].kind)) break;
    kind = chain_[*container].kind;
    maybe_lazy = false;
  }
}

// Start conditions 1 to 6, or 7, which cannot interrupt a paragraph (nor
// be a lazy continuation of one).
int Parser::HtmlStartAt(size_t at, Kind container_kind, bool maybe_lazy) const {
  const int type = HtmlBlockStart(line_, at);
  if (type != 0) return type;
  if (container_kind == Kind::kParagraph || maybe_lazy) return 0;
  return IsHtmlBlockStart7(line_, at) ? 7 : 0;
}

bool Parser::OpenListItem(size_t* container, Kind container_kind) {
  ListMarker marker;
  if (!ParseListMarker(line_, first_nonspace_,
                       container_kind == Kind::kParagraph, &marker)) {
    return false;
  }
  const int marker_offset = indent_;
  AdvanceTo(first_nonspace_ + marker.length);
  const size_t saved_offset = offset_;
  const int saved_column = column_;
  const bool saved_partial_tab = partial_tab_;
  while (column_ - saved_column <= 5 && IsSpaceOrTab(Peek(offset_))) {
    Advance(1, true);
  }
  const int spaces = column_ - saved_column;
  int padding = static_cast<int>(marker.length) + spaces;
  // Five or more spaces after the marker start indented code inside the
  // item: the item's content begins one column after the marker.
  if (spaces >= 5 || spaces < 1 || offset_ >= line_.size()) {
    padding = static_cast<int>(marker.length) + 1;
    offset_ = saved_offset;
    column_ = saved_column;
    partial_tab_ = saved_partial_tab;
    if (spaces > 0) Advance(1, true);
  }
  const Block& parent = chain_[*container];
  if (container_kind != Kind::kList || parent.ordered != marker.ordered ||
      parent.delimiter != marker.delimiter) {
    Block& list = AddChild(container, Kind::kList);
    list.ordered = marker.ordered;
    list.delimiter = marker.delimiter;
  }
  Block& item = AddChild(container, Kind::kItem);
  item.ordered = marker.ordered;
  item.delimiter = marker.delimiter;
  item.content_indent = marker_offset + padding;
  return true;
}

void Parser::AddLine(size_t container, size_t last_matched) {
  FindFirstNonspace();
  // A lazy continuation line: nothing new opened, the line is not blank,
  // and the innermost open block is a paragraph whose containers did not
  // all match. It keeps those containers open.
  if (!opened_ && container == last_matched &&
      last_matched + 1 < chain_.size() && !blank_ &&
      chain_.back().kind == Kind::kParagraph) {
    return;
  }
  FinishAbove(container);
  Block& block = chain_[container];
  if (block.kind == Kind::kFencedCode || block.kind == Kind::kIndentedCode) {
    return;
  }
  if (block.kind == Kind::kHtml) {
    if (block.html_type <= 5 &&
        HtmlBlockEnds(block.html_type, line_, first_nonspace_)) {
      Finish();
    }
    return;
  }
  if (blank_ || AcceptsLines(block.kind)) return;
  Block& paragraph = AddChild(&container, Kind::kParagraph);
  paragraph.paragraph_begin = line_begin_ + first_nonspace_;
  paragraph.may_be_references = Peek(first_nonspace_) == '[';
  if (!paragraph.may_be_references) {
    Block& parent = chain_[container - 1];
    if (parent.kind == Kind::kItem) parent.kept_child = true;
  }
}

// Adds a child to the block at *container, first finishing the blocks
// above it (unmatched ones left from the line before) and any block on the
// way up that cannot hold the child.
Block& Parser::AddChild(size_t* container, Kind kind) {
  FinishAbove(*container);
  while (!CanContain(chain_[*container].kind, kind)) {
    Finish();
    --*container;
  }
  Block& parent = chain_[*container];
  if (parent.kind == Kind::kItem) {
    parent.has_child = true;
    if (kind != Kind::kParagraph) parent.kept_child = true;
  }
  Block child;
  child.kind = kind;
  if (kind == Kind::kFencedCode) {
    CodeFence fence;
    fence.opener_line = line_begin_;
    for (const Block& b : chain_) {
      fence.in_block_quote |= b.kind == Kind::kBlockQuote;
      fence.in_list_item |= b.kind == Kind::kItem;
    }
    child.fence_index = result_.fences.size();
    result_.fences.push_back(fence);
  }
  chain_.push_back(child);
  ++*container;
  opened_ = true;
  return chain_.back();
}

// Finishes the innermost open block; it ends where the current line
// starts.
void Parser::Finish() {
  const Block& block = chain_.back();
  if (block.kind == Kind::kFencedCode) {
    result_.fences[block.fence_index].end = line_begin_;
  } else if (block.kind == Kind::kParagraph && chain_.size() >= 2) {
    Block& parent = chain_[chain_.size() - 2];
    if (parent.kind == Kind::kItem &&
        !MayBeOnlyReferences(block, line_begin_)) {
      parent.kept_child = true;
    }
  }
  chain_.pop_back();
}

// Whether the paragraph might be nothing but link reference definitions:
// it starts with "[" and holds "]:" somewhere. Exact parsing of
// definitions is not needed: the answer only ever makes the caller
// distrust what follows.
bool Parser::MayBeOnlyReferences(const Block& paragraph, size_t end) const {
  if (!paragraph.may_be_references || end <= paragraph.paragraph_begin) {
    return false;
  }
  return text_
             .substr(paragraph.paragraph_begin, end - paragraph.paragraph_begin)
             .find("]:") != absl::string_view::npos;
}

}  // namespace internal
}  // namespace text
}  // namespace toolgate
