#include "server/options.h"

#include "gtest/gtest.h"

namespace toolgate {
namespace server {
namespace {

TEST(ServerFlags, DefaultsAndOverrides) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->listen, "127.0.0.1:50051");
  EXPECT_EQ(d->engine.limits.max_bytes, 200000u);
  EXPECT_EQ(d->engine.limits.max_depth, 256);
  auto o = ParseServerFlags({"--listen=unix:/tmp/tg.sock", "--manifests", "/m",
                             "--max_input_bytes=1000", "--max_depth", "16"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->listen, "unix:/tmp/tg.sock");
  EXPECT_EQ(o->manifests_dir, "/m");
  EXPECT_EQ(o->engine.limits.max_bytes, 1000u);
  EXPECT_EQ(o->engine.limits.max_depth, 16);
}

TEST(ServerFlags, RefusesWhatWouldSilentlyKeepADefault) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"--max_input_byte=10"},    // typo
           {"--max_input_bytes=ten"},  // not a number
           {"--max_input_bytes=0"},    // out of range
           {"--max_depth=-1"},
           {"--listen"},  // no value
           {"positional"}}) {
    auto o = ParseServerFlags(args);
    EXPECT_FALSE(o.ok()) << args[0];
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace server
}  // namespace toolgate
