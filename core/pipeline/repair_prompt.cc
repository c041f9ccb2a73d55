#include "core/pipeline/repair_prompt.h"

#include "absl/strings/str_cat.h"
#include "core/extract/formats/render.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace {

constexpr size_t kMaxListed = 10;

Json Entry(const Violation& v) {
  Json e = {{"code", v.code}, {"pointer", v.pointer}};
  if (!v.tool.empty()) e["tool"] = v.tool;
  if (!v.expected.empty()) e["expected"] = v.expected;
  if (!v.received.empty()) e["received"] = v.received;
  // Read errors have no expected/received: the sentence is the guidance.
  if (v.expected.empty()) e["message"] = v.message;
  return e;
}

}  // namespace

std::string BuildRepairPrompt(const std::vector<Violation>& violations,
                              int attempt, int max_attempts,
                              extract::TextFormat format) {
  Json prompt = {{"error", "tool_validation_failed"}};
  for (const Violation& v : violations) {
    if (!v.tool.empty()) {
      prompt["tool"] = v.tool;
      break;
    }
  }
  const std::string example = extract::SyntaxExample(
      format, prompt.contains("tool") ? prompt["tool"].get<std::string>()
                                      : "tool_name");
  if (!example.empty()) {
    prompt["format"] = std::string(extract::TextFormatName(format));
    prompt["syntax"] = example;
  }
  Json list = Json::array();
  for (size_t i = 0; i < violations.size() && i < kMaxListed; ++i) {
    list.push_back(Entry(violations[i]));
  }
  prompt["violations"] = std::move(list);
  if (violations.size() > kMaxListed) {
    prompt["more_violations"] = violations.size() - kMaxListed;
  }
  prompt["hint"] = "Fix the tool call and retry.";
  if (max_attempts > 0) {
    prompt["attempt"] = absl::StrCat(attempt, "/", max_attempts);
  }
  return CanonicalJson(prompt);
}

}  // namespace toolgate
