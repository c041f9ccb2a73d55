#include "server/auth.h"

#include "gtest/gtest.h"

namespace toolgate {
namespace server {
namespace {

TEST(AdminAuth, LocalListenersAreThoseOtherMachinesCannotReach) {
  for (const char *local :
       {"unix:/tmp/tg.sock", "unix-abstract:tg", "127.0.0.1:50051",
        "127.1.2.3:0", "localhost:50051", "[::1]:50051"}) {
    EXPECT_TRUE(AdminAuth::IsLocalListener(local)) << local;
  }
  for (const char *remote : {"0.0.0.0:50051", "[::]:50051", "10.0.0.5:50051",
                             "toolgate.svc:50051", "128.0.0.1:1"}) {
    EXPECT_FALSE(AdminAuth::IsLocalListener(remote)) << remote;
  }
}

TEST(AdminAuth, NoTokenAdminOnlyOnALocalListener) {
  EXPECT_TRUE(AdminAuth("", true).CheckAdmin("").ok());
  const absl::Status remote = AdminAuth("", false).CheckAdmin("Bearer x");
  EXPECT_EQ(remote.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(remote.message().find("--admin_token_file"), std::string::npos);
}

TEST(AdminAuth, TokenIsRequiredEvenOnALocalListener) {
  const AdminAuth auth("s3cret-token", /*local_listener=*/true);
  EXPECT_TRUE(auth.CheckAdmin("Bearer s3cret-token").ok());
  for (const char *wrong :
       {"", "s3cret-token", "Bearer s3cret-toke", "Bearer s3cret-token2",
        "bearer s3cret-token", "Bearer  s3cret-token", "Basic s3cret-token",
        "Bearer "}) {
    EXPECT_EQ(auth.CheckAdmin(wrong).code(), absl::StatusCode::kUnauthenticated)
        << "\"" << wrong << "\"";
  }
}

}  // namespace
}  // namespace server
}  // namespace toolgate
