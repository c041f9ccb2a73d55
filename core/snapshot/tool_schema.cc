#include "core/snapshot/tool_schema.h"

#include <atomic>
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
// refused with the reason, never allowed. Past the request's compile
// budget it is work refused, as past the evaluation budget.
schema::SchemaViolation Unavailable(const absl::Status& why) {
  schema::SchemaViolation v;
  v.keyword = absl::IsResourceExhausted(why) ? "evaluation_limit" : "internal";
  v.message =
      absl::StrCat("the tool's schema could not be compiled for this call (",
                   why.message(), "); the call is refused");
  return v;
}

thread_local CompileScope* current_scope = nullptr;
std::atomic<uint64_t> total_compiles{0};
std::atomic<uint64_t> total_compiled_bytes{0};

}  // namespace

CompileScope::CompileScope(size_t max_compiled_bytes)
    : previous_(current_scope), max_bytes_(max_compiled_bytes) {
  current_scope = this;
}

CompileScope::~CompileScope() { current_scope = previous_; }

CompileScope* CompileScope::Current() { return current_scope; }

uint64_t CompileScope::TotalCompiles() {
  return total_compiles.load(std::memory_order_relaxed);
}

uint64_t CompileScope::TotalCompiledBytes() {
  return total_compiled_bytes.load(std::memory_order_relaxed);
}

std::shared_ptr<const schema::Schema> CompileScope::Held(
    const LazyToolSchema* lazy) const {
  for (const auto& [schema, program] : held_) {
    if (schema == lazy) return program;
  }
  return nullptr;
}

void CompileScope::Hold(const LazyToolSchema* lazy,
                        std::shared_ptr<const schema::Schema> program) {
  held_.emplace_back(lazy, std::move(program));
}

absl::Status CompileScope::MayCompile() {
  if (compiled_bytes_ < max_bytes_) return absl::OkStatus();
  ++refused_;
  return absl::ResourceExhaustedError(absl::StrCat(
      "this request has spent ", compiled_bytes_, " of its budget of ",
      max_bytes_,
      " (--request_compile_bytes) compiling tool schemas on use; what it "
      "compiled is kept in the schema pool (--schema_pool_bytes) for later "
      "requests"));
}

void CompileScope::Charge(size_t bytes) {
  ++compiles_;
  compiled_bytes_ += bytes;
}

std::string ToolSchemaKey(bool format_assertion,
                          absl::string_view documents_digest,
                          absl::string_view canonical_text) {
  return Sha256(absl::StrCat(format_assertion ? "assert\n" : "annotate\n",
                             documents_digest, "\n", canonical_text));
}

absl::StatusOr<std::shared_ptr<const schema::Schema>> CompileToolSchema(
    const std::string& key, const Json& doc, bool format_assertion,
    const std::map<std::string, Json>& documents, bool* compiled_now) {
  if (compiled_now != nullptr) *compiled_now = false;
  if (auto live = SharedSchemas().Find(key)) return live;
  schema::CompileOptions options;
  options.format_assertion = format_assertion;
  options.documents = documents;
  auto compiled = schema::Schema::Compile(doc, options);
  if (!compiled.ok()) return compiled.status();
  if (compiled_now != nullptr) *compiled_now = true;
  return SharedSchemas().Insert(key, *std::move(compiled));
}

absl::string_view LazyToolSchema::text() const {
  return absl::string_view(source_->canonical_json).substr(offset_, size_);
}

absl::StatusOr<std::shared_ptr<const schema::Schema>> LazyToolSchema::Program()
    const {
  CompileScope* scope = CompileScope::Current();
  if (scope != nullptr) {
    if (auto held = scope->Held(this)) return held;
  }
  auto program = Find();
  if (program == nullptr) {
    if (scope != nullptr) {
      if (absl::Status s = scope->MayCompile(); !s.ok()) return s;
    }
    auto compiled = Compile(scope);
    if (!compiled.ok()) return compiled.status();
    program = *std::move(compiled);
  }
  if (scope != nullptr) scope->Hold(this, program);
  return program;
}

std::string LazyToolSchema::PoolKey() const {
  // The pool is keyed by what the content key digests, not the digest:
  // hashing a few hundred bytes costs less than SHA-256 on every call.
  return absl::StrCat(format_assertion_ ? "a" : "n", source_->documents_digest,
                      text());
}

std::shared_ptr<const schema::Schema> LazyToolSchema::Find() const {
  if (auto pooled = SchemaPool::Global().Find(PoolKey())) return pooled;
  // A snapshot keeps it resident: sharing it costs the pool nothing.
  return SharedSchemas().Find(
      ToolSchemaKey(format_assertion_, source_->documents_digest, text()));
}

absl::StatusOr<std::shared_ptr<const schema::Schema>> LazyToolSchema::Compile(
    CompileScope* scope) const {
  // The text is canonical JSON the strict parser read back exactly at
  // load; its size and depth passed the manifest's limits then.
  JsonLimits limits;
  limits.max_bytes = size_;
  limits.max_depth = std::numeric_limits<int>::max();
  absl::StatusOr<Json> doc = ParseStrictJson(text(), limits);
  if (!doc.ok()) return doc.status();
  bool compiled_now = false;
  auto compiled = CompileToolSchema(
      ToolSchemaKey(format_assertion_, source_->documents_digest, text()), *doc,
      format_assertion_, source_->documents, &compiled_now);
  if (!compiled.ok()) return compiled.status();
  if (compiled_now) {
    const size_t bytes = (*compiled)->compile_work();
    total_compiles.fetch_add(1, std::memory_order_relaxed);
    total_compiled_bytes.fetch_add(bytes, std::memory_order_relaxed);
    if (scope != nullptr) scope->Charge(bytes);
  }
  SchemaPool::Global().Insert(PoolKey(), *compiled);
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
