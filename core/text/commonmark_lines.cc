#include "core/text/commonmark_lines.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace toolgate {
namespace text {
namespace internal {
namespace {

// CommonMark 0.30 start condition 6, as cmark 0.30.2 lists it.
constexpr absl::string_view kBlockTags[] = {
    "address",  "article",    "aside",  "base",     "basefont", "blockquote",
    "body",     "caption",    "center", "col",      "colgroup", "dd",
    "details",  "dialog",     "dir",    "div",      "dl",       "dt",
    "fieldset", "figcaption", "figure", "footer",   "form",     "frame",
    "frameset", "h1",         "h2",     "h3",       "h4",       "h5",
    "h6",       "head",       "header", "hr",       "html",     "iframe",
    "legend",   "li",         "link",   "main",     "menu",     "menuitem",
    "nav",      "noframes",   "ol",     "optgroup", "option",   "p",
    "param",    "section",    "source", "title",    "summary",  "table",
    "tbody",    "td",         "tfoot",  "th",       "thead",    "tr",
    "track",    "ul"};
constexpr absl::string_view kRawTags[] = {"script", "pre", "textarea", "style"};

char At(absl::string_view line, size_t p) {
  return p < line.size() ? line[p] : '\n';
}

bool IsSpaceOrTab(char c) { return c == ' ' || c == '\t'; }

// White space inside a tag on one line ("\r" and "\n" cannot occur).
bool IsTagSpace(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

bool IsAlpha(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c));
}
bool IsDigit(char c) {
  return absl::ascii_isdigit(static_cast<unsigned char>(c));
}

bool StartsWithNoCase(absl::string_view line, size_t p, absl::string_view s) {
  return p <= line.size() && absl::StartsWithIgnoreCase(line.substr(p), s);
}

// The run of ASCII letters and digits at `p`, lower-cased.
std::string TagNameAt(absl::string_view line, size_t p) {
  size_t end = p;
  while (end < line.size() && (IsAlpha(line[end]) || IsDigit(line[end]))) {
    ++end;
  }
  return absl::AsciiStrToLower(line.substr(p, end - p));
}

bool InList(absl::string_view name, const absl::string_view* list, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (list[i] == name) return true;
  }
  return false;
}

// tagname = [A-Za-z][A-Za-z0-9-]*; returns the position after it, or npos.
size_t SkipTagName(absl::string_view line, size_t p) {
  if (p >= line.size() || !IsAlpha(line[p])) return absl::string_view::npos;
  ++p;
  while (p < line.size() &&
         (IsAlpha(line[p]) || IsDigit(line[p]) || line[p] == '-')) {
    ++p;
  }
  return p;
}

size_t SkipTagSpace(absl::string_view line, size_t p) {
  while (p < line.size() && IsTagSpace(line[p])) ++p;
  return p;
}

// attributevaluespec = space* "=" space* value; npos when absent.
size_t SkipAttributeValue(absl::string_view line, size_t p) {
  p = SkipTagSpace(line, p);
  if (At(line, p) != '=') return absl::string_view::npos;
  p = SkipTagSpace(line, p + 1);
  const char q = At(line, p);
  if (q == '\'' || q == '"') {
    const size_t close = line.find(q, p + 1);
    return close == absl::string_view::npos ? close : close + 1;
  }
  const size_t begin = p;
  while (p < line.size() &&
         absl::string_view(" \t\r\n\v\f\"'=<>`").find(line[p]) ==
             absl::string_view::npos) {
    ++p;
  }
  return p == begin ? absl::string_view::npos : p;
}

// An open tag after "<": name, attributes, optional "/", ">". Returns the
// position after ">", or npos.
size_t SkipOpenTag(absl::string_view line, size_t p) {
  p = SkipTagName(line, p);
  if (p == absl::string_view::npos) return p;
  while (true) {
    const size_t spaced = SkipTagSpace(line, p);
    const char c = At(line, spaced);
    if (spaced == p || !(IsAlpha(c) || c == '_' || c == ':')) break;
    p = spaced + 1;
    while (p < line.size() && (IsAlpha(line[p]) || IsDigit(line[p]) ||
                               absl::string_view(":._-").find(line[p]) !=
                                   absl::string_view::npos)) {
      ++p;
    }
    const size_t value_end = SkipAttributeValue(line, p);
    if (value_end != absl::string_view::npos) p = value_end;
  }
  p = SkipTagSpace(line, p);
  if (At(line, p) == '/') ++p;
  return At(line, p) == '>' ? p + 1 : absl::string_view::npos;
}

}  // namespace

bool IsSpaceOrEnd(absl::string_view line, size_t p) {
  const char c = At(line, p);
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

bool IsAtxHeadingStart(absl::string_view line, size_t p) {
  size_t n = 0;
  while (At(line, p + n) == '#') ++n;
  if (n < 1 || n > 6) return false;
  return p + n >= line.size() || IsSpaceOrTab(line[p + n]);
}

size_t OpenFenceLength(absl::string_view line, size_t p) {
  const char c = At(line, p);
  if (c != '`' && c != '~') return 0;
  size_t n = 0;
  while (At(line, p + n) == c) ++n;
  if (n < 3) return 0;
  if (c == '`' && line.find('`', p + n) != absl::string_view::npos) return 0;
  return n;
}

size_t CloseFenceLength(absl::string_view line, size_t p, char c) {
  size_t n = 0;
  while (At(line, p + n) == c) ++n;
  if (n < 3) return 0;
  for (size_t i = p + n; i < line.size(); ++i) {
    if (!IsSpaceOrTab(line[i])) return 0;
  }
  return n;
}

int SetextLevel(absl::string_view line, size_t p) {
  const char c = At(line, p);
  if (c != '=' && c != '-') return 0;
  size_t i = p;
  while (At(line, i) == c) ++i;
  while (i < line.size() && IsSpaceOrTab(line[i])) ++i;
  if (i < line.size()) return 0;
  return c == '=' ? 1 : 2;
}

bool IsThematicBreak(absl::string_view line, size_t p) {
  const char c = At(line, p);
  if (c != '*' && c != '_' && c != '-') return false;
  int count = 0;
  for (size_t i = p; i < line.size(); ++i) {
    if (line[i] == c) {
      ++count;
    } else if (!IsSpaceOrTab(line[i])) {
      return false;
    }
  }
  return count >= 3;
}

int HtmlBlockStart(absl::string_view line, size_t p) {
  if (At(line, p) != '<') return 0;
  const std::string raw = TagNameAt(line, p + 1);
  if (InList(raw, kRawTags, 4)) {
    const char after = At(line, p + 1 + raw.size());
    if (IsSpaceOrEnd(line, p + 1 + raw.size()) || after == '>') return 1;
  }
  if (StartsWithNoCase(line, p, "<!--")) return 2;
  if (StartsWithNoCase(line, p, "<?")) return 3;
  if (StartsWithNoCase(line, p, "<![CDATA[")) return 5;
  if (At(line, p + 1) == '!' && At(line, p + 2) >= 'A' &&
      At(line, p + 2) <= 'Z') {
    return 4;
  }
  const size_t name = p + 1 + (At(line, p + 1) == '/' ? 1 : 0);
  const std::string tag = TagNameAt(line, name);
  if (!InList(tag, kBlockTags, sizeof(kBlockTags) / sizeof(kBlockTags[0]))) {
    return 0;
  }
  const size_t after = name + tag.size();
  if (IsSpaceOrEnd(line, after) || At(line, after) == '>' ||
      (At(line, after) == '/' && At(line, after + 1) == '>')) {
    return 6;
  }
  return 0;
}

bool IsHtmlBlockStart7(absl::string_view line, size_t p) {
  if (At(line, p) != '<') return false;
  size_t end;
  if (At(line, p + 1) == '/') {
    end = SkipTagName(line, p + 2);
    if (end == absl::string_view::npos) return false;
    end = SkipTagSpace(line, end);
    if (At(line, end) != '>') return false;
    ++end;
  } else {
    end = SkipOpenTag(line, p + 1);
    if (end == absl::string_view::npos) return false;
  }
  while (end < line.size() &&
         (line[end] == ' ' || line[end] == '\t' || line[end] == '\f')) {
    ++end;
  }
  return end >= line.size();
}

bool HtmlBlockEnds(int type, absl::string_view line, size_t p) {
  const absl::string_view rest = line.substr(std::min(p, line.size()));
  switch (type) {
    case 1: {
      const std::string lower = absl::AsciiStrToLower(rest);
      for (absl::string_view tag : kRawTags) {
        if (lower.find("</" + std::string(tag) + ">") != std::string::npos) {
          return true;
        }
      }
      return false;
    }
    case 2:
      return absl::StrContains(rest, "-->");
    case 3:
      return absl::StrContains(rest, "?>");
    case 4:
      return absl::StrContains(rest, ">");
    case 5:
      return absl::StrContains(rest, "]]>");
    default:
      return false;
  }
}

bool ParseListMarker(absl::string_view line, size_t p,
                     bool interrupts_paragraph, ListMarker* marker) {
  size_t pos = p;
  const char c = At(line, pos);
  if (c == '*' || c == '-' || c == '+') {
    marker->ordered = false;
    marker->delimiter = c;
    ++pos;
  } else if (IsDigit(c)) {
    int digits = 0;
    long start = 0;
    while (digits < 9 && IsDigit(At(line, pos))) {
      start = start * 10 + (line[pos] - '0');
      ++pos;
      ++digits;
    }
    if (interrupts_paragraph && start != 1) return false;
    const char delimiter = At(line, pos);
    if (delimiter != '.' && delimiter != ')') return false;
    marker->ordered = true;
    marker->delimiter = delimiter;
    ++pos;
  } else {
    return false;
  }
  if (!IsSpaceOrEnd(line, pos)) return false;
  if (interrupts_paragraph) {
    size_t i = pos;
    while (i < line.size() && IsSpaceOrTab(line[i])) ++i;
    if (i >= line.size()) return false;
  }
  marker->length = pos - p;
  return true;
}

}  // namespace internal
}  // namespace text
}  // namespace toolgate
