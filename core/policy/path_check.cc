// path: lexical resolution against the root, without allocation on the
// passing path (the root's segments live in an inline vector).
#include <cstddef>
#include <optional>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/policy/argument_checks.h"
#include "core/text/invisible_chars.h"

namespace toolgate::policy {
namespace {

constexpr absl::string_view kInvalid = "path_invalid";
constexpr absl::string_view kOutside = "path_outside_root";

using ::toolgate::text::DecodeUtf8At;
using ::toolgate::text::IsBidiControl;

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

constexpr absl::string_view kControl = "contains a NUL or control character";

// Why the character at text[i] (not ASCII) can't be in a path, or empty.
// A bidi control makes the path display as another one to whoever reads
// it (an approver, a log): "invoice_\u202Efdp.exe" shows as
// "invoice_exe.pdf".
absl::string_view NonAsciiProblem(absl::string_view text, size_t i,
                                  size_t* len) {
  const char32_t c = DecodeUtf8At(text, i, len);
  if (c >= 0x80 && c <= 0x9F) return kControl;
  if (IsBidiControl(c)) {
    return "contains a bidirectional control character (U+061C, U+200E, "
           "U+200F, U+202A-U+202E or U+2066-U+2069), which shows the path as "
           "another one";
  }
  return {};
}

// Why `text` can't be a path at all, or empty when its bytes are fine.
// `%XX` is refused and never decoded: the tool (or a web layer in front of
// it) might decode it where we did not.
absl::string_view FormProblem(absl::string_view text) {
  if (text.empty()) return "is empty";
  if (text[0] == '~') return "starts with '~' (home directory expansion)";
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (static_cast<unsigned char>(c - 0x20) >= 0x5f) {  // Not 0x20-0x7E.
      if (c < 0x80) return kControl;
      size_t len = 1;
      if (absl::string_view p = NonAsciiProblem(text, i, &len); !p.empty()) {
        return p;
      }
      i += len - 1;
      continue;
    }
    if (c == '\\') return "contains a backslash";
    if (c == '%' && i + 2 < text.size() && IsHex(text[i + 1]) &&
        IsHex(text[i + 2])) {
      return "contains a %XX escape";
    }
  }
  return {};
}

using Segments = absl::InlinedVector<absl::string_view, 16>;

// Splits on '/', dropping empty segments (from "//" or a trailing '/').
// False when a "." or ".." segment makes the text non-canonical.
bool SplitCanonical(absl::string_view text, Segments* out) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('/', start);
    if (end == absl::string_view::npos) end = text.size();
    const absl::string_view seg = text.substr(start, end - start);
    if (seg == "." || seg == "..") return false;
    if (!seg.empty()) out->push_back(seg);
    start = end + 1;
  }
  return true;
}

// Walks the value's segments from a start position, tracking the depth and
// how many leading segments equal the root's. Inside means all of the
// root's segments are matched; leaving it at any step is final.
class Walk {
 public:
  Walk(const Segments& root, bool start_inside)
      : root_(root), depth_(start_inside ? root.size() : 0), matched_(depth_) {}

  // False when the walk has left the root (or tried to go above '/').
  bool Step(absl::string_view seg) {
    if (seg.empty() || seg == ".") return true;
    const bool was_inside = Inside();
    if (seg == "..") {
      if (depth_ == 0) return false;
      --depth_;
      if (matched_ > depth_) matched_ = depth_;
    } else {
      if (matched_ == depth_ && depth_ < root_.size() && root_[depth_] == seg) {
        ++matched_;
      }
      ++depth_;
    }
    return !(was_inside && !Inside());
  }

  bool Inside() const { return matched_ == root_.size(); }

 private:
  const Segments& root_;
  size_t depth_;
  size_t matched_;
};

ArgumentViolation Outside(absl::string_view value, const PathRule& rule) {
  return MakeViolation(
      kOutside, absl::StrCat("path ", QuoteValue(value),
                             " resolves outside the allowed root \"", rule.root,
                             "\"; give a path inside it without '..' "
                             "segments that leave it"));
}

}  // namespace

std::optional<ArgumentViolation> CheckPath(absl::string_view value,
                                           const PathRule& rule) {
  Segments root;
  if (rule.root.empty() || rule.root[0] != '/' ||
      !FormProblem(rule.root).empty() || !SplitCanonical(rule.root, &root)) {
    // ValidatePathRule refuses such a rule at load; never guess here.
    return MakeViolation(kInvalid, "the path rule's root is invalid");
  }
  if (absl::string_view problem = FormProblem(value); !problem.empty()) {
    return MakeViolation(kInvalid,
                         absl::StrCat("path ", QuoteValue(value), " ", problem,
                                      "; give a plain relative path"));
  }
  const bool absolute = value[0] == '/';
  if (absolute && !rule.allow_absolute) {
    return MakeViolation(
        kInvalid, absl::StrCat("path ", QuoteValue(value),
                               " is absolute; give a path relative to \"",
                               rule.root, "\""));
  }
  Walk walk(root, /*start_inside=*/!absolute);
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find('/', start);
    if (end == absl::string_view::npos) end = value.size();
    if (!walk.Step(value.substr(start, end - start))) {
      return Outside(value, rule);
    }
    start = end + 1;
  }
  if (!walk.Inside()) return Outside(value, rule);
  return std::nullopt;
}

absl::Status ValidatePathRule(const PathRule& rule) {
  Segments root;
  if (rule.root.empty()) {
    return absl::InvalidArgumentError("path rule: root is empty");
  }
  if (rule.root[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        "path rule: root \"", rule.root, "\" must be an absolute path"));
  }
  if (absl::string_view problem = FormProblem(rule.root); !problem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("path rule: root ", QuoteValue(rule.root), " ", problem));
  }
  if (!SplitCanonical(rule.root, &root)) {
    return absl::InvalidArgumentError(
        absl::StrCat("path rule: root \"", rule.root,
                     "\" must not contain '.' or '..' segments"));
  }
  return absl::OkStatus();
}

}  // namespace toolgate::policy
