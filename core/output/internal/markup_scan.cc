#include "core/output/internal/markup_scan.h"

#include <gumbo.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/output/internal/body_checks.h"

namespace toolgate {
namespace output {
namespace internal {
namespace {

constexpr absl::string_view kCode = "markup_in_string";
// Tag and attribute names are echoed in messages; attackers choose them.
constexpr size_t kMaxNameBytes = 40;

// HTML elements newer than gumbo 0.10's tag table, which parses them as
// unknown elements although browsers give them behaviour.
constexpr absl::string_view kNewerHtmlTags[] = {
    "dialog", "picture",     "search",          "slot",
    "portal", "fencedframe", "selectedcontent",
};

// data: media types a browser renders as a document (and so runs script in).
constexpr absl::string_view kScriptableDataTypes[] = {
    "text/html", "application/xhtml+xml", "image/svg+xml",
    "text/xml",  "application/xml",
};

struct Hit {
  std::string reason;
  size_t offset = 0;
  size_t length = 1;
};

absl::string_view View(const GumboStringPiece& piece) {
  return absl::string_view(piece.data, piece.length);
}

// Lowercase name of an element, as far as it is safe to echo.
std::string ElementName(const GumboElement& e) {
  if (e.tag != GUMBO_TAG_UNKNOWN) return gumbo_normalized_tagname(e.tag);
  GumboStringPiece piece = e.original_tag;
  if (piece.length == 0) return "?";
  gumbo_tag_from_original_text(&piece);
  return absl::AsciiStrToLower(Excerpt(View(piece), 0, kMaxNameBytes));
}

bool IsNewerHtmlTag(absl::string_view name) {
  for (absl::string_view tag : kNewerHtmlTags) {
    if (name == tag) return true;
  }
  return false;
}

bool IsDocumentSkeleton(GumboTag tag) {
  return tag == GUMBO_TAG_HTML || tag == GUMBO_TAG_HEAD ||
         tag == GUMBO_TAG_BODY;
}

// "javascript:", "vbscript:" or "data:<type>" when `value`, read as a
// browser reads a URL, would run script or render a document; else "".
// gumbo has already decoded character references in `value`.
std::string ScriptUrlScheme(absl::string_view value) {
  while (!value.empty() && static_cast<unsigned char>(value[0]) <= 0x20) {
    value.remove_prefix(1);
  }
  // The scheme and a data: URL's media type end before the first ",".
  std::string head;
  for (char c : value) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (c == ',') break;
    head.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  for (absl::string_view scheme : {"javascript:", "vbscript:"}) {
    if (absl::StartsWith(head, scheme)) return std::string(scheme);
  }
  absl::string_view rest = head;
  if (!absl::ConsumePrefix(&rest, "data:")) return "";
  const absl::string_view type =
      absl::StripAsciiWhitespace(rest.substr(0, rest.find(';')));
  for (absl::string_view scriptable : kScriptableDataTypes) {
    if (type == scriptable) return absl::StrCat("data:", type);
  }
  return "";
}

// Why an element counts as markup; "" when it does not.
std::string ElementReason(const GumboElement& e) {
  const std::string name = ElementName(e);
  const std::string tag = absl::StrCat("<", name, ">");
  for (unsigned i = 0; i < e.attributes.length; ++i) {
    const auto* attr = static_cast<const GumboAttribute*>(e.attributes.data[i]);
    const absl::string_view attr_name = attr->name;
    const std::string shown = Excerpt(attr_name, 0, kMaxNameBytes);
    // gumbo lowercases attribute names.
    if (attr_name.size() > 2 && absl::StartsWith(attr_name, "on")) {
      return absl::StrCat("event-handler attribute ", shown, " on ", tag);
    }
    const std::string scheme = ScriptUrlScheme(attr->value);
    if (!scheme.empty()) {
      return absl::StrCat(scheme, " URL in attribute ", shown, " of ", tag);
    }
    if (attr_name == "style") {
      return absl::StrCat("style attribute on ", tag);
    }
  }
  // The parser adds html, head and body to every document, and folds a
  // second such tag into the first: SkeletonTag judges the tags instead.
  if (IsDocumentSkeleton(e.tag)) return "";
  if (e.tag != GUMBO_TAG_UNKNOWN || e.tag_namespace != GUMBO_NAMESPACE_HTML ||
      IsNewerHtmlTag(name)) {
    return absl::StrCat(tag, " element");
  }
  return "";
}

// First html, head or body start or end tag in `text`, as the tokenizer
// reads a tag name (ends at whitespace, "/" or ">"). Read from the text
// because the tree does not show them: the parser implies these elements
// and merges a repeated start tag into the element it has.
bool SkeletonTag(absl::string_view text, Hit* hit) {
  for (size_t i = FindTagOpener(text); i != absl::string_view::npos;
       i = FindTagOpener(text, i + 1)) {
    const size_t name = text[i + 1] == '/' ? i + 2 : i + 1;
    if (name + 4 >= text.size()) break;
    const absl::string_view word = text.substr(name, 4);
    if (!absl::EqualsIgnoreCase(word, "html") &&
        !absl::EqualsIgnoreCase(word, "head") &&
        !absl::EqualsIgnoreCase(word, "body")) {
      continue;
    }
    if (absl::string_view("\t\n\f\r />").find(text[name + 4]) ==
        absl::string_view::npos) {
      continue;
    }
    hit->reason = absl::StrCat(text.substr(i, name - i),
                               absl::AsciiStrToLower(word), "> tag");
    hit->offset = i;
    hit->length = name + 4 - i;
    return true;
  }
  return false;
}

size_t DoctypeOffset(absl::string_view text) {
  for (size_t i = text.find("<!"); i != absl::string_view::npos;
       i = text.find("<!", i + 1)) {
    if (absl::StartsWithIgnoreCase(text.substr(i + 2), "doctype")) return i;
  }
  return 0;
}

// First markup node in document order, or false.
bool FirstMarkupNode(const GumboOutput& out, absl::string_view text, Hit* hit) {
  if (out.document->v.document.has_doctype) {
    hit->reason = "doctype";
    hit->offset = DoctypeOffset(text);
    hit->length = 2;
    return true;
  }
  // Iterative: a string may nest elements thousands deep.
  std::vector<const GumboNode*> stack;
  const GumboVector& top = out.document->v.document.children;
  for (unsigned i = top.length; i > 0; --i) {
    stack.push_back(static_cast<const GumboNode*>(top.data[i - 1]));
  }
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    switch (node->type) {
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE: {
        const GumboElement& e = node->v.element;
        hit->reason = ElementReason(e);
        if (!hit->reason.empty()) {
          hit->offset = e.start_pos.offset;
          hit->length = e.original_tag.length > 0 ? e.original_tag.length : 1;
          return true;
        }
        for (unsigned i = e.children.length; i > 0; --i) {
          stack.push_back(
              static_cast<const GumboNode*>(e.children.data[i - 1]));
        }
        break;
      }
      case GUMBO_NODE_COMMENT:
      case GUMBO_NODE_CDATA:
        hit->reason =
            node->type == GUMBO_NODE_COMMENT ? "HTML comment" : "CDATA section";
        hit->offset = node->v.text.start_pos.offset;
        hit->length = node->v.text.original_text.length;
        return true;
      default:  // Text and whitespace.
        break;
    }
  }
  return false;
}

}  // namespace

bool HoldsOnlyInertTags(absl::string_view text) {
  for (size_t i = FindTagOpener(text); i != absl::string_view::npos;
       i = FindTagOpener(text, i + 1)) {
    if (!absl::ascii_isalpha(static_cast<unsigned char>(text[i + 1]))) {
      return false;  // "</", "<!", "<?": end tag, comment or doctype.
    }
    // The tokenizer's tag name: up to whitespace, "/" or ">".
    const size_t end =
        text.find_first_of(absl::string_view("\t\n\f\r />"), i + 1);
    // Cut off by the end of the text: the tokenizer drops it.
    if (end == absl::string_view::npos) return true;
    if (text[end] != '>') return false;  // Attributes or "/>".
    const absl::string_view name = text.substr(i + 1, end - i - 1);
    if (gumbo_tagn_enum(name.data(), static_cast<unsigned>(name.size())) !=
            GUMBO_TAG_UNKNOWN ||
        IsNewerHtmlTag(absl::AsciiStrToLower(name))) {
      return false;
    }
  }
  return true;
}

bool FindMarkupInString(absl::string_view text, PatternMatch* match,
                        std::string* what) {
  if (HoldsOnlyInertTags(text)) return false;  // No tag opener included.
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;  // Parse errors are never read: don't keep them.
  GumboOutput* out =
      gumbo_parse_with_options(&options, text.data(), text.size());
  Hit hit;
  bool found;
  if (out == nullptr || out->document == nullptr) {
    // Never seen; but a string that could not be checked is not clean.
    found = true;
    hit.reason = "text the HTML parser could not parse";
  } else {
    found = FirstMarkupNode(*out, text, &hit);
  }
  if (out != nullptr) gumbo_destroy_output(&options, out);
  Hit skeleton;
  if (SkeletonTag(text, &skeleton) &&
      (!found || skeleton.offset < hit.offset)) {
    hit = std::move(skeleton);
    found = true;
  }
  if (!found) return false;
  match->code = kCode;
  match->start = hit.offset < text.size() ? hit.offset : 0;
  match->length = std::min(hit.length, text.size() - match->start);
  if (what != nullptr) *what = std::move(hit.reason);
  return true;
}

}  // namespace internal
}  // namespace output
}  // namespace toolgate
