#include "core/schema/internal/registry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/metaschemas.h"
#include "core/schema/internal/refuse.h"
#include "core/schema/internal/uri.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

constexpr absl::string_view kDefaultBase = "urn:toolgate:root";
constexpr absl::string_view kDraft2020 =
    "https://json-schema.org/draft/2020-12/schema";
constexpr absl::string_view kDraft7 = "http://json-schema.org/draft-07/schema";

std::string Key(int doc, const std::string& ptr) {
  return absl::StrCat(doc, ":", ptr);
}

// Keywords whose value is a subschema, map of subschemas or array of them.
struct Keywords {
  std::vector<absl::string_view> single, map, array;
};

const Keywords& KeywordsFor(Dialect d) {
  static const Keywords k2020{
      {"additionalProperties", "unevaluatedProperties", "unevaluatedItems",
       "items", "contains", "propertyNames", "if", "then", "else", "not"},
      {"$defs", "properties", "patternProperties", "dependentSchemas"},
      {"prefixItems", "allOf", "anyOf", "oneOf"}};
  static const Keywords k7{
      {"additionalProperties", "additionalItems", "contains", "propertyNames",
       "if", "then", "else", "not", "items"},
      {"definitions", "properties", "patternProperties", "dependencies"},
      {"allOf", "anyOf", "oneOf", "items"}};
  return d == Dialect::kDraft7 ? k7 : k2020;
}

uint32_t VocabBit(absl::string_view uri) {
  static const std::pair<absl::string_view, uint32_t> kVocabs[] = {
      {"core", kVocabCore},
      {"applicator", kVocabApplicator},
      {"unevaluated", kVocabUnevaluated},
      {"validation", kVocabValidation},
      {"meta-data", kVocabMetaData},
      {"format-annotation", kVocabFormatAnnotation},
      {"format-assertion", kVocabFormatAssertion},
      {"content", kVocabContent},
  };
  constexpr absl::string_view kPrefix =
      "https://json-schema.org/draft/2020-12/vocab/";
  if (uri.substr(0, kPrefix.size()) != kPrefix) return 0;
  for (const auto& [name, bit] : kVocabs) {
    if (uri.substr(kPrefix.size()) == name) return bit;
  }
  return 0;
}

}  // namespace

std::string NormalizeUri(const std::string& uri) {
  if (!uri.empty() && uri.back() == '#') return uri.substr(0, uri.size() - 1);
  return uri;
}

Registry::Registry(const CompileOptions& options) : options_(options) {
  for (const auto& [uri, doc] : options.documents) {
    documents_.emplace(NormalizeUri(uri), doc);
  }
}

absl::Status Registry::AddRoot(const Json& schema) {
  return AddDocument(std::string(kDefaultBase), schema,
                     options_.default_dialect);
}

absl::Status Registry::CheckSize(const Json& doc, const std::string& uri,
                                 size_t* values) const {
  // Iterative walk: the document may be as deep as the parser allowed.
  std::vector<std::pair<const Json*, int>> stack{{&doc, 1}};
  size_t nodes = 0;
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    if (++nodes > options_.max_schema_nodes) {
      return Refuse(uri, absl::StrCat("schema has more than ",
                                      options_.max_schema_nodes,
                                      " JSON values (max_schema_nodes)"));
    }
    if (depth > options_.max_schema_depth) {
      return Refuse(uri, absl::StrCat("schema nesting is deeper than ",
                                      options_.max_schema_depth,
                                      " (max_schema_depth)"));
    }
    if (v->is_structured()) {
      for (const Json& child : *v) stack.push_back({&child, depth + 1});
    }
  }
  *values = nodes;
  return absl::OkStatus();
}

absl::Status Registry::AddDocument(const std::string& uri, Json json,
                                   Dialect fallback, bool builtin) {
  size_t values = 0;
  absl::Status size =
      CheckSize(json, uri == kDefaultBase ? "" : uri, &values);
  if (!size.ok()) return size;
  if (!builtin) values_read_ += values;
  const int doc = static_cast<int>(docs_.size());
  docs_.push_back(std::move(json));
  doc_uris_.push_back(uri);
  doc_builtin_.push_back(builtin);
  Resource r;
  r.uri = uri;
  r.root = Location{doc, ""};
  r.dialect = fallback;
  resources_.push_back(r);
  const int res = static_cast<int>(resources_.size()) - 1;
  by_uri_.emplace(uri, res);
  return Scan(doc, docs_.back(), "", res, 0);
}

absl::Status Registry::MetaschemaInfo(const std::string& raw, Dialect* dialect,
                                      uint32_t* vocab,
                                      const std::string& where) {
  const std::string uri = NormalizeUri(raw);
  *vocab = kVocabAll;
  if (uri == kDraft2020) {
    *dialect = Dialect::kDraft2020_12;
    return absl::OkStatus();
  }
  if (uri == kDraft7) {
    *dialect = Dialect::kDraft7;
    return absl::OkStatus();
  }
  // A custom metaschema: it must be supplied, be a 2020-12 schema, and
  // require no vocabulary we do not implement.
  if (metaschema_depth_ > 4) return Refuse(where, "metaschema chain too long");
  ++metaschema_depth_;
  auto loc = Resolve(uri, Dialect::kDraft2020_12, where);
  --metaschema_depth_;
  if (!loc.ok()) {
    return Refuse(where, absl::StrCat("unknown $schema \"", raw,
                                      "\" (supported: ", kDraft2020, ", ",
                                      kDraft7, "#)"));
  }
  const Json& meta = *At(*loc).value();
  const Resource& mr = resources_[ResourceOf(*loc)];
  *dialect = mr.dialect;
  if (!meta.is_object() || !meta.contains("$vocabulary")) {
    return absl::OkStatus();
  }
  const Json& vocabs = meta["$vocabulary"];
  if (!vocabs.is_object()) return Refuse(where, "malformed $vocabulary");
  *vocab = kVocabCore;
  for (const auto& [v, required] : vocabs.items()) {
    const uint32_t bit = VocabBit(v);
    if (bit == 0 && required == true) {
      return Refuse(where, absl::StrCat("metaschema \"", raw,
                                        "\" requires unknown vocabulary \"",
                                        v, "\""));
    }
    *vocab |= bit;
  }
  return absl::OkStatus();
}

absl::Status Registry::EnterResource(int doc, const Json& v,
                                     const std::string& ptr, int* res) {
  // Copied: loading a metaschema below may grow resources_.
  const Resource parent = resources_[*res];
  Dialect dialect = parent.dialect;
  uint32_t vocab = parent.vocab;
  const std::string where = Where(Location{doc, ptr});
  auto schema_it = v.find("$schema");
  if (schema_it != v.end()) {
    if (!schema_it->is_string()) return Refuse(where, "$schema must be a string");
    absl::Status s = MetaschemaInfo(schema_it->get<std::string>(), &dialect,
                                    &vocab, where);
    if (!s.ok()) return s;
  }
  std::string id;
  auto id_it = v.find("$id");
  const bool id_ignored = dialect == Dialect::kDraft7 && v.contains("$ref");
  if (id_it != v.end() && !id_ignored) {
    if (!id_it->is_string()) return Refuse(where, "$id must be a string");
    id = id_it->get<std::string>();
  }
  std::string absolute, fragment;
  SplitFragment(ResolveUri(parent.uri, id), &absolute, &fragment);
  const bool new_uri = !id.empty() && id[0] != '#';
  if (dialect == Dialect::kDraft2020_12 && !fragment.empty() && !id.empty()) {
    return Refuse(where, absl::StrCat("$id \"", id,
                                      "\" must not contain a fragment"));
  }
  if (new_uri || schema_it != v.end()) {
    if (ptr.empty() && doc == parent.root.doc && parent.root.pointer.empty()) {
      // The document root: its $id names the resource it was loaded as.
      Resource& r = resources_[*res];
      r.dialect = dialect;
      r.vocab = vocab;
      r.declares_schema = schema_it != v.end();
      if (new_uri) {
        r.uri = absolute;
        by_uri_.emplace(absolute, *res);
      }
    } else {
      Resource r;
      r.uri = new_uri ? absolute : parent.uri;
      r.root = Location{doc, ptr};
      r.dialect = dialect;
      r.vocab = vocab;
      r.declares_schema = schema_it != v.end();
      resources_.push_back(r);
      *res = static_cast<int>(resources_.size()) - 1;
      if (new_uri) by_uri_.emplace(absolute, *res);
    }
  }
  if (dialect == Dialect::kDraft7 && !fragment.empty() && !id.empty()) {
    resources_[*res].anchors.emplace(PercentDecode(fragment), ptr);
  }
  return absl::OkStatus();
}

absl::Status Registry::Scan(int doc, const Json& v, const std::string& ptr,
                            int res, int depth) {
  if (!v.is_object()) {
    resource_at_.emplace(Key(doc, ptr), res);
    return absl::OkStatus();
  }
  absl::Status s = EnterResource(doc, v, ptr, &res);
  if (!s.ok()) return s;
  resource_at_.emplace(Key(doc, ptr), res);
  Resource& r = resources_[res];
  if (r.dialect == Dialect::kDraft2020_12) {
    for (absl::string_view kw : {"$anchor", "$dynamicAnchor"}) {
      auto it = v.find(kw);
      if (it == v.end()) continue;
      if (!it->is_string()) {
        return Refuse(Where(Location{doc, ptr}),
                      absl::StrCat(kw, " must be a string"));
      }
      r.anchors.emplace(it->get<std::string>(), ptr);
      if (kw == "$dynamicAnchor") {
        r.dynamic_anchors.emplace(it->get<std::string>(), ptr);
      }
    }
  }
  return ScanChildren(doc, v, ptr, res, depth);
}

absl::Status Registry::ScanChildren(int doc, const Json& v,
                                    const std::string& ptr, int res,
                                    int depth) {
  const Keywords& kws = KeywordsFor(resources_[res].dialect);
  for (absl::string_view kw : kws.single) {
    auto it = v.find(kw);
    if (it == v.end() || it->is_array()) continue;
    absl::Status s = Scan(doc, *it, Join(ptr, kw), res, depth + 1);
    if (!s.ok()) return s;
  }
  for (absl::string_view kw : kws.map) {
    auto it = v.find(kw);
    if (it == v.end() || !it->is_object()) continue;
    for (const auto& [name, sub] : it->items()) {
      if (sub.is_array()) continue;  // draft-07 dependencies: names.
      absl::Status s =
          Scan(doc, sub, Join(Join(ptr, kw), name), res, depth + 1);
      if (!s.ok()) return s;
    }
  }
  for (absl::string_view kw : kws.array) {
    auto it = v.find(kw);
    if (it == v.end() || !it->is_array()) continue;
    for (size_t i = 0; i < it->size(); ++i) {
      absl::Status s = Scan(doc, (*it)[i], absl::StrCat(Join(ptr, kw), "/", i),
                            res, depth + 1);
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status Registry::Load(const std::string& uri, Dialect referrer,
                            const std::string& where) {
  auto doc_it = documents_.find(uri);
  if (doc_it != documents_.end()) {
    return AddDocument(uri, doc_it->second, referrer);
  }
  if (const char* text = FindBuiltinMetaschema(uri)) {
    auto parsed = ParseStrictJson(text, JsonLimits{1 << 20, 64});
    if (!parsed.ok()) return parsed.status();
    return AddDocument(uri, *std::move(parsed), referrer, /*builtin=*/true);
  }
  if (options_.resolver) {
    auto resolved = options_.resolver(uri);
    if (resolved.ok()) return AddDocument(uri, *std::move(resolved), referrer);
    return Refuse(where, absl::StrCat("cannot resolve \"", uri,
                                      "\": ", resolved.status().message()));
  }
  return Refuse(where,
                absl::StrCat("$ref to \"", uri,
                             "\" is not resolvable: the document is not "
                             "supplied (toolgate never fetches URLs)"));
}

absl::StatusOr<Location> Registry::Resolve(const std::string& uri,
                                           Dialect referrer,
                                           const std::string& where) {
  std::string absolute, fragment;
  SplitFragment(uri, &absolute, &fragment);
  auto it = by_uri_.find(absolute);
  if (it == by_uri_.end()) {
    absl::Status s = Load(absolute, referrer, where);
    if (!s.ok()) return s;
    it = by_uri_.find(absolute);
    if (it == by_uri_.end()) {
      return Refuse(where, absl::StrCat("\"", absolute, "\" was not found"));
    }
  }
  const Resource& r = resources_[it->second];
  const std::string decoded = PercentDecode(fragment);
  Location loc = r.root;
  if (decoded.empty()) return loc;
  if (decoded[0] == '/') {
    loc.pointer += decoded;
  } else {
    auto a = r.anchors.find(decoded);
    if (a == r.anchors.end()) {
      return Refuse(where, absl::StrCat("$ref \"", uri,
                                        "\": no anchor \"", decoded, "\""));
    }
    loc.pointer = a->second;
  }
  auto json = At(loc);
  if (!json.ok()) {
    return Refuse(where, absl::StrCat("$ref \"", uri, "\" points to nothing"));
  }
  return loc;
}

absl::StatusOr<const Json*> Registry::At(const Location& loc) const {
  try {
    const Json& doc = docs_[loc.doc];
    return &doc.at(Json::json_pointer(loc.pointer));
  } catch (const std::exception&) {
    return absl::InvalidArgumentError(
        absl::StrCat("no value at ", Where(loc)));
  }
}

int Registry::ResourceOf(const Location& loc) const {
  std::string ptr = loc.pointer;
  while (true) {
    auto it = resource_at_.find(Key(loc.doc, ptr));
    if (it != resource_at_.end()) return it->second;
    if (ptr.empty()) break;
    ptr.resize(ptr.rfind('/'));
  }
  // Unscanned documents do not exist; fall back to the document's first.
  for (int i = 0; i < static_cast<int>(resources_.size()); ++i) {
    if (resources_[i].root.doc == loc.doc) return i;
  }
  return 0;
}

std::string Registry::Where(const Location& loc) const {
  if (loc.doc == 0) return loc.pointer;
  return absl::StrCat(doc_uris_[loc.doc], "#", loc.pointer);
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
