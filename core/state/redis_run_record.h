// The immutable part of a run's hash P{R}:run (redis_layout.h): written
// once by the replica that opens the run, read back by any replica that
// meets it. Context and protected texts are JSON (nlohmann), the rest
// decimal.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_STATE_REDIS_RUN_RECORD_H_
#define TOOLGATE_CORE_STATE_REDIS_RUN_RECORD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/extract/text_format.h"
#include "core/output/health_window.h"
#include "core/redis/connection.h"

namespace toolgate {
namespace state {

struct RunRecord {
  std::string snapshot;  // Its id.
  std::string model;
  std::string tenant;
  std::map<std::string, std::string> context;
  std::vector<std::string> protected_texts;
  int max_rejects = 0;
  output::HealthWindowOptions kill_switch;
  extract::TextFormat text_format = extract::TextFormat::kUnspecified;
  // The idle TTL the run was opened with (its hash's TTL), ms; read back
  // only (RunCreateArgs takes it apart), 0 when the hash has none.
  int64_t idle_ttl_ms = 0;
};

// run_create's ARGV (redis_run_directory_scripts.h): the idle TTL in ms,
// then field, value, ... of every immutable field. INVALID_ARGUMENT when
// the context or the protected texts are not UTF-8 (JSON cannot carry
// them).
absl::StatusOr<std::vector<std::string>> RunCreateArgs(
    const RunRecord& record, absl::string_view token_hash, int64_t ttl_ms);

// The record from HGETALL's reply; nullopt when a field is missing or does
// not parse (the caller names the store: such a hash was not written here).
std::optional<RunRecord> ParseRunRecord(const redis::Reply& fields);

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_RUN_RECORD_H_
