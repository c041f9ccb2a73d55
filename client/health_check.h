// grpc.health.v1.Health/Check without generated stubs.
//
// Debian ships no health.proto, so the two tiny messages are encoded by hand
// (HealthCheckRequest: field 1 `service` string; HealthCheckResponse: field 1
// `status` enum) and sent through a generic unary call. Only an explicit
// SERVING is healthy: a missing status, an unknown enum value, an RPC error
// or undecodable bytes never are.
//
// Thread-safe: all functions are free of shared state.
#ifndef TOOLGATE_CLIENT_HEALTH_CHECK_H_
#define TOOLGATE_CLIENT_HEALTH_CHECK_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"

namespace toolgate {
namespace client {

// grpc.health.v1.HealthCheckResponse.ServingStatus values.
inline constexpr int kHealthUnknown = 0;
inline constexpr int kHealthServing = 1;
inline constexpr int kHealthNotServing = 2;
inline constexpr int kHealthServiceUnknown = 3;

// "SERVING", "NOT_SERVING", ...; "UNRECOGNIZED_<n>" for values outside the
// enum.
std::string HealthStatusName(int status);

// Wire bytes of a HealthCheckRequest; "" (empty message) for service "".
std::string EncodeHealthCheckRequest(absl::string_view service);

// The status field of a serialized HealthCheckResponse (kHealthUnknown when
// absent, as proto3 omits zero). Unknown fields are skipped; malformed bytes
// or a status field of the wrong wire type are INVALID_ARGUMENT.
absl::StatusOr<int> DecodeHealthCheckResponse(absl::string_view bytes);

// Calls /grpc.health.v1.Health/Check; returns the raw serving status.
// RPC failures (including NOT_FOUND for an unknown service and
// DEADLINE_EXCEEDED) come back as the matching absl::Status.
absl::StatusOr<int> CheckHealth(std::shared_ptr<grpc::ChannelInterface> channel,
                                absl::string_view service,
                                absl::Duration deadline);

}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_HEALTH_CHECK_H_
