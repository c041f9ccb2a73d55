#include "server/envoy_common.h"

#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace server {
namespace {

// The caller's mistakes are a DENY the agent can fix; toolgate failing is
// UNAVAILABLE. Both are denies: no status maps to an allow.
TEST(ErrorForStatus, CallerMistakesAndToolgateFailures) {
  const struct {
    absl::Status status;
    int code;
    const char* reason;
  } cases[] = {
      {absl::InvalidArgumentError("x"), mesh::kDeniedCode, "run_rejected"},
      {absl::NotFoundError("x"), mesh::kDeniedCode, "run_rejected"},
      {absl::PermissionDeniedError("x"), mesh::kDeniedCode, "run_rejected"},
      {absl::UnauthenticatedError("x"), mesh::kDeniedCode, "run_rejected"},
      {absl::FailedPreconditionError("x"), mesh::kDeniedCode, "run_rejected"},
      {absl::UnavailableError("x"), mesh::kUnavailableCode, "unavailable"},
      {absl::ResourceExhaustedError("x"), mesh::kUnavailableCode,
       "unavailable"},
      {absl::InternalError("x"), mesh::kUnavailableCode, "unavailable"},
      {absl::DeadlineExceededError("x"), mesh::kUnavailableCode, "unavailable"},
      {absl::CancelledError("x"), mesh::kUnavailableCode, "unavailable"},
      {absl::UnknownError("x"), mesh::kUnavailableCode, "unavailable"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.status.ToString());
    const mesh::RpcError e = ErrorForStatus(c.status);
    EXPECT_EQ(e.code, c.code);
    EXPECT_EQ(e.data["reason"], c.reason);
  }
}

TEST(AddHeaders, LowerCasesNamesReadsRawValuesJoinsRepeats) {
  envoy::config::core::v3::HeaderMap map;
  auto* a = map.add_headers();
  a->set_key("X-Toolgate-Run-Id");
  a->set_raw_value("r1");
  auto* b = map.add_headers();
  b->set_key("accept");
  b->set_value("a");
  auto* c = map.add_headers();
  c->set_key("Accept");
  c->set_value("b");
  Headers headers;
  AddHeaders(map, &headers);
  EXPECT_EQ(HeaderOr(headers, "x-toolgate-run-id"), "r1");
  EXPECT_EQ(HeaderOr(headers, "accept"), "a,b");
  EXPECT_EQ(HeaderOr(headers, "missing", "none"), "none");
}

}  // namespace
}  // namespace server
}  // namespace toolgate
