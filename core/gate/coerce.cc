#include "core/gate/coerce.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "core/gate/argument_walk.h"
#include "core/policy/text_checks.h"

namespace toolgate {
namespace {

constexpr int64_t kMaxSafeInteger = int64_t{1} << 53;

std::optional<Json> IntegerFromText(absl::string_view text) {
  absl::string_view digits = text;
  if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      return std::nullopt;
    }
  }
  if (digits[0] == '0' && digits.size() > 1) return std::nullopt;
  int64_t n = 0;
  if (!absl::SimpleAtoi(text, &n) || n > kMaxSafeInteger ||
      n < -kMaxSafeInteger) {
    return std::nullopt;
  }
  return Json(n);
}

void CoerceCall(const ArgumentPolicy& arguments, CheckedCall& call) {
  for (const auto& [pointer, coercion] : arguments.coerce) {
    ForEachAt(call.raw.arguments, pointer,
              [&, c = coercion](Json& value, const std::string& at) {
                if (!value.is_string()) return;
                std::optional<Json> coerced =
                    CoercedValue(c, value.get_ref<const std::string&>());
                if (!coerced.has_value()) return;
                value = *std::move(coerced);
                call.raw.coercions.push_back(at);
              });
  }
}

// A non-string is left for the schema and then the rule's check
// (text_invalid): there is nothing to strip.
void StripCall(const ArgumentPolicy& arguments, int index, bool as_sent,
               policy::StripBudget& budget, CheckedCall& call,
               GateResult* result) {
  for (const auto& [pointer, rule] : arguments.rules) {
    if (rule.kind != ArgumentRule::Kind::kText || !rule.text.strip_html) {
      continue;
    }
    ForEachAt(call.raw.arguments, pointer,
              [&](Json& value, const std::string& at) {
                if (!value.is_string()) return;
                std::string text;
                auto refused = policy::StripHtml(
                    value.get_ref<const std::string&>(), budget, &text);
                if (!refused.has_value() && as_sent &&
                    text != value.get_ref<const std::string&>()) {
                  refused = policy::ArgumentViolation{
                      "text_invalid",
                      "holds markup this tool's text rule strips, and the "
                      "call runs as sent (the mesh cannot rewrite it): send "
                      "the text without markup"};
                }
                if (refused.has_value()) {
                  Violation v;
                  v.code = std::move(refused->code);
                  v.tool = call.raw.name;
                  v.pointer = at;
                  v.message = std::move(refused->message);
                  v.call_index = index;
                  result->violations.push_back(std::move(v));
                  call.refused_before_schema = true;
                  return;
                }
                if (text == value.get_ref<const std::string&>()) return;
                value = std::move(text);
                call.raw.sanitizations.push_back(at);
              });
  }
}

}  // namespace

std::optional<Json> CoercedValue(Coercion coercion, absl::string_view text) {
  switch (coercion) {
    case Coercion::kIntegerFromString:
      return IntegerFromText(text);
    case Coercion::kBooleanFromString:
      if (text == "true") return Json(true);
      if (text == "false") return Json(false);
      return std::nullopt;
  }
  return std::nullopt;
}

void CoerceArguments(GateResult* result, bool as_sent) {
  // One parse budget for the whole output, as the output gate has.
  policy::StripBudget budget;
  for (size_t i = 0; i < result->calls.size(); ++i) {
    CheckedCall& call = result->calls[i];
    if (call.tool == nullptr || !call.raw.error.ok()) continue;
    const ArgumentPolicy* arguments = call.tool->spec.policy.arguments.get();
    if (arguments == nullptr) continue;
    if (!as_sent) CoerceCall(*arguments, call);
    StripCall(*arguments, static_cast<int>(i), as_sent, budget, call, result);
  }
}

}  // namespace toolgate
