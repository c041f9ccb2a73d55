#include "core/snapshot/tool_schema.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/snapshot/schema_pool.h"
#include "core/util/ids.h"
#include "core/util/weak_intern.h"

namespace toolgate {
namespace {

// Identical schemas compiled with identical options share one compiled
// Schema process-wide: tools of one manifest often repeat a schema, and
// the snapshots of similar manifests repeat all of them. Weak: a program
// lives as long as a snapshot keeps it resident or the pool keeps it.
WeakIntern<schema::Schema>& SharedSchemas() {
  static auto* const shared = new WeakIntern<schema::Schema>();
  return *shared;
}

// What Validate reports when the program cannot be had: the call is
// refused with the reason, never allowed.
schema::SchemaViolation Unavailable(const absl::Status& why) {
  schema::SchemaViolation v;
  v.keyword = "internal";
  v.message =
      absl::StrCat("the tool's schema could not be compiled for this call (",
                   why.message(), "); the call is refused");
  return v;
}

}  // namespace

std::string ToolSchemaKey(bool format_assertion,
                          absl::string_view documents_digest,
                          absl::string_view canonical_text) {
  return Sha256(absl::StrCat(format_assertion ? "assert\n" : "annotate\n",
                             documents_digest, "\n", canonical_text));
}

absl::StatusOr<std::shared_ptr<const schema::Schema>> CompileToolSchema(
    const std::string& key, const Json& doc, bool format_assertion,
    const std::map<std::string, Json>& documents) {
  if (auto live = SharedSchemas().Find(key)) return live;
  schema::CompileOptions options;
  options.format_assertion = format_assertion;
  options.documents = documents;
  auto compiled = schema::Schema::Compile(doc, options);
  if (!compiled.ok()) return compiled.status();
  return SharedSchemas().Insert(key, *std::move(compiled));
}

absl::string_view LazyToolSchema::text() const {
  return absl::string_view(source_->canonical_json).substr(offset_, size_);
}

absl::StatusOr<std::shared_ptr<const schema::Schema>> LazyToolSchema::Program()
    const {
  // The pool is keyed by what the content key digests, not the digest:
  // hashing a few hundred bytes costs less than SHA-256 on every call.
  const std::string pool_key = absl::StrCat(format_assertion_ ? "a" : "n",
                                            source_->documents_digest, text());
  SchemaPool& pool = SchemaPool::Global();
  if (auto pooled = pool.Find(pool_key)) return pooled;
  const std::string key =
      ToolSchemaKey(format_assertion_, source_->documents_digest, text());
  // A snapshot keeps it resident: sharing it costs the pool nothing.
  if (auto live = SharedSchemas().Find(key)) return live;
  // The text is canonical JSON the strict parser read back exactly at
  // load; its size and depth passed the manifest's limits then.
  JsonLimits limits;
  limits.max_bytes = size_;
  limits.max_depth = std::numeric_limits<int>::max();
  absl::StatusOr<Json> doc = ParseStrictJson(text(), limits);
  if (!doc.ok()) return doc.status();
  auto compiled =
      CompileToolSchema(key, *doc, format_assertion_, source_->documents);
  if (!compiled.ok()) return compiled.status();
  pool.Insert(pool_key, *compiled);
  return compiled;
}

bool LazyToolSchema::IsValid(const Json& instance) const {
  auto program = Program();
  return program.ok() && (*program)->IsValid(instance);
}

bool LazyToolSchema::Validate(const Json& instance, schema::ValidationMode mode,
                              size_t max_errors,
                              std::vector<schema::SchemaViolation>* out) const {
  auto program = Program();
  if (!program.ok()) {
    if (out != nullptr) out->push_back(Unavailable(program.status()));
    return false;
  }
  return (*program)->Validate(instance, mode, max_errors, out);
}

uint64_t LazyToolSchema::EvaluationSteps(const Json& instance) const {
  auto program = Program();
  if (!program.ok()) return std::numeric_limits<uint64_t>::max();
  return (*program)->EvaluationSteps(instance);
}

}  // namespace toolgate
