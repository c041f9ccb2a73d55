// The CommonMark block parser behind commonmark.h. Internal to core/text.
#ifndef TOOLGATE_CORE_TEXT_COMMONMARK_PARSER_H_
#define TOOLGATE_CORE_TEXT_COMMONMARK_PARSER_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/text/commonmark.h"

namespace toolgate {
namespace text {
namespace internal {

constexpr int kTabStop = 4;
constexpr int kCodeIndent = 4;

enum class Kind {
  kDocument,
  kBlockQuote,
  kList,
  kItem,
  kFencedCode,
  kIndentedCode,
  kHtml,
  kParagraph,
  kHeading,
  kThematicBreak,
};

// An open block; the open blocks always form one path from the document.
struct Block {
  Kind kind = Kind::kDocument;
  // kList, kItem.
  bool ordered = false;
  char delimiter = 0;
  int content_indent = 0;  // kItem: marker offset plus padding.
  bool has_child = false;  // kItem: a child was ever added.
  // kItem: a child exists that finishing cannot remove (only a paragraph
  // of link reference definitions disappears when finished).
  bool kept_child = false;
  // kFencedCode.
  char fence_char = 0;
  size_t fence_length = 0;
  size_t fence_index = 0;  // Into BlockStructure::fences.
  int html_type = 0;       // kHtml.
  // kParagraph: where its text starts, and whether it might be link
  // reference definitions only (it starts with "[").
  size_t paragraph_begin = 0;
  bool may_be_references = false;
};

inline bool CanContain(Kind parent, Kind child) {
  return parent == Kind::kDocument || parent == Kind::kBlockQuote ||
         parent == Kind::kItem ||
         (parent == Kind::kList && child == Kind::kItem);
}

inline bool AcceptsLines(Kind kind) {
  return kind == Kind::kParagraph || kind == Kind::kHeading ||
         kind == Kind::kFencedCode || kind == Kind::kIndentedCode;
}

inline bool IsSpaceOrTab(char c) { return c == ' ' || c == '\t'; }

// The characters a block quote, heading, fence, HTML block, setext
// underline, thematic break or list item can start with.
constexpr std::array<bool, 256> MayOpenBlockTable() {
  std::array<bool, 256> t{};
  for (char c : absl::string_view(">#`~<=-_*+0123456789")) {
    t[static_cast<uint8_t>(c)] = true;
  }
  return t;
}
inline constexpr std::array<bool, 256> kMayOpenBlock = MayOpenBlockTable();

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {
    result_.trusted_until = text.size();
    chain_.reserve(kMaxNesting + 8);
    chain_.push_back(Block());
  }

  BlockStructure Run() &&;

 private:
  char Peek(size_t p) const { return p < line_.size() ? line_[p] : '\n'; }

  // The cursor, as cmark keeps it: a byte offset and a tab-expanded column
  // (a tab may be partly consumed, as list padding or block quote spacing).
  void FindFirstNonspace() {
    // Asked several times per line: the answer is kept until the cursor
    // moves past it, and only a move makes a new scan.
    if (first_nonspace_ > offset_ ||
        (first_nonspace_ == offset_ && first_nonspace_column_ == column_ &&
         fresh_)) {
      indent_ = first_nonspace_column_ - column_;
      blank_ = first_nonspace_ >= line_.size();
      return;
    }
    ScanFirstNonspace();
  }
  void ScanFirstNonspace();
  void Advance(int count, bool columns);
  void AdvanceTo(size_t byte) {
    Advance(static_cast<int>(byte - offset_), false);
  }

  void ProcessLine();
  // A line inside a fenced code block, or continuing a paragraph, at the
  // top level: returns true when it has been handled (only a closing fence
  // changes anything), false for the general path.
  bool TopLevelFastPath();
  // Closes the fenced code block at chain_[index] when this line is its
  // closing fence.
  bool CloseFenceAt(size_t index);
  // Returns the index of the last block whose line prefix matched, or -1
  // when the line closed a fence and nothing else is to be done.
  int MatchOpenBlocks(bool* all_matched);
  bool MatchItem(Block& item, size_t index);
  void OpenNewBlocks(size_t* container, bool all_matched);
  bool OpenListItem(size_t* container, Kind container_kind);
  int HtmlStartAt(size_t at, Kind container_kind, bool maybe_lazy) const;
  void AddLine(size_t container, size_t last_matched);
  Block& AddChild(size_t* container, Kind kind);
  void FinishAbove(size_t index) {
    while (chain_.size() > index + 1) Finish();
  }
  void Finish();
  bool MayBeOnlyReferences(const Block& paragraph, size_t end) const;
  void Distrust() {
    result_.trusted_until = std::min(result_.trusted_until, line_begin_);
  }

  absl::string_view text_;
  BlockStructure result_;
  std::vector<Block> chain_;
  bool stopped_ = false;
  bool opened_ = false;  // This line opened a block.

  absl::string_view line_;  // Without its line ending.
  size_t line_begin_ = 0;
  size_t next_line_ = 0;
  size_t offset_ = 0;
  int column_ = 0;
  bool partial_tab_ = false;
  size_t first_nonspace_ = 0;
  int first_nonspace_column_ = 0;
  int indent_ = 0;
  bool blank_ = false;
  bool fresh_ = false;  // first_nonspace_ was computed on this line.
};

// ParseBlocks' answer for `text` from the fence lines alone, when the
// text is plain enough for a top-level fence scan to be exact
// (commonmark_top_level.cc says when and why); nullopt otherwise, which
// says nothing about the text.
std::optional<BlockStructure> TopLevelBlocks(absl::string_view text);

}  // namespace internal
}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_COMMONMARK_PARSER_H_
