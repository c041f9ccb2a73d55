// What schema_compile_fuzzer holds a compiled schema to: its dialect's
// metaschema, minus what Compile knowingly does not read or check.
//
// ForMetaschemaCheck(doc) is `doc` with those parts taken out, each listed
// with its reason in findings/schema_compile_fuzzer/README.md:
//  * subschemas that cannot affect validation, which Compile never reads:
//    definitions (read only when a $ref reaches them), "then"/"else"
//    without "if", "contentSchema" (an annotation), and in draft-07
//    "additionalItems" without an "items" array and the siblings of "$ref";
//  * members whose value Compile never reads, so never checks: the
//    annotations (title, description, $comment, default, examples,
//    deprecated, readOnly, writeOnly, contentMediaType, contentEncoding,
//    $vocabulary, and "format" unless it asserts), "$defs"/"definitions"
//    that are not objects, and in a 2020-12 schema the older keywords its
//    metaschema still describes (definitions, dependencies, $recursiveRef,
//    $recursiveAnchor), which Compile only warns about;
//  * keyword values the metaschema refuses but Compile accepts with
//    harmless meaning (findings): "$anchor"/"$dynamicAnchor" strings that
//    are not anchor names, empty or repeated "type" arrays (nothing valid /
//    no effect), repeated names in "required" and "dependentRequired" /
//    draft-07 "dependencies" arrays, empty "prefixItems" / draft-07
//    "items" arrays (no constraint).
// Applied to every object, schema or not: that only ever checks less. Any
// other value the metaschema refuses must be refused by Compile.
#ifndef TOOLGATE_TESTS_FUZZ_METASCHEMA_CHECK_H_
#define TOOLGATE_TESTS_FUZZ_METASCHEMA_CHECK_H_

#include <cctype>
#include <string>

#include "core/json/strict_json.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace fuzz {

// The 2020-12 metaschema's anchorString: ^[A-Za-z_][-A-Za-z0-9._]*$.
inline bool IsAnchorName(const std::string& s) {
  if (s.empty() ||
      !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' &&
        c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

// Some object below the root has a "$schema" member: an embedded resource
// may change dialect there, which one metaschema cannot judge.
inline bool HasNestedSchemaKeyword(const Json& value, bool root = true) {
  if (value.is_object()) {
    if (!root && value.contains("$schema")) return true;
    for (const auto& member : value.items()) {
      if (HasNestedSchemaKeyword(member.value(), false)) return true;
    }
  } else if (value.is_array()) {
    for (const Json& item : value) {
      if (HasNestedSchemaKeyword(item, false)) return true;
    }
  }
  return false;
}

inline Json Deduplicated(const Json& array) {
  Json out = Json::array();
  for (const Json& item : array) {
    bool seen = false;
    for (const Json& kept : out) seen |= kept == item;
    if (!seen) out.push_back(item);
  }
  return out;
}

struct MetaCheckOptions {
  schema::Dialect dialect = schema::Dialect::kDraft2020_12;
  bool format_assertion = false;
};

inline Json ForMetaschemaCheck(const Json& value, const MetaCheckOptions& o);

// Members Compile never reads the value of.
inline bool Unread(const std::string& key, const Json& member,
                   const MetaCheckOptions& o) {
  static const char* const kAnnotations[] = {
      "title",    "description", "$comment",         "default",
      "examples", "deprecated",  "readOnly",         "writeOnly",
      "contentMediaType", "contentEncoding", "$vocabulary"};
  for (const char* a : kAnnotations) {
    if (key == a) return true;
  }
  if (key == "format") return !o.format_assertion;
  if ((key == "$defs" || key == "definitions") && !member.is_object()) {
    return true;
  }
  return o.dialect == schema::Dialect::kDraft2020_12 &&
         (key == "definitions" || key == "dependencies" ||
          key == "$recursiveRef" || key == "$recursiveAnchor");
}

// One member of an object, as the check sees it; false drops it.
inline bool CheckedMember(const Json& object, const std::string& key,
                          const Json& member, const MetaCheckOptions& o,
                          Json* out) {
  const bool draft7 = o.dialect == schema::Dialect::kDraft7;
  if (Unread(key, member, o)) return false;
  const auto items = object.find("items");
  const bool items_array = items != object.end() && items->is_array();
  if ((key == "$defs" || key == "definitions") && member.is_object()) {
    *out = Json::object();
  } else if (((key == "then" || key == "else") && !object.contains("if")) ||
             (draft7 && key == "additionalItems" && !items_array) ||
             key == "contentSchema") {
    *out = true;
  } else if ((key == "$anchor" || key == "$dynamicAnchor") &&
             member.is_string() && !IsAnchorName(member.get<std::string>())) {
    return false;
  } else if ((key == "type" || key == "required") && member.is_array()) {
    *out = Deduplicated(member);
    if (out->empty() && key == "type") return false;
  } else if ((key == "dependentRequired" || (draft7 && key == "dependencies")) &&
             member.is_object()) {
    *out = Json::object();
    for (const auto& dep : member.items()) {
      (*out)[dep.key()] = dep.value().is_array()
                              ? Deduplicated(dep.value())
                              : ForMetaschemaCheck(dep.value(), o);
    }
  } else if ((key == "prefixItems" || (draft7 && key == "items")) &&
             member.is_array() && member.empty()) {
    return false;
  } else {
    *out = ForMetaschemaCheck(member, o);
  }
  return true;
}

inline Json ForMetaschemaCheck(const Json& value, const MetaCheckOptions& o) {
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& item : value) {
      out.push_back(ForMetaschemaCheck(item, o));
    }
    return out;
  }
  if (!value.is_object()) return value;
  const auto ref = value.find("$ref");
  if (o.dialect == schema::Dialect::kDraft7 && ref != value.end() &&
      ref->is_string()) {
    return Json{{"$ref", *ref}};
  }
  Json out = Json::object();
  for (const auto& member : value.items()) {
    Json checked;
    if (CheckedMember(value, member.key(), member.value(), o, &checked)) {
      out[member.key()] = std::move(checked);
    }
  }
  return out;
}

}  // namespace fuzz
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_FUZZ_METASCHEMA_CHECK_H_
