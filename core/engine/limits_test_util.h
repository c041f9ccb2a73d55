// Helpers shared by the engine's limits tests.
#ifndef TOOLGATE_CORE_ENGINE_LIMITS_TEST_UTIL_H_
#define TOOLGATE_CORE_ENGINE_LIMITS_TEST_UTIL_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace testutil {

// A manifest of `n` Anthropic tools named tool_0000 ... with boolean
// schemas; `suffix` lengthens every name.
inline std::string ManyTools(int n, const std::string& suffix = "") {
  Json tools = Json::array();
  for (int i = 0; i < n; ++i) {
    char name[16];
    snprintf(name, sizeof(name), "tool_%04d", i);
    tools.push_back({{"name", name + suffix}, {"input_schema", true}});
  }
  return tools.dump();
}

inline std::string AnthropicCalls(const std::vector<std::string>& names) {
  Json content = Json::array();
  for (size_t i = 0; i < names.size(); ++i) {
    content.push_back({{"type", "tool_use"},
                       {"id", absl::StrCat("t", i)},
                       {"name", names[i]},
                       {"input", Json::object()}});
  }
  return Json{{"role", "assistant"}, {"content", content}}.dump();
}

// Every snapshot id, following next_page_token from the first page.
inline std::vector<std::string> AllPages(const Engine& engine, int page_size,
                                         int* pages) {
  std::vector<std::string> ids;
  std::string token;
  *pages = 0;
  do {
    auto page = engine.ListSnapshots(page_size, token);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) break;
    ++*pages;
    for (const auto& s : page->snapshots) ids.push_back(s->id());
    token = page->next_page_token;
  } while (!token.empty() && *pages < 1000);
  return ids;
}

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_LIMITS_TEST_UTIL_H_
