// Snapshot::Compile and what a snapshot's memory is charged: which tool
// programs stay resident (ResidentBudget) and which are compiled on use.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/snapshot/snapshot.h"
#include "core/util/heap_bytes.h"
#include "core/util/ids.h"

namespace toolgate {
namespace {

using heap_bytes::Chunk;
using heap_bytes::Str;
using heap_bytes::Vec;

// A tool schema compiled at load, and where its canonical text is in the
// snapshot's canonical JSON (what a lazy schema recompiles from).
struct LoadedSchema {
  std::shared_ptr<const schema::Schema> compiled;  // Null once lazy.
  uint32_t offset = 0;
  uint32_t size = 0;
  bool located = false;
  bool lazy = false;
  bool format_assertion = false;
  schema::Dialect dialect = schema::Dialect::kDraft2020_12;
};

// A tool's schemas between compiling and placing.
struct LoadedTool {
  LoadedSchema input;
  LoadedSchema output;  // compiled null and not lazy when none declared.
};

// The compile work of one manifest so far, against its CompileBudget.
class CompileMeter {
 public:
  explicit CompileMeter(size_t limit) : limit_(limit) {}

  // Charges `compiled` if it was compiled now (not found interned).
  absl::Status Charge(const schema::Schema& compiled, bool compiled_now) {
    if (compiled_now) used_ += compiled.compile_work();
    if (used_ <= limit_) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "schema_too_complex: compiling the manifest's schemas takes more "
        "than ",
        limit_,
        " bytes of compile work (64 MiB, or 128 times the manifest's bytes "
        "if more); schemas that each $ref a large document compile and "
        "check it for each"));
  }

 private:
  const size_t limit_;
  size_t used_ = 0;
};

std::string DocumentsDigest(const Manifest& m) {
  Json docs = Json::object();
  for (const auto& [uri, doc] : m.documents) docs[uri] = doc;
  return Sha256(CanonicalJson(docs));
}

// Compiles `doc` for `tool` (or shares an identical compiled schema) and
// finds its canonical text in `canonical`, searching from `*hint` first:
// tools and their schemas appear there in manifest order. Any occurrence
// of the same bytes is the same schema, so the first found is right.
absl::StatusOr<LoadedSchema> LoadSchema(const SchemaSource& source,
                                        const ToolSpec& tool, const Json& doc,
                                        absl::string_view where, size_t* hint,
                                        CompileMeter* meter) {
  const std::string text = CanonicalJson(doc);
  const std::string key = ToolSchemaKey(tool.policy.format_assertion,
                                        source.documents_digest, text);
  bool compiled_now = false;
  auto compiled = CompileToolSchema(key, doc, tool.policy.format_assertion,
                                    source.documents, &compiled_now);
  absl::Status s = compiled.status();
  if (s.ok()) s = meter->Charge(**compiled, compiled_now);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool \"", tool.name, "\": schema at ", where,
                     " does not compile: ", s.message()));
  }
  LoadedSchema loaded;
  loaded.compiled = *std::move(compiled);
  loaded.format_assertion = tool.policy.format_assertion;
  loaded.dialect = loaded.compiled->dialect();
  size_t at = source.canonical_json.find(text, *hint);
  if (at == std::string::npos) at = source.canonical_json.find(text);
  constexpr size_t kMax = std::numeric_limits<uint32_t>::max();
  if (at != std::string::npos && at + text.size() <= kMax) {
    loaded.offset = static_cast<uint32_t>(at);
    loaded.size = static_cast<uint32_t>(text.size());
    loaded.located = true;
    *hint = at + text.size();
  }
  return loaded;
}

// Decides, first fit, which programs stay resident: each distinct program
// is charged whole once, however many tools (or other snapshots) use it,
// so compiled_bytes() stays within the budget whatever others release.
class ResidentPlan {
 public:
  explicit ResidentPlan(size_t budget) : budget_(budget) {}

  // Drops `s`'s program (it becomes lazy) unless it fits; a program whose
  // text was not located (never expected) stays resident regardless.
  void Place(LoadedSchema* s) {
    if (s->compiled == nullptr || kept_.contains(s->compiled.get())) return;
    const size_t cost = s->compiled->compiled_bytes();
    if (s->located && used_ + cost > budget_) {
      s->compiled.reset();
      s->lazy = true;
      return;
    }
    used_ += cost;
    kept_.insert(s->compiled.get());
  }

 private:
  const size_t budget_;
  size_t used_ = 0;
  absl::flat_hash_set<const schema::Schema*> kept_;
};

// Appends what compiled but may not mean what its author meant; pointers
// are into the input schema unless `which` says otherwise.
void AddSchemaWarnings(const ToolSpec& tool, const schema::Schema& compiled,
                       absl::string_view which, std::vector<std::string>* out) {
  for (const std::string& w : compiled.warnings()) {
    out->push_back(absl::StrCat("tool \"", tool.name, "\": ", which, w));
  }
}

// Compiles `spec`'s schemas and places them in `plan`.
absl::StatusOr<LoadedTool> LoadTool(const SchemaSource& source,
                                    const ToolSpec& spec,
                                    const SchemaPointers& where, size_t* hint,
                                    ResidentPlan* plan, CompileMeter* meter,
                                    std::vector<std::string>* warnings) {
  LoadedTool l;
  auto in =
      LoadSchema(source, spec, spec.input_schema, where.input, hint, meter);
  if (!in.ok()) return in.status();
  l.input = *std::move(in);
  AddSchemaWarnings(spec, *l.input.compiled, "", warnings);
  if (spec.output_schema.has_value()) {
    auto out = LoadSchema(source, spec, *spec.output_schema, where.output, hint,
                          meter);
    if (!out.ok()) return out.status();
    l.output = *std::move(out);
    AddSchemaWarnings(spec, *l.output.compiled, "output schema: ", warnings);
  }
  // Placed now, in manifest (name) order, so a dropped program is freed
  // before the next compiles: loading never holds them all.
  plan->Place(&l.input);
  plan->Place(&l.output);
  return l;
}

// The schema a tool gets: its resident program, or a lazy schema appended
// to `owner->lazy` (reserved: never reallocated) and owned through `owner`.
std::shared_ptr<const schema::Schema> Handle(
    LoadedSchema& l, const std::shared_ptr<SchemaSource>& owner) {
  if (!l.lazy) return std::move(l.compiled);
  owner->lazy.emplace_back(owner.get(), l.offset, l.size, l.format_assertion,
                           l.dialect);
  return std::shared_ptr<const schema::Schema>(owner, &owner->lazy.back());
}

// The tool entry: `spec` without its schema documents (about 12 heap bytes
// per schema byte; the canonical JSON keeps their text).
CompiledTool Finish(ToolSpec spec, LoadedTool& l,
                    const std::shared_ptr<SchemaSource>& owner) {
  CompiledTool tool;
  tool.input = Handle(l.input, owner);
  if (spec.output_schema.has_value()) {
    tool.output = Handle(l.output, owner);
    *spec.output_schema = Json();
  }
  spec.input_schema = Json();
  tool.spec = std::move(spec);
  return tool;
}

// The schemas all of `m`'s tools declare.
size_t SchemaCount(const Manifest& m) {
  size_t n = 0;
  for (const ToolSpec& t : m.tools) n += t.output_schema.has_value() ? 2 : 1;
  return n;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Snapshot>> Snapshot::Compile(
    Manifest manifest, std::string name, const CancelToken* cancel,
    ResidentBudget budget, CompileBudget compile) {
  std::shared_ptr<Snapshot> s(new Snapshot());
  s->id_ = ManifestId(manifest);
  s->name_ = std::move(name);
  s->source_format_ = manifest.format;
  s->settings_ = manifest.settings;
  s->warnings_ = manifest.warnings;
  s->source_ = std::make_shared<SchemaSource>();
  SchemaSource& source = *s->source_;
  source.canonical_json = CanonicalJson(ManifestToJson(manifest));
  source.canonical_json.shrink_to_fit();  // Built by appending: 2x slack.
  source.documents_digest = DocumentsDigest(manifest);
  source.documents = std::move(manifest.documents);
  s->tools_.reserve(manifest.tools.size());
  s->tool_names_.reserve(manifest.tools.size());
  ResidentPlan plan(s->ProgramBudget(manifest, budget));
  const size_t manifest_bytes = budget.manifest_bytes != 0
                                    ? budget.manifest_bytes
                                    : source.canonical_json.size();
  CompileMeter meter(
      std::max(compile.min_bytes, compile.times_manifest * manifest_bytes));
  std::vector<LoadedTool> loaded;
  loaded.reserve(manifest.tools.size());
  size_t hint = 0, lazy = 0;
  for (const ToolSpec& spec : manifest.tools) {
    if (cancel != nullptr) {
      if (absl::Status gone = cancel->Check(); !gone.ok()) return gone;
    }
    auto l = LoadTool(source, spec, manifest.schema_pointers[spec.name], &hint,
                      &plan, &meter, &s->warnings_);
    if (!l.ok()) return l.status();
    lazy += (l->input.lazy ? 1 : 0) + (l->output.lazy ? 1 : 0);
    loaded.push_back(*std::move(l));
  }
  source.lazy.reserve(lazy);
  for (size_t i = 0; i < loaded.size(); ++i) {
    s->tool_names_.push_back(manifest.tools[i].name);
    s->tools_.push_back(
        Finish(std::move(manifest.tools[i]), loaded[i], s->source_));
  }
  // A sorted vector, not a map: a map node costs ~70 bytes per tool.
  std::sort(s->tools_.begin(), s->tools_.end(),
            [](const CompiledTool& a, const CompiledTool& b) {
              return a.spec.name < b.spec.name;
            });
  s->warnings_.shrink_to_fit();
  return std::shared_ptr<const Snapshot>(std::move(s));
}

size_t Snapshot::ProgramBudget(const Manifest& manifest,
                               const ResidentBudget& budget) const {
  // What the snapshot costs with no program resident, as compiled_bytes()
  // will count it (up to the warnings schemas add).
  size_t fixed =
      TableBytes() + Chunk(SchemaCount(manifest) * sizeof(LazyToolSchema));
  for (const ToolSpec& t : manifest.tools) {
    fixed += 2 * Str(t.name) + Str(t.description);
  }
  const size_t manifest_bytes = budget.manifest_bytes != 0
                                    ? budget.manifest_bytes
                                    : source_->canonical_json.size();
  const size_t cap = budget.times_manifest * manifest_bytes;
  return std::max(cap > fixed ? cap - fixed : 0, budget.min_program_bytes);
}

namespace {

// What a resident `s` holds by itself; a shared schema counts its share.
size_t SchemaShare(const std::shared_ptr<const schema::Schema>& s) {
  return s->compiled_bytes() / static_cast<size_t>(std::max(1L, s.use_count()));
}

}  // namespace

size_t Snapshot::ResidentShare(
    const std::shared_ptr<const schema::Schema>& s) const {
  if (s == nullptr) return 0;
  // std::less: a total order even for pointers into different objects.
  const auto& lazy = source_->lazy;
  const std::less<const schema::Schema*> before;
  const bool is_lazy = !lazy.empty() && !before(s.get(), &lazy.front()) &&
                       !before(&lazy.back(), s.get());
  return is_lazy ? 0 : SchemaShare(s);
}

size_t Snapshot::TableBytes() const {
  // The objects with their shared_ptr control blocks.
  size_t n = Chunk(sizeof(Snapshot) + 16) + Chunk(sizeof(SchemaSource) + 16) +
             Str(id_) + Str(name_) + Str(source_->canonical_json) +
             Str(source_->documents_digest) + Vec(tool_names_) +
             Vec(warnings_) + Vec(tools_);
  for (const std::string& t : tool_names_) n += Str(t);
  for (const std::string& w : warnings_) n += Str(w);
  for (const auto& [uri, doc] : source_->documents) {
    n += heap_bytes::MapNode(sizeof(std::string) + sizeof(Json)) + Str(uri) +
         heap_bytes::JsonOwned(doc);
  }
  return n;
}

size_t Snapshot::compiled_bytes() const {
  size_t n = TableBytes() + Vec(source_->lazy);
  for (const CompiledTool& tool : tools_) {
    n += Str(tool.spec.name) + Str(tool.spec.description) +
         heap_bytes::JsonOwned(tool.spec.input_schema) +
         ResidentShare(tool.input) + ResidentShare(tool.output);
    if (tool.spec.output_schema.has_value()) {
      n += heap_bytes::JsonOwned(*tool.spec.output_schema);
    }
  }
  return n;
}

size_t Snapshot::resident_schemas() const {
  size_t n = 0;
  for (const CompiledTool& tool : tools_) {
    n += (tool.input != nullptr) + (tool.output != nullptr);
  }
  return n - source_->lazy.size();
}

}  // namespace toolgate
