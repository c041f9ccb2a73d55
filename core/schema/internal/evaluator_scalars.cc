// Evaluator checks on the value itself, with no subschemas: false, type,
// const, enum, numeric limits and multipleOf, string length/pattern/format,
// and array/object sizes.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/evaluator_impl.h"
#include "core/schema/internal/format.h"
#include "core/schema/internal/json_value.h"

namespace toolgate {
namespace schema {
namespace internal {

bool Evaluator::False(const Instr& ins, const Json& v) {
  if (sink_) Report(ins, v, "no value is allowed here (the schema is false)");
  return false;
}

bool Evaluator::Type(const Instr& ins, const Json& v, uint8_t kind) {
  const bool ok = (ins.type_mask & kind) ||
                  (kind == kNumber && (ins.type_mask & kIntegerType) &&
                   IsIntegral(v));
  if (!ok && sink_) {
    Report(ins, v,
           absl::StrCat("expected ", ins.expected, ", got ", JsonTypeName(v)));
  }
  return ok;
}

bool Evaluator::Const(const Instr& ins, const Json& v) {
  if (JsonEqual(v, ins.values[0])) return true;
  if (sink_) {
    Report(ins, v,
           absl::StrCat("value must be ", TruncatedJson(ins.values[0])));
  }
  return false;
}

bool Evaluator::Enum(const Instr& ins, const Json& v, uint8_t kind) {
  bool ok = false;
  if (kind == kString) {
    ok = ins.string_values.contains(v.get_ref<const std::string&>());
  } else {
    steps_ += ins.values.size() / kComparesPerStep;
    for (const Json& e : ins.values) {
      if (JsonEqual(v, e)) {
        ok = true;
        break;
      }
    }
  }
  if (!ok && sink_) {
    Report(ins, v,
           absl::StrCat("value is not one of the allowed values (",
                        ins.expected, ")"));
  }
  return ok;
}

bool Evaluator::Numeric(const Instr& ins, const Json& v) {
  bool ok;
  const char* what;
  if (ins.op == Op::kMultipleOf) {
    ok = IsMultipleOf(ToDecimal(v), ins.decimal);
    what = "is not";
  } else {
    const int c = CompareNumber(v, ins.number);
    switch (ins.op) {
      case Op::kMinimum: ok = c >= 0; what = "is less than the minimum"; break;
      case Op::kMaximum: ok = c <= 0; what = "is greater than the maximum"; break;
      case Op::kExclusiveMinimum: ok = c > 0; what = "must be"; break;
      default: ok = c < 0; what = "must be"; break;
    }
    if (!ok && (ins.op == Op::kMinimum || ins.op == Op::kMaximum)) {
      if (sink_) {
        Report(ins, v, absl::StrCat(TruncatedJson(v), " ", what, " ",
                                    NumberText(ins.number)));
      }
      return false;
    }
  }
  if (!ok && sink_) {
    Report(ins, v,
           absl::StrCat(TruncatedJson(v), " ", what, " ", ins.expected));
  }
  return ok;
}

bool Evaluator::Strings(const Instr& ins, const Json& v) {
  const std::string& s = v.get_ref<const std::string&>();
  steps_ += s.size() / kBytesPerStep;
  switch (ins.op) {
    case Op::kPattern:
      if (RE2::PartialMatch(s, *ins.patterns[0].re)) return true;
      if (sink_) {
        Report(ins, v, absl::StrCat("string does not match /",
                                    ins.patterns[0].source, "/"));
      }
      return false;
    case Op::kFormat:
      if (CheckFormat(static_cast<Format>(ins.format), s)) return true;
      if (sink_) {
        Report(ins, v, absl::StrCat("string is not a valid ",
                                    ins.expected.substr(7)));
      }
      return false;
    default: {
      // No string has more characters than bytes: most maxLength checks
      // pass without counting.
      if (ins.op == Op::kMaxLength && s.size() <= ins.count) return true;
      const size_t n = CodePointLength(s);
      const bool ok = ins.op == Op::kMinLength ? n >= ins.count : n <= ins.count;
      if (!ok && sink_) {
        Report(ins, v, absl::StrCat("string has ", n,
                                    " characters; expected ", ins.expected));
      }
      return ok;
    }
  }
}

bool Evaluator::Counts(const Instr& ins, const Json& v) {
  const size_t n = v.size();
  bool ok;
  switch (ins.op) {
    case Op::kUniqueItems: {
      steps_ += n;  // n log n comparisons.
      size_t i, j;
      if (!FindDuplicate(v, &i, &j)) return true;
      if (sink_) {
        Report(ins, v, absl::StrCat("items ", i, " and ", j, " are equal"));
      }
      return false;
    }
    case Op::kMinItems: case Op::kMinProperties: ok = n >= ins.count; break;
    default: ok = n <= ins.count; break;
  }
  if (!ok && sink_) {
    const bool items = ins.op == Op::kMinItems || ins.op == Op::kMaxItems;
    Report(ins, v, absl::StrCat(items ? "array has " : "object has ", n,
                                items ? " items" : " properties",
                                "; expected ", ins.expected));
  }
  return ok;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
