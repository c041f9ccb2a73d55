#include "core/policy/text_checks.h"

#include <gumbo.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/output/injection.h"
#include "core/text/tag_openers.h"

namespace toolgate::policy {
namespace {

// Elements whose contents a browser does not show as text (or shows only
// as a fallback): their text is dropped with them, so "<script>" bodies
// never reach the next prompt.
constexpr GumboTag kDroppedTags[] = {
    GUMBO_TAG_SCRIPT,   GUMBO_TAG_STYLE,   GUMBO_TAG_TEMPLATE,
    GUMBO_TAG_NOSCRIPT, GUMBO_TAG_NOEMBED, GUMBO_TAG_NOFRAMES,
    GUMBO_TAG_IFRAME,   GUMBO_TAG_OBJECT,
};

bool Dropped(GumboTag tag) {
  for (GumboTag t : kDroppedTags) {
    if (t == tag) return true;
  }
  return false;
}

using text::CountTagOpeners;
using text::FindTagOpener;

// Text nodes in document order, skipping dropped elements. Iterative: a
// value may nest elements thousands deep.
void AppendText(const GumboNode* root, std::string* out) {
  std::vector<const GumboNode*> stack = {root};
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    switch (node->type) {
      case GUMBO_NODE_DOCUMENT:
      case GUMBO_NODE_ELEMENT: {
        if (node->type == GUMBO_NODE_ELEMENT && Dropped(node->v.element.tag)) {
          break;
        }
        const GumboVector& children = node->type == GUMBO_NODE_DOCUMENT
                                          ? node->v.document.children
                                          : node->v.element.children;
        for (unsigned i = children.length; i > 0; --i) {
          stack.push_back(static_cast<const GumboNode*>(children.data[i - 1]));
        }
        break;
      }
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_WHITESPACE:
      case GUMBO_NODE_CDATA:
        out->append(node->v.text.text);
        break;
      default:  // Comments; template contents.
        break;
    }
  }
}

}  // namespace

absl::Status ValidateTextRule(const TextRule& rule) {
  if (rule.max_length < 0 || rule.max_length > kMaxTextLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"max_length\" must be an integer from 1 to ", kMaxTextLength));
  }
  if (!rule.strip_html && rule.max_length == 0 && !rule.reject_injection) {
    return absl::InvalidArgumentError(
        "a text rule must set \"max_length\", \"strip_html\": true or "
        "\"injection\": it would check nothing");
  }
  return absl::OkStatus();
}

std::optional<ArgumentViolation> StripHtml(absl::string_view value,
                                           StripBudget& budget,
                                           std::string* stripped) {
  if (FindTagOpener(value) == absl::string_view::npos &&
      value.find('&') == absl::string_view::npos) {
    *stripped = std::string(value);
    return std::nullopt;
  }
  const size_t tags = CountTagOpeners(value);
  if (tags > budget.tags_left || value.size() > budget.bytes_left) {
    budget.tags_left = 0;  // Later values are refused too, never passed.
    return MakeViolation(
        "text_invalid",
        absl::StrCat("holds ", tags, " tags in ", value.size(),
                     " bytes, more HTML than is stripped per call: send "
                     "plain text"));
  }
  budget.tags_left -= tags;
  budget.bytes_left -= value.size();
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;  // Parse errors are never read.
  GumboOutput* out =
      gumbo_parse_with_options(&options, value.data(), value.size());
  if (out == nullptr || out->document == nullptr) {
    if (out != nullptr) gumbo_destroy_output(&options, out);
    return MakeViolation("text_invalid", "the HTML parser could not read it");
  }
  stripped->clear();
  AppendText(out->document, stripped);
  gumbo_destroy_output(&options, out);
  // "&lt;b&gt;" decodes to "<b>": a tag again for whatever renders it next.
  if (FindTagOpener(*stripped) != absl::string_view::npos) {
    return MakeViolation(
        "text_invalid",
        "holds escaped markup (such as &lt;b&gt;) that is a tag once "
        "decoded: send plain text");
  }
  return std::nullopt;
}

size_t CodePoints(absl::string_view text) {
  size_t n = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::optional<ArgumentViolation> CheckText(absl::string_view value,
                                           const TextRule& rule) {
  if (rule.max_length > 0) {
    const size_t length = CodePoints(value);
    if (length > static_cast<size_t>(rule.max_length)) {
      return MakeViolation(
          "text_too_long",
          absl::StrCat("is ", length, " characters (Unicode code points)",
                       rule.strip_html ? " without its HTML" : "", "; at most ",
                       rule.max_length, " are allowed"));
    }
  }
  if (rule.reject_injection) {
    if (std::optional<std::string> code = output::FindInjectionCode(value)) {
      return MakeViolation(
          "argument_injection",
          absl::StrCat("reads as instructions to a model (", *code,
                       "): send the data only, with no instructions, role "
                       "markers or tool-call syntax"));
    }
  }
  return std::nullopt;
}

}  // namespace toolgate::policy
