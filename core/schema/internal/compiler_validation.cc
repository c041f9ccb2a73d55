// Compiling the validation keywords that assert on the value itself: type,
// const, enum, numeric limits, lengths, item/property counts, required.
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/schema/internal/compiler_impl.h"
#include "core/schema/internal/json_value.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

std::string ValueText(const Json& v) {
  return v.is_string() ? v.get<std::string>() : TruncatedJson(v, 40);
}

std::string EnumText(const Json& values) {
  std::string out = "enum: ";
  size_t shown = 0;
  for (const Json& v : values) {
    if (shown > 0) out += " | ";
    if (out.size() > 200) {
      absl::StrAppend(&out, "... (", values.size() - shown, " more)");
      break;
    }
    out += ValueText(v);
    ++shown;
  }
  return out;
}

struct TypeName {
  absl::string_view name;
  uint8_t bit;
};
constexpr TypeName kTypes[] = {
    {"null", kNull},     {"boolean", kBoolean}, {"integer", kIntegerType},
    {"number", kNumber}, {"string", kString},   {"array", kArray},
    {"object", kObject},
};

}  // namespace

absl::Status Compiler::Scalars(const Ctx& c) {
  const Json& s = *c.schema;
  if (Has(c, "type", kVocabValidation)) {
    absl::Status st = Type(c, s["type"]);
    if (!st.ok()) return st;
  }
  if (Has(c, "const", kVocabValidation)) {
    Instr& ins = Add(c, Op::kConst, "const", kAnyKind);
    ins.values.push_back(s["const"]);
    ins.expected = absl::StrCat("const: ", TruncatedJson(s["const"]));
  }
  if (Has(c, "enum", kVocabValidation)) return Enum(c);
  return absl::OkStatus();
}

absl::Status Compiler::Type(const Ctx& c, const Json& v) {
  uint8_t mask = 0;
  std::vector<std::string> names;
  const Json list = v.is_array() ? v : Json::array({v});
  for (const Json& t : list) {
    bool known = false;
    for (const TypeName& tn : kTypes) {
      if (t.is_string() && t.get_ref<const std::string&>() == tn.name) {
        mask |= tn.bit;
        names.emplace_back(tn.name);
        known = true;
      }
    }
    if (!known) {
      return Refuse(Join(c.where, "type"),
                    absl::StrCat("unknown type ", TruncatedJson(t, 40)));
    }
  }
  Instr& ins = Add(c, Op::kType, "type", kAnyKind);
  ins.type_mask = mask;
  ins.expected = absl::StrJoin(names, " or ");
  return absl::OkStatus();
}

absl::Status Compiler::Enum(const Ctx& c) {
  const Json& e = (*c.schema)["enum"];
  if (!e.is_array()) return Refuse(Join(c.where, "enum"), "must be an array");
  Instr& ins = Add(c, Op::kEnum, "enum", kAnyKind);
  for (const Json& v : e) {
    if (v.is_string()) {
      ins.string_values.insert(v.get<std::string>());
    } else {
      ins.enum_has_non_strings = true;
      ins.values.push_back(v);
    }
  }
  ins.expected = EnumText(e);
  return absl::OkStatus();
}

absl::Status Compiler::Numbers(const Ctx& c) {
  struct Limit {
    absl::string_view kw;
    Op op;
    absl::string_view text;
  };
  for (const Limit& l : {Limit{"minimum", Op::kMinimum, "at least "},
                         Limit{"maximum", Op::kMaximum, "at most "},
                         Limit{"exclusiveMinimum", Op::kExclusiveMinimum,
                               "greater than "},
                         Limit{"exclusiveMaximum", Op::kExclusiveMaximum,
                               "less than "}}) {
    if (!Has(c, l.kw, kVocabValidation)) continue;
    auto n = Number(c, l.kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, l.op, l.kw, kNumber);
    ins.number = *n;
    ins.expected = absl::StrCat(l.text, NumberText(*n));
  }
  if (!Has(c, "multipleOf", kVocabValidation)) return absl::OkStatus();
  auto n = Number(c, "multipleOf");
  if (!n.ok()) return n.status();
  if (n->value <= 0) {
    return Refuse(Join(c.where, "multipleOf"), "must be greater than 0");
  }
  Instr& ins = Add(c, Op::kMultipleOf, "multipleOf", kNumber);
  ins.number = *n;
  ins.decimal = ToDecimal((*c.schema)["multipleOf"]);
  ins.expected = absl::StrCat("a multiple of ", NumberText(*n));
  return absl::OkStatus();
}

absl::Status Compiler::StringLengths(const Ctx& c) {
  for (auto [kw, op, text] :
       {std::make_tuple("minLength", Op::kMinLength, "at least "),
        std::make_tuple("maxLength", Op::kMaxLength, "at most ")}) {
    if (!Has(c, kw, kVocabValidation)) continue;
    auto n = Count(c, kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, op, kw, kString);
    ins.count = *n;
    ins.expected = absl::StrCat(text, *n, *n == 1 ? " character" : " characters");
  }
  return absl::OkStatus();
}

absl::Status Compiler::ArrayCounts(const Ctx& c) {
  const Json& s = *c.schema;
  for (auto [kw, op, text] :
       {std::make_tuple("minItems", Op::kMinItems, "at least "),
        std::make_tuple("maxItems", Op::kMaxItems, "at most ")}) {
    if (!Has(c, kw, kVocabValidation)) continue;
    auto n = Count(c, kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, op, kw, kArray);
    ins.count = *n;
    ins.expected = absl::StrCat(text, *n, *n == 1 ? " item" : " items");
  }
  if (Has(c, "uniqueItems", kVocabValidation)) {
    if (!s["uniqueItems"].is_boolean()) {
      return Refuse(Join(c.where, "uniqueItems"), "must be a boolean");
    }
    if (s["uniqueItems"].get<bool>()) {
      Add(c, Op::kUniqueItems, "uniqueItems", kArray).expected =
          "unique items";
    }
  }
  return absl::OkStatus();
}

absl::Status Compiler::ObjectCounts(const Ctx& c) {
  const Json& s = *c.schema;
  for (auto [kw, op, text] :
       {std::make_tuple("minProperties", Op::kMinProperties, "at least "),
        std::make_tuple("maxProperties", Op::kMaxProperties, "at most ")}) {
    if (!Has(c, kw, kVocabValidation)) continue;
    auto n = Count(c, kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, op, kw, kObject);
    ins.count = *n;
    ins.expected =
        absl::StrCat(text, *n, *n == 1 ? " property" : " properties");
  }
  if (!Has(c, "required", kVocabValidation)) return absl::OkStatus();
  const Json& r = s["required"];
  if (!r.is_array()) {
    return Refuse(Join(c.where, "required"), "must be an array of strings");
  }
  Instr& ins = Add(c, Op::kRequired, "required", kObject);
  for (const Json& name : r) {
    if (!name.is_string()) {
      return Refuse(Join(c.where, "required"), "must be an array of strings");
    }
    ins.names.push_back(name.get<std::string>());
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
