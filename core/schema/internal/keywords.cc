#include "core/schema/internal/keywords.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/schema/internal/format.h"
#include "core/schema/internal/refuse.h"
#include "core/schema/internal/registry.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

// The dialects a keyword belongs to, one bit each; 0: draft 2019-09 only.
enum : uint8_t { k2019 = 0, k7 = 1, k2020 = 2, kBoth = 3 };

constexpr uint32_t kApp = kVocabApplicator;
constexpr uint32_t kVal = kVocabValidation;
constexpr uint32_t kMeta = kVocabMetaData;
constexpr uint32_t kContent = kVocabContent;
constexpr uint32_t kFormat = kVocabFormatAnnotation | kVocabFormatAssertion;
// Vocabularies whose keywords assert: switched off, they disable checks.
constexpr uint32_t kAsserting = kApp | kVal | kVocabUnevaluated;

struct Keyword {
  absl::string_view name;
  uint8_t dialects;
  uint32_t vocab;             // 2020-12 vocabulary; 0: none.
  absl::string_view instead;  // The other dialect's way to say it.
};

// $defs and definitions only hold $ref targets, and deprecated and
// contentSchema are annotations: tolerated in both dialects, since they
// disable nothing.
constexpr Keyword kKeywords[] = {
    {"$schema", kBoth, kVocabCore}, {"$id", kBoth, kVocabCore},
    {"$ref", kBoth, kVocabCore}, {"$comment", kBoth, kVocabCore},
    {"$defs", kBoth, kVocabCore}, {"definitions", kBoth, 0},
    {"$anchor", k2020, kVocabCore, "\"$id\": \"#name\""},
    {"$dynamicAnchor", k2020, kVocabCore},
    {"$dynamicRef", k2020, kVocabCore, "\"$ref\""},
    {"$vocabulary", k2020, kVocabCore},
    {"$recursiveRef", k2019, 0, "\"$dynamicRef\""},
    {"$recursiveAnchor", k2019, 0, "\"$dynamicAnchor\""},
    {"prefixItems", k2020, kApp, "\"items\" as an array"},
    {"items", kBoth, kApp},
    {"additionalItems", k7, kApp, "\"items\" after \"prefixItems\""},
    {"contains", kBoth, kApp}, {"properties", kBoth, kApp},
    {"patternProperties", kBoth, kApp}, {"additionalProperties", kBoth, kApp},
    {"propertyNames", kBoth, kApp},
    {"dependentSchemas", k2020, kApp, "\"dependencies\""},
    {"dependencies", k7, kApp, "\"dependentRequired\" or \"dependentSchemas\""},
    {"if", kBoth, kApp}, {"then", kBoth, kApp}, {"else", kBoth, kApp},
    {"allOf", kBoth, kApp}, {"anyOf", kBoth, kApp}, {"oneOf", kBoth, kApp},
    {"not", kBoth, kApp},
    {"unevaluatedItems", k2020, kVocabUnevaluated},
    {"unevaluatedProperties", k2020, kVocabUnevaluated},
    {"type", kBoth, kVal}, {"const", kBoth, kVal}, {"enum", kBoth, kVal},
    {"multipleOf", kBoth, kVal}, {"maximum", kBoth, kVal},
    {"exclusiveMaximum", kBoth, kVal}, {"minimum", kBoth, kVal},
    {"exclusiveMinimum", kBoth, kVal}, {"maxLength", kBoth, kVal},
    {"minLength", kBoth, kVal}, {"pattern", kBoth, kVal},
    {"maxItems", kBoth, kVal}, {"minItems", kBoth, kVal},
    {"uniqueItems", kBoth, kVal}, {"maxContains", k2020, kVal},
    {"minContains", k2020, kVal}, {"maxProperties", kBoth, kVal},
    {"minProperties", kBoth, kVal}, {"required", kBoth, kVal},
    {"dependentRequired", k2020, kVal, "\"dependencies\""},
    {"format", kBoth, kFormat}, {"contentEncoding", kBoth, kContent},
    {"contentMediaType", kBoth, kContent}, {"contentSchema", kBoth, kContent},
    {"title", kBoth, kMeta}, {"description", kBoth, kMeta},
    {"default", kBoth, kMeta}, {"examples", kBoth, kMeta},
    {"deprecated", kBoth, kMeta}, {"readOnly", kBoth, kMeta},
    {"writeOnly", kBoth, kMeta},
};

const Keyword* Find(absl::string_view name) {
  static const auto* const kByName = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, const Keyword*>();
    for (const Keyword& k : kKeywords) m->emplace(k.name, &k);
    return m;
  }();
  auto it = kByName->find(name);
  return it == kByName->end() ? nullptr : it->second;
}

// The keyword of the dialect (`bit`) closest to `name`: within distance 2,
// or 1 for names shorter than 6 characters ("foo" is not a typo of "not").
const Keyword* Nearest(absl::string_view name, uint8_t bit) {
  const size_t limit = name.size() < 6 ? 1 : 2;
  const Keyword* best = nullptr;
  size_t best_distance = limit + 1;
  for (const Keyword& k : kKeywords) {
    if ((k.dialects & bit) == 0) continue;
    const size_t gap = name.size() > k.name.size() ? name.size() - k.name.size()
                                                   : k.name.size() - name.size();
    if (gap > limit) continue;
    const size_t d = KeywordDistance(name, k.name);
    if (d < best_distance) {
      best = &k;
      best_distance = d;
    }
  }
  return best;
}

absl::string_view DialectName(uint8_t dialects) {
  switch (dialects) {
    case k7: return "draft-07";
    case k2020: return "draft 2020-12";
    default: return "draft 2019-09";
  }
}

// Why the member `name`, no keyword of `dialect`, is there, if we can tell.
std::string Hint(absl::string_view name, Dialect dialect) {
  const uint8_t bit = dialect == Dialect::kDraft7 ? k7 : k2020;
  const Keyword* k = Find(name);
  if (k == nullptr) {
    const Keyword* near = Nearest(name, bit);
    return near == nullptr ? ""
                           : absl::StrCat("did you mean \"", near->name, "\"?");
  }
  std::string hint = absl::StrCat("a ", DialectName(k->dialects),
                                  " keyword, not ", DialectName(bit));
  if (!k->instead.empty() && (k->dialects != k2019 || bit == k2020)) {
    absl::StrAppend(&hint, "; use ", k->instead);
  }
  return hint;
}

// `s` cut to at most `max` bytes, never inside a UTF-8 sequence.
std::string Clip(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

}  // namespace

void UnknownKeywords::Check(const Json& schema, Dialect dialect,
                            uint32_t vocab, const std::string& where) {
  const uint8_t bit = dialect == Dialect::kDraft7 ? k7 : k2020;
  for (const auto& member : schema.items()) {
    const std::string& name = member.key();
    const Keyword* k = Find(name);
    const bool known = k != nullptr && (k->dialects & bit) != 0;
    const bool switched_off = known && bit == k2020 &&
                              (k->vocab & kAsserting) != 0 &&
                              (k->vocab & vocab) == 0;
    if (known && !switched_off) continue;
    if (Full(false)) continue;
    const std::string hint =
        switched_off ? "its vocabulary is not declared by the metaschema"
                     : Hint(name, dialect);
    warnings_.push_back(absl::StrCat(
        "unknown keyword ", TruncatedJson(Json(name), 80), " at ",
        Clip(Join(where, name), 240), hint.empty() ? "" : " (", hint,
        hint.empty() ? "" : ")", ": ignored, as JSON Schema specifies"));
  }
  CheckFormat(schema, dialect, vocab, where);
}

void UnknownKeywords::CheckFormat(const Json& schema, Dialect dialect,
                                  uint32_t vocab, const std::string& where) {
  auto it = schema.find("format");
  if (it == schema.end() || !it->is_string()) return;
  if (dialect == Dialect::kDraft2020_12 && (vocab & kFormat) == 0) return;
  const std::string& name = it->get_ref<const std::string&>();
  for (absl::string_view known : KnownFormatNames()) {
    if (name == known) return;
  }
  if (Full(true)) return;
  const std::string hint = FormatSuggestion(name);
  warnings_.push_back(absl::StrCat(
      "unknown format ", TruncatedJson(Json(name), 80), " at ",
      Clip(Join(where, "format"), 240), hint.empty() ? "" : " (", hint,
      hint.empty() ? "" : ")", ": ignored, as JSON Schema specifies"));
}

bool UnknownKeywords::Full(bool format) {
  if (warnings_.size() < kMaxKeywordWarnings) return false;
  ++(format ? more_formats_ : more_);
  return true;
}

std::vector<std::string> UnknownKeywords::Warnings() const {
  std::vector<std::string> out = warnings_;
  const size_t more = more_ + more_formats_;
  if (more == 0) return out;
  const char* what = more_formats_ == 0 ? (more == 1 ? "keyword" : "keywords")
                     : more_ == 0       ? (more == 1 ? "format" : "formats")
                                        : "keywords or formats";
  out.push_back(absl::StrCat("... and ", more, " more unknown ", what));
  return out;
}

std::string FormatSuggestion(absl::string_view name) {
  const size_t limit = name.size() < 6 ? 1 : 2;
  absl::string_view best;
  size_t best_distance = limit + 1;
  for (absl::string_view known : KnownFormatNames()) {
    const size_t gap = name.size() > known.size() ? name.size() - known.size()
                                                  : known.size() - name.size();
    if (gap > limit) continue;
    const size_t d = KeywordDistance(name, known);
    if (d < best_distance) {
      best = known;
      best_distance = d;
    }
  }
  return best.empty() ? "" : absl::StrCat("did you mean \"", best, "\"?");
}

size_t KeywordDistance(absl::string_view a, absl::string_view b) {
  // Three rows of the optimal-string-alignment table.
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1),
      row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const char x = absl::ascii_tolower(a[i - 1]);
      const char y = absl::ascii_tolower(b[j - 1]);
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x == y ? 0 : 1)});
      if (i > 1 && j > 1 && x == absl::ascii_tolower(b[j - 2]) &&
          absl::ascii_tolower(a[i - 2]) == y) {
        row[j] = std::min(row[j], prev2[j - 2] + 1);
      }
    }
    std::swap(prev2, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
