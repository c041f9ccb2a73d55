#include "core/policy/curl_url_api.h"

#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"

namespace toolgate::policy {
namespace {

bool LibcurlMapped() {
  std::ifstream maps("/proc/self/maps");
  const std::string text((std::istreambuf_iterator<char>(maps)),
                         std::istreambuf_iterator<char>());
  return text.find("/libcurl.so") != std::string::npos;
}

// The point of loading lazily: a process that never checks a URL never
// maps libcurl and its closure.
TEST(CurlUrlApi, LoadsOnFirstUseOnly) {
  EXPECT_FALSE(LibcurlMapped());
  absl::StatusOr<const CurlUrlFunctions*> api = CurlUrlApi();
  ASSERT_TRUE(api.ok()) << api.status();
  EXPECT_TRUE(LibcurlMapped());
  EXPECT_EQ(*CurlUrlApi(), *api);  // Loaded once.
}

TEST(CurlUrlApi, ParsesThroughTheLoadedFunctions) {
  absl::StatusOr<const CurlUrlFunctions*> api = CurlUrlApi();
  ASSERT_TRUE(api.ok()) << api.status();
  const CurlUrlFunctions& f = **api;
  CURLU* url = f.url();
  ASSERT_NE(url, nullptr);
  ASSERT_EQ(f.set(url, CURLUPART_URL, "https://example.com:8443/a?b", 0),
            CURLUE_OK);
  char* host = nullptr;
  ASSERT_EQ(f.get(url, CURLUPART_HOST, &host, 0), CURLUE_OK);
  EXPECT_STREQ(host, "example.com");
  f.free(host);
  EXPECT_NE(f.set(url, CURLUPART_URL, "https://exa mple.com/", 0), CURLUE_OK);
  f.cleanup(url);
}

}  // namespace
}  // namespace toolgate::policy
