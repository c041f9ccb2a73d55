// Tool schemas of snapshots: compiled once per process when identical, and
// compiled again on use for tools a snapshot does not keep resident.
//
// Every tool schema is compiled at load (a bad manifest is refused there,
// with the same errors), but a snapshot keeps a compiled program only while
// its memory budget allows (Snapshot::Compile). A tool past the budget gets
// a LazyToolSchema instead: a schema::Schema that holds no program, only
// where the schema's canonical text is in the snapshot's canonical JSON and
// the options it was compiled with. Each IsValid/Validate finds the program
// (the process-wide SchemaPool, then any snapshot that holds it resident)
// or compiles it with the same options, so a lazy tool validates exactly as
// a resident one; callers see a schema::Schema either way, and the resident
// path is the plain virtual call it always was.
//
// Fail-closed: when the program cannot be had at use (cannot happen for a
// schema that compiled at load, short of memory), IsValid is false and
// Validate is false with one violation (keyword "internal") saying why:
// the call is refused, never allowed.
//
// Compiling on use is request work: a request (CompileScope, below) keeps
// every program it used for its whole life, so each lazy schema compiles
// at most once per request however the pool churns, and it compiles at
// most its budget of program bytes (plus the one that crosses it); past
// that, a schema it would have to compile refuses the call (keyword
// "evaluation_limit"). Without that, a manifest whose programs outgrow
// the pool recompiled every one of them on every call, outside any budget
// (hardening round 2, item 11).
//
// Thread-safety: everything here is immutable after construction or
// internally synchronized (the intern table and the pool).
#ifndef TOOLGATE_CORE_SNAPSHOT_TOOL_SCHEMA_H_
#define TOOLGATE_CORE_SNAPSHOT_TOOL_SCHEMA_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/schema/schema.h"

namespace toolgate {

// The process-wide content key of a tool schema: identical canonical text,
// format_assertion and $ref documents compile to identical programs.
std::string ToolSchemaKey(bool format_assertion,
                          absl::string_view documents_digest,
                          absl::string_view canonical_text);

// The compiled schema for `key` if any snapshot or the pool holds it, else
// compiles `doc` with the snapshot options (format_assertion, documents)
// and interns it; `*compiled_now` (if given) says which. The error is
// Schema::Compile's.
absl::StatusOr<std::shared_ptr<const schema::Schema>> CompileToolSchema(
    const std::string& key, const Json& doc, bool format_assertion,
    const std::map<std::string, Json>& documents, bool* compiled_now = nullptr);

struct SchemaSource;
class LazyToolSchema;

// One request's use of lazy tool schemas: the programs it has used (held
// until it ends) and the compile work it has spent. While alive it is the
// current scope of the thread that made it (a request is served on one
// thread); lazy schemas used on that thread consult it. Scopes nest (the
// innermost counts). With no scope, lazy schemas compile without a budget
// (tools, tests).
//
// Thread-safety: used only by the thread that made it.
class CompileScope {
 public:
  // Default per-request budget of compile work on use, as
  // Schema::compile_work() counts it (units of at most ~7 ns): 8 MiB is
  // at most ~60 ms of CPU, and the compile that crosses it at most
  // ~30 ms more (CompileOptions::max_compiled_bytes).
  static constexpr size_t kDefaultMaxBytes = size_t{8} << 20;

  explicit CompileScope(size_t max_compiled_bytes = kDefaultMaxBytes);
  ~CompileScope();
  CompileScope(const CompileScope&) = delete;
  CompileScope& operator=(const CompileScope&) = delete;

  size_t compiles() const { return compiles_; }
  size_t compiled_bytes() const { return compiled_bytes_; }  // Work.
  size_t refused() const { return refused_; }                // Over the budget.

  // Process-wide totals since start, over every scope and none: programs
  // compiled on use, and their bytes (for tests and metrics).
  static uint64_t TotalCompiles();
  static uint64_t TotalCompiledBytes();

 private:
  friend class LazyToolSchema;
  static CompileScope* Current();
  // The program this request used for `lazy`, or null.
  std::shared_ptr<const schema::Schema> Held(const LazyToolSchema* lazy) const;
  void Hold(const LazyToolSchema* lazy,
            std::shared_ptr<const schema::Schema> program);
  // OK while the budget has room for one more compile.
  absl::Status MayCompile();
  void Charge(size_t bytes);

  CompileScope* const previous_;
  const size_t max_bytes_;
  size_t compiles_ = 0;
  size_t compiled_bytes_ = 0;
  size_t refused_ = 0;
  // At most one per tool the request calls (max_calls_per_output), so a
  // scan; none until a lazy tool is used.
  absl::InlinedVector<
      std::pair<const LazyToolSchema*, std::shared_ptr<const schema::Schema>>,
      1>
      held_;
};

class LazyToolSchema final : public schema::Schema {
 public:
  // The schema whose canonical text is canonical_json[offset, offset+size).
  LazyToolSchema(const SchemaSource* source, uint32_t offset, uint32_t size,
                 bool format_assertion, schema::Dialect dialect)
      : source_(source),
        offset_(offset),
        size_(size),
        format_assertion_(format_assertion),
        dialect_(dialect) {}

  bool IsValid(const Json& instance) const override;
  bool Validate(const Json& instance, schema::ValidationMode mode,
                size_t max_errors,
                std::vector<schema::SchemaViolation>* out) const override;
  // One past any budget when the program cannot be had.
  uint64_t EvaluationSteps(const Json& instance) const override;
  schema::Dialect dialect() const override { return dialect_; }
  // Its own bytes only: the program it compiles belongs to the pool.
  size_t compiled_bytes() const override { return sizeof(*this); }
  // warnings(): none; a lazy schema's were reported at load.

  // The program: held by the current request (CompileScope), from the
  // pool, a snapshot holding it, or compiled now within the request's
  // budget (RESOURCE_EXHAUSTED past it).
  absl::StatusOr<std::shared_ptr<const schema::Schema>> Program() const;
  // Its canonical text, as it was compiled at load.
  absl::string_view text() const;

 private:
  std::string PoolKey() const;
  // The program if the pool or a snapshot holds it, else null.
  std::shared_ptr<const schema::Schema> Find() const;
  // Compiles it (charged to `scope`, if any) and pools it.
  absl::StatusOr<std::shared_ptr<const schema::Schema>> Compile(
      CompileScope* scope) const;

  const SchemaSource* source_;
  uint32_t offset_;
  uint32_t size_;
  bool format_assertion_;
  schema::Dialect dialect_;
};

// What the lazy schemas of one snapshot recompile from: the snapshot's
// canonical JSON (which holds every schema's canonical text), its $ref
// documents, and their digest. Owned by the snapshot and, through aliasing
// shared_ptrs, by every lazy schema handed out, so a caller holding a tool's
// schema keeps what it needs alive.
struct SchemaSource {
  std::string canonical_json;
  std::map<std::string, Json> documents;
  std::string documents_digest;
  std::vector<LazyToolSchema> lazy;  // Never resized once handed out.
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_SNAPSHOT_TOOL_SCHEMA_H_
