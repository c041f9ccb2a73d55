#include "server/auth.h"

#include <string>
#include <vector>

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

// Issue 25, item 12: no listener is trusted to approve.
TEST(AdminAuth, ApproversNeedACredentialOnEveryListener) {
  const std::vector<std::string> none;
  const std::vector<std::string> approver_cert = {"oncall.example"};
  const std::vector<std::string> agent_cert = {"agent.example"};
  struct Case {
    std::string label;
    AdminAuth auth;
    std::string authorization;
    std::vector<std::string> peer;
    absl::StatusCode want;
  };
  const AdminAuth open_local("", true);
  const AdminAuth token_local("s3cret", true);
  const AdminAuth token_remote("s3cret", false);
  const AdminAuth certs_only("", false, {"oncall.example"});
  const AdminAuth both("s3cret", true, {"oncall.example"});
  const std::vector<Case> cases = {
      {"nothing configured, loopback", open_local, "", none,
       absl::StatusCode::kPermissionDenied},
      {"nothing configured, any token", open_local, "Bearer x", none,
       absl::StatusCode::kPermissionDenied},
      {"token, loopback, none sent", token_local, "", none,
       absl::StatusCode::kUnauthenticated},
      {"token, loopback, wrong", token_local, "Bearer s3cre", none,
       absl::StatusCode::kUnauthenticated},
      {"token, loopback, right", token_local, "Bearer s3cret", none,
       absl::StatusCode::kOk},
      {"token, remote, right", token_remote, "Bearer s3cret", none,
       absl::StatusCode::kOk},
      {"certs only, listed", certs_only, "", approver_cert,
       absl::StatusCode::kOk},
      {"certs only, one of several listed",
       certs_only,
       "",
       {"x.example", "oncall.example"},
       absl::StatusCode::kOk},
      {"certs only, not listed", certs_only, "", agent_cert,
       absl::StatusCode::kPermissionDenied},
      {"certs only, no cert", certs_only, "Bearer s3cret", none,
       absl::StatusCode::kPermissionDenied},
      {"both, listed cert, no token", both, "", approver_cert,
       absl::StatusCode::kOk},
      {"both, other cert, right token", both, "Bearer s3cret", agent_cert,
       absl::StatusCode::kOk},
      {"both, other cert, no token", both, "", agent_cert,
       absl::StatusCode::kUnauthenticated},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(c.auth.CheckApprover(c.authorization, c.peer).code(), c.want)
        << c.label;
  }
  const absl::Status nobody = open_local.CheckApprover("", none);
  EXPECT_NE(nobody.message().find("--admin_token_file"), std::string::npos);
  EXPECT_NE(nobody.message().find("NEEDS_APPROVAL"), std::string::npos);
  EXPECT_FALSE(open_local.CanApprove());
  EXPECT_TRUE(token_local.CanApprove());
  EXPECT_TRUE(certs_only.CanApprove());
  // The admin role itself is unchanged: loopback without a token is admin.
  EXPECT_TRUE(open_local.CheckAdmin("").ok());
}

}  // namespace
}  // namespace server
}  // namespace toolgate
