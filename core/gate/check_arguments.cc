#include "core/gate/check_arguments.h"

#include <utility>
#include <vector>

namespace toolgate {
namespace {

void CheckCall(CheckedCall& call, int index, const GateOptions& options,
               std::vector<Violation>* out) {
  std::vector<schema::SchemaViolation> found;
  call.valid = call.tool->input->Validate(
      call.raw.arguments, schema::ValidationMode::kAllErrors,
      options.max_violations_per_call, &found);
  if (call.valid) return;
  if (found.empty()) {
    // The engine said invalid without saying why: still a reject.
    found.push_back(schema::SchemaViolation{
        "", "", "", "", "", "arguments do not match the schema"});
  }
  for (schema::SchemaViolation& f : found) {
    Violation v;
    v.code = "invalid_arguments";
    v.tool = call.raw.name;
    v.pointer = std::move(f.instance_pointer);
    v.schema_pointer = std::move(f.schema_pointer);
    v.keyword = std::move(f.keyword);
    v.expected = std::move(f.expected);
    v.received = std::move(f.received);
    v.message = std::move(f.message);
    v.call_index = index;
    out->push_back(std::move(v));
  }
}

}  // namespace

void CheckArguments(const GateOptions& options, GateResult* result) {
  for (size_t i = 0; i < result->calls.size(); ++i) {
    CheckedCall& call = result->calls[i];
    if (call.tool == nullptr) continue;        // Unread or unknown: invalid.
    if (call.refused_before_schema) continue;  // Already has its reason.
    if (!StillWaiting(options, result)) return;
    CheckCall(call, static_cast<int>(i), options, &result->violations);
  }
}

}  // namespace toolgate
