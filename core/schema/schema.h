// JSON Schema (draft 2020-12 and draft-07), compiled once, evaluated many
// times.
//
// A Schema is compiled from an untrusted schema document into an immutable
// program: $refs are resolved, patterns are compiled with RE2 (linear time;
// a pattern RE2 cannot run is refused, never handed to a backtracking
// engine), and $ref cycles that make no progress are refused at compile
// time. Nothing is ever fetched from the network: a $ref to another document
// resolves only against documents supplied in CompileOptions.
//
// Thread-safety: a compiled Schema is immutable; Validate may be called from
// any number of threads at once.
#ifndef TOOLGATE_CORE_SCHEMA_SCHEMA_H_
#define TOOLGATE_CORE_SCHEMA_SCHEMA_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace schema {

enum class Dialect { kDraft7, kDraft2020_12 };

struct CompileOptions {
  // Dialect used when the schema declares no $schema. MCP specifies 2020-12.
  Dialect default_dialect = Dialect::kDraft2020_12;
  // When true, "format" is an assertion (date-time, date, time, email,
  // hostname, ipv4, ipv6, uri, uuid, ...); otherwise an annotation.
  bool format_assertion = false;
  // Documents a $ref may reach, keyed by absolute URI ($id). Never fetched.
  std::map<std::string, Json> documents;
  // Optional last-resort resolver for absolute URIs not in `documents` (the
  // CLI maps URL prefixes to directories with it). Must not do network I/O.
  std::function<absl::StatusOr<Json>(absl::string_view uri)> resolver;
  // Hostile-schema limits. Each document is also validated against its
  // metaschema, and that evaluation stops at the evaluator's depth bound:
  // a 2020-12 document nested more than about 250 deep is refused whatever
  // max_schema_depth says.
  size_t max_schema_nodes = 100000;
  int max_schema_depth = 128;
  // Bound, computed at compile time, on the subschema evaluations one
  // instance location can trigger through in-place applicators ($ref,
  // allOf, anyOf, oneOf, not, if/then/else, dependentSchemas): every
  // alternative counted, shared subschemas counted once per use. Nested
  // combinators over shared $refs multiply it (2^levels); a schema over the
  // bound is refused with "schema_too_complex". Validate may evaluate an
  // anyOf/oneOf that fails twice (once more to explain it).
  uint64_t max_fanout = 10000;
  // Bound on the work of one validation, in steps: one per subschema
  // evaluation, plus steps for loops whose length the schema or the
  // instance chooses (enum members compared, required names looked up,
  // patternProperties matched, string bytes scanned, violations built). A
  // step is about 10 ns of CPU, so the default caps a call near 5 ms; the
  // heaviest instance of the bench corpora needs about 12,000. Fan-out
  // across instance depth (anyOf over items that recurse) escapes the
  // compile-time max_fanout; past this budget the instance is refused as
  // invalid with an "evaluation_limit" violation.
  uint64_t max_evaluation_steps = 500000;
  // Bounds on compiled size, checked at compile time; over either, the
  // schema is refused with "schema_too_complex" and the pointer. A
  // program's size has little to do with its text's: the 12 bytes of
  // "\p{L}{300}" compile to 357,904 RE2 instructions (~27 MB, 0.2-0.4 s
  // of CPU), since a counted repetition copies its operand and \p{L} alone
  // is ~1,200 instructions. Compile time and memory follow program size,
  // so these bound what compiling (or recompiling, see
  // core/snapshot/tool_schema.h) one schema can cost.
  // RE2 instructions (RE2::ProgramSize) of one pattern or
  // patternProperties key: 20,000 is ~1.5 MB and ~20 ms to compile; an
  // ECMA ".{1,255}" needs 5,613.
  int max_pattern_instructions = 20000;
  // The whole program, as unshared_bytes() counts it.
  size_t max_compiled_bytes = size_t{4} << 20;
};

// One failed assertion, in terms a model can act on.
struct SchemaViolation {
  std::string instance_pointer;  // RFC 6901 pointer into the instance.
  std::string schema_pointer;    // Keyword location, pointer into the schema.
  std::string keyword;           // "type", "required", "enum", ...
  std::string expected;          // e.g. "integer", "enum: low | high".
  std::string received;          // Truncated rendering of the value found.
  std::string message;           // One human sentence.
};

enum class ValidationMode {
  kFirstError,  // Stop at the first failure.
  kAllErrors,   // Collect failures, up to max_errors.
};

class Schema {
 public:
  // Compiles `schema`. Refusals are INVALID_ARGUMENT whose message names
  // the JSON Pointer of the bad part of the schema.
  static absl::StatusOr<std::shared_ptr<const Schema>> Compile(
      const Json& schema, const CompileOptions& options = CompileOptions());

  virtual ~Schema() = default;

  // True when `instance` is valid. Allocates nothing on the valid path.
  virtual bool IsValid(const Json& instance) const = 0;

  // Validates and appends violations (at most `max_errors`) to `out`.
  virtual bool Validate(const Json& instance, ValidationMode mode,
                        size_t max_errors,
                        std::vector<SchemaViolation>* out) const = 0;

  // The work units IsValid(instance) spends, as counted against
  // CompileOptions::max_evaluation_steps (one past it when the budget runs
  // out). For tests and benchmarks.
  virtual uint64_t EvaluationSteps(const Json& instance) const = 0;

  virtual Dialect dialect() const = 0;

  // Approximate heap bytes this compiled schema holds: its program, and
  // for each regex shared with other schemas (identical patterns are
  // interned process-wide) its size divided by the number of users, so
  // that the figures of all live schemas add up to what they hold
  // together. Tracks glibc's mallinfo2 within ~10% (bench/README.md).
  virtual size_t compiled_bytes() const = 0;

  // compiled_bytes() as if nothing were shared: what this schema costs to
  // compile and what the size bound (CompileOptions::max_compiled_bytes)
  // compares, so a schema is refused or accepted alike on every replica,
  // whatever else each holds.
  virtual size_t unshared_bytes() const { return compiled_bytes(); }

  // What compiling it cost, in units of at most ~7 ns of CPU: its
  // unshared_bytes() less the patterns it found compiled already
  // (identical patterns compile once per process while a schema uses
  // them), plus 128 per JSON value of the documents it read (the schema
  // and each $ref'd document: every compile reads and checks them). What
  // callers that bound compile work per manifest or per request charge.
  virtual size_t compile_work() const { return unshared_bytes(); }

  // What compiled but probably does not mean what its author meant: each
  // member of a subschema that is no keyword of its dialect (a misspelt
  // "requried", "additionalproperties", a draft-07 keyword in a 2020-12
  // schema), named by JSON Pointer, with the likely intended keyword when
  // one is close. JSON Schema ignores such members, and so does Validate;
  // in a fail-closed gate each one may be a silently disabled check. Also
  // each "format" that names no known format (a misspelt "emial"), with
  // the likely intended name: it checks nothing, and with format_assertion
  // the schema would be refused. Bounded (at most 50, then "... and N
  // more").
  virtual std::vector<std::string> warnings() const { return {}; }
};

}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_SCHEMA_H_
