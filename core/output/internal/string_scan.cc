#include "core/output/internal/string_scan.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/text/invisible_chars.h"
#include "re2/re2.h"
#include "re2/set.h"

namespace toolgate {
namespace output {
namespace internal {
namespace {

struct PatternDef {
  absl::string_view code;
  const char* regex;
};

// See FindInjections in the header for what each pattern is for. Keep the
// table tight: every entry is scanned against every string of every output.
constexpr PatternDef kInjectionPatterns[] = {
    {"instruction_override",
     R"re((?i)\b(?:ignore|disregard|forget|override|bypass)\s+)re"
     R"re((?:(?:all|any|the|your|my|these|those|previous|prior|above|)re"
     R"re(earlier|preceding|original|system|every)\s+){0,4})re"
     R"re((?:instructions?|prompts?|rules|directions|guidelines|)re"
     R"re(guardrails)\b)re"
     R"re(|\bnew\s+(?:system\s+)?instructions\s*:)re"},
    {"role_marker",
     R"re((?im)^[ \t]*(?:system|assistant|developer|human)[ \t]*:)re"},
    {"chat_template_token",
     R"re((?i)<\|(?:im_start|im_end|im_sep|system|user|assistant|)re"
     R"re(endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>)re"
     R"re(|\[/?INST\]|<</?SYS>>)re"},
    {"tool_call_syntax",
     R"re((?i)</?(?:tool_call|tool_calls|tool_use|function_call|)re"
     R"re(function_calls)\b)re"
     R"re(|\{\s*"name"\s*:\s*"[^"]*"\s*,)re"
     R"re(\s*"(?:arguments|parameters|input)"\s*:)re"
     R"re(|"tool_calls"\s*:\s*\[)re"},
};

struct CompiledPattern {
  absl::string_view code;
  std::unique_ptr<RE2> re;
};

std::unique_ptr<RE2> CompileOrDie(const char* regex) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<RE2>(regex, options);
  // The patterns are constants covered by tests; a broken one is a build
  // defect, never something to skip silently.
  if (!re->ok()) std::abort();
  return re;
}

const std::vector<CompiledPattern>& InjectionPatterns() {
  static const auto* patterns = [] {
    auto* v = new std::vector<CompiledPattern>();
    for (const PatternDef& def : kInjectionPatterns) {
      v->push_back({def.code, CompileOrDie(def.regex)});
    }
    return v;
  }();
  return *patterns;
}

// All injection patterns in one automaton, indexed like InjectionPatterns().
const RE2::Set& InjectionSet() {
  static const auto* set = [] {
    RE2::Options options;
    options.set_log_errors(false);
    auto* s = new RE2::Set(options, RE2::UNANCHORED);
    for (const PatternDef& def : kInjectionPatterns) {
      if (s->Add(def.regex, nullptr) < 0) std::abort();  // Build defect.
    }
    if (!s->Compile()) std::abort();
    return s;
  }();
  return *set;
}

bool FirstMatch(const RE2& re, absl::string_view text, absl::string_view code,
                PatternMatch* out) {
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece found;
  if (!re.Match(input, 0, input.size(), RE2::UNANCHORED, &found, 1)) {
    return false;
  }
  out->code = code;
  out->start = static_cast<size_t>(found.data() - input.data());
  out->length = found.size();
  return true;
}

class StringWalker {
 public:
  explicit StringWalker(
      const std::function<bool(const std::string&, const std::string&)>& visit)
      : visit_(visit) {}

  // Returns false once the visitor asked to stop.
  bool Walk(const Json& value) {
    if (value.is_string()) {
      return visit_(pointer_, value.get_ref<const std::string&>());
    }
    if (value.is_array()) {
      for (size_t i = 0; i < value.size(); ++i) {
        if (!Child(absl::StrCat(i), value[i], nullptr)) return false;
      }
    } else if (value.is_object()) {
      for (const auto& [key, child] : value.items()) {
        if (!Child(EscapePointerToken(key), child, &key)) return false;
      }
    }
    return true;
  }

 private:
  bool Child(const std::string& token, const Json& child,
             const std::string* key) {
    const size_t mark = pointer_.size();
    absl::StrAppend(&pointer_, "/", token);
    bool go_on = key == nullptr || visit_(pointer_, *key);
    if (go_on) go_on = Walk(child);
    pointer_.resize(mark);
    return go_on;
  }

  const std::function<bool(const std::string&, const std::string&)>& visit_;
  std::string pointer_;
};

}  // namespace

std::vector<PatternMatch> FindInjections(absl::string_view text) {
  std::vector<PatternMatch> out;
  ::toolgate::text::ScanText plain;
  const bool normalized = ::toolgate::text::NormalizeForScan(text, &plain);
  const absl::string_view scanned = normalized ? plain.text : text;
  // One pass over the string says which patterns occur (almost always
  // none); only those are run again to locate the match.
  std::vector<int> hits;
  if (!InjectionSet().Match(re2::StringPiece(scanned.data(), scanned.size()),
                            &hits)) {
    return out;
  }
  std::sort(hits.begin(), hits.end());
  for (int i : hits) {
    const CompiledPattern& p = InjectionPatterns()[i];
    PatternMatch m;
    if (!FirstMatch(*p.re, scanned, p.code, &m)) continue;
    if (normalized) {
      // Report where the match is in the string as the tool sent it.
      const size_t end = plain.SourceOffset(m.start + m.length);
      m.start = plain.SourceOffset(m.start);
      m.length = end - m.start;
    }
    out.push_back(m);
  }
  return out;
}

void ForEachString(const Json& root,
                   const std::function<bool(const std::string& pointer,
                                            const std::string& text)>& visit) {
  StringWalker(visit).Walk(root);
}

}  // namespace internal
}  // namespace output
}  // namespace toolgate
