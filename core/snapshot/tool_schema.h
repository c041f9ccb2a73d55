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
// Thread-safety: everything here is immutable after construction or
// internally synchronized (the intern table and the pool).
#ifndef TOOLGATE_CORE_SNAPSHOT_TOOL_SCHEMA_H_
#define TOOLGATE_CORE_SNAPSHOT_TOOL_SCHEMA_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

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
// and interns it. The error is Schema::Compile's.
absl::StatusOr<std::shared_ptr<const schema::Schema>> CompileToolSchema(
    const std::string& key, const Json& doc, bool format_assertion,
    const std::map<std::string, Json>& documents);

struct SchemaSource;

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

  // The program, from the pool, a snapshot holding it, or compiled now.
  absl::StatusOr<std::shared_ptr<const schema::Schema>> Program() const;
  // Its canonical text, as it was compiled at load.
  absl::string_view text() const;

 private:
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
