#include "tests/commonmark/cmark_oracle.h"

#include <cmark.h>

#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace toolgate {
namespace testutil {
namespace {

struct NodeDeleter {
  void operator()(cmark_node* node) const { cmark_node_free(node); }
};
using Document = std::unique_ptr<cmark_node, NodeDeleter>;

Document Parse(absl::string_view text) {
  return Document(
      cmark_parse_document(text.data(), text.size(), CMARK_OPT_DEFAULT));
}

struct CodeNode {
  int line = 0;
  int column = 0;  // 1-based byte column within the line (after a BOM).
  std::string info;
  std::string literal;
};

std::vector<CodeNode> CodeBlocks(absl::string_view text) {
  std::vector<CodeNode> out;
  Document doc = Parse(text);
  cmark_iter* iter = cmark_iter_new(doc.get());
  cmark_event_type event;
  while ((event = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
    cmark_node* node = cmark_iter_get_node(iter);
    if (event != CMARK_EVENT_ENTER ||
        cmark_node_get_type(node) != CMARK_NODE_CODE_BLOCK) {
      continue;
    }
    CodeNode c;
    c.line = cmark_node_get_start_line(node);
    c.column = cmark_node_get_start_column(node);
    const char* info = cmark_node_get_fence_info(node);
    const char* literal = cmark_node_get_literal(node);
    c.info = info == nullptr ? "" : info;
    c.literal = literal == nullptr ? "" : literal;
    out.push_back(std::move(c));
  }
  cmark_iter_free(iter);
  return out;
}

// Byte offset where cmark's `line` starts (cmark skips a leading BOM).
size_t LineOffset(absl::string_view text, int line) {
  size_t pos = absl::StartsWith(text, "\xEF\xBB\xBF") ? 3 : 0;
  for (int l = 1; l < line && pos < text.size(); ++l) {
    const size_t end = text.find_first_of("\r\n", pos);
    if (end == absl::string_view::npos) return text.size();
    pos = end + 1;
    if (text[end] == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
  }
  return pos;
}

bool IsFenced(absl::string_view text, const CodeNode& node) {
  const size_t at = LineOffset(text, node.line) + node.column - 1;
  const absl::string_view start = text.substr(at, 3);
  if (start != "```" && start != "~~~") return false;
  std::string broken(text);
  broken.replace(at, 3, "XXX");
  for (const CodeNode& other : CodeBlocks(broken)) {
    if (other.line == node.line) return false;
  }
  return true;
}

}  // namespace

OracleBlock LastFencedCodeBlock(absl::string_view text) {
  const std::vector<CodeNode> blocks = CodeBlocks(text);
  OracleBlock out;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    if (!IsFenced(text, *it)) continue;
    out.found = true;
    out.start_line = it->line;
    out.info = it->info;
    out.literal = it->literal;
    break;
  }
  return out;
}

int LineNumberOf(absl::string_view text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n' ||
        (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++line;
    }
  }
  return line;
}

bool IsJsonInfoWord(absl::string_view info) {
  info = absl::StripAsciiWhitespace(info);
  const size_t end = info.find_first_of(" \t");
  const absl::string_view word =
      end == absl::string_view::npos ? info : info.substr(0, end);
  return word.empty() || absl::EqualsIgnoreCase(word, "json");
}

}  // namespace testutil
}  // namespace toolgate
