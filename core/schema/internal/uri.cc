#include "core/schema/internal/uri.h"

#include <cctype>
#include <vector>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

struct Parts {
  bool has_scheme = false, has_authority = false, has_query = false,
       has_fragment = false;
  std::string scheme, authority, path, query, fragment;
};

Parts Parse(absl::string_view s) {
  Parts p;
  size_t i = 0;
  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
  size_t j = 0;
  while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) ||
                          s[j] == '+' || s[j] == '-' || s[j] == '.')) {
    ++j;
  }
  if (j > 0 && j < s.size() && s[j] == ':' &&
      std::isalpha(static_cast<unsigned char>(s[0]))) {
    p.has_scheme = true;
    p.scheme = std::string(s.substr(0, j));
    i = j + 1;
  }
  if (s.substr(i, 2) == "//") {
    p.has_authority = true;
    size_t end = s.find_first_of("/?#", i + 2);
    if (end == absl::string_view::npos) end = s.size();
    p.authority = std::string(s.substr(i + 2, end - i - 2));
    i = end;
  }
  size_t end = s.find_first_of("?#", i);
  if (end == absl::string_view::npos) end = s.size();
  p.path = std::string(s.substr(i, end - i));
  i = end;
  if (i < s.size() && s[i] == '?') {
    p.has_query = true;
    end = s.find('#', i);
    if (end == absl::string_view::npos) end = s.size();
    p.query = std::string(s.substr(i + 1, end - i - 1));
    i = end;
  }
  if (i < s.size() && s[i] == '#') {
    p.has_fragment = true;
    p.fragment = std::string(s.substr(i + 1));
  }
  return p;
}

std::string RemoveDotSegments(absl::string_view path) {
  std::vector<std::string> out;
  const bool absolute = !path.empty() && path[0] == '/';
  size_t i = absolute ? 1 : 0;
  bool trailing = false;
  while (i <= path.size()) {
    size_t end = path.find('/', i);
    if (end == absl::string_view::npos) end = path.size();
    absl::string_view seg = path.substr(i, end - i);
    trailing = false;
    if (seg == ".") {
      trailing = true;
    } else if (seg == "..") {
      if (!out.empty()) out.pop_back();
      trailing = true;
    } else {
      out.emplace_back(seg);
    }
    i = end + 1;
  }
  std::string result = absolute ? "/" : "";
  for (size_t k = 0; k < out.size(); ++k) {
    if (k > 0) result += "/";
    result += out[k];
  }
  if (trailing && (result.empty() || result.back() != '/')) result += "/";
  return result;
}

std::string Merge(const Parts& base, const std::string& ref_path) {
  if (base.has_authority && base.path.empty()) return "/" + ref_path;
  const size_t slash = base.path.rfind('/');
  if (slash == std::string::npos) return ref_path;
  return base.path.substr(0, slash + 1) + ref_path;
}

std::string Recompose(const Parts& p) {
  std::string out;
  if (p.has_scheme) absl::StrAppend(&out, p.scheme, ":");
  if (p.has_authority) absl::StrAppend(&out, "//", p.authority);
  out += p.path;
  if (p.has_query) absl::StrAppend(&out, "?", p.query);
  if (p.has_fragment) absl::StrAppend(&out, "#", p.fragment);
  return out;
}

}  // namespace

std::string ResolveUri(absl::string_view base_text, absl::string_view ref_text) {
  const Parts r = Parse(ref_text);
  const Parts base = Parse(base_text);
  Parts t;
  if (r.has_scheme) {
    t = r;
    t.path = RemoveDotSegments(r.path);
  } else {
    if (r.has_authority) {
      t = r;
      t.path = RemoveDotSegments(r.path);
    } else {
      if (r.path.empty()) {
        t.path = base.path;
        t.has_query = r.has_query || base.has_query;
        t.query = r.has_query ? r.query : base.query;
      } else {
        t.path = RemoveDotSegments(r.path[0] == '/' ? r.path
                                                    : Merge(base, r.path));
        t.has_query = r.has_query;
        t.query = r.query;
      }
      t.has_authority = base.has_authority;
      t.authority = base.authority;
    }
    t.has_scheme = base.has_scheme;
    t.scheme = base.scheme;
  }
  t.has_fragment = r.has_fragment;
  t.fragment = r.fragment;
  return Recompose(t);
}

void SplitFragment(absl::string_view uri, std::string* absolute,
                   std::string* fragment) {
  const size_t hash = uri.find('#');
  if (hash == absl::string_view::npos) {
    *absolute = std::string(uri);
    fragment->clear();
  } else {
    *absolute = std::string(uri.substr(0, hash));
    *fragment = std::string(uri.substr(hash + 1));
  }
}

std::string PercentDecode(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() &&
        std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)),
                                         nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool HasScheme(absl::string_view uri) { return Parse(uri).has_scheme; }

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
