// The ExtractVerdict RPC: an agent's verdict is the last fenced JSON block
// of its envelope, validated; anything else is a contract stop.
//
// Stages: resolve the snapshot or run, if one is named (audit only) ->
// the result schema (inline ones compiled once, kept in the cache) -> read
// the verdict (core/verdict: find the block, repair per policy, strict
// parse, schema) -> audit. A result schema that does not compile is
// INVALID_ARGUMENT (the caller's bug); every envelope problem is a
// CONTRACT_STOP value, never a PASS.
//
// Thread-safety: as Services and SchemaPool.
#ifndef TOOLGATE_CORE_ENGINE_EXTRACT_VERDICT_H_
#define TOOLGATE_CORE_ENGINE_EXTRACT_VERDICT_H_

#include "absl/status/statusor.h"
#include "core/pipeline/api.h"
#include "core/pipeline/services.h"
#include "core/snapshot/schema_pool.h"

namespace toolgate {

absl::StatusOr<VerdictResponse> HandleExtractVerdict(
    const Services& services, SchemaPool& result_schemas,
    const VerdictRequest& request);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_EXTRACT_VERDICT_H_
