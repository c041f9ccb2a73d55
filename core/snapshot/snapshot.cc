#include "core/snapshot/snapshot.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/util/heap_bytes.h"
#include "core/util/ids.h"
#include "core/util/weak_intern.h"

namespace toolgate {
namespace {

// Identical schemas compiled with identical options share one compiled
// Schema process-wide: tools of one manifest often repeat a schema, and
// the snapshots of similar manifests repeat all of them.
WeakIntern<schema::Schema>& SharedSchemas() {
  static auto* const shared = new WeakIntern<schema::Schema>();
  return *shared;
}

// Compiles `doc` for `tool`, or shares an identical compiled schema.
// `documents_digest` identifies m.documents, which a $ref may reach.
absl::StatusOr<std::shared_ptr<const schema::Schema>> CompileToolSchema(
    const Manifest& m, const std::string& documents_digest,
    const ToolSpec& tool, const Json& doc, absl::string_view where) {
  const std::string key = Sha256(absl::StrCat(
      tool.policy.format_assertion ? "assert\n" : "annotate\n",
      documents_digest, "\n", CanonicalJson(doc)));
  if (auto live = SharedSchemas().Find(key)) return live;
  schema::CompileOptions options;
  options.format_assertion = tool.policy.format_assertion;
  options.documents = m.documents;
  auto compiled = schema::Schema::Compile(doc, options);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool \"", tool.name, "\": schema at ", where,
                     " does not compile: ", compiled.status().message()));
  }
  return SharedSchemas().Insert(key, *std::move(compiled));
}

std::string DocumentsDigest(const Manifest& m) {
  Json docs = Json::object();
  for (const auto& [uri, doc] : m.documents) docs[uri] = doc;
  return Sha256(CanonicalJson(docs));
}

// What `s` holds by itself; a shared schema counts its share.
size_t SchemaShare(const std::shared_ptr<const schema::Schema>& s) {
  if (s == nullptr) return 0;
  return s->compiled_bytes() / static_cast<size_t>(std::max(1L, s.use_count()));
}

// Appends what compiled but may not mean what its author meant; pointers
// are into the input schema unless `which` says otherwise.
void AddSchemaWarnings(const ToolSpec& tool, const schema::Schema& compiled,
                       absl::string_view which, std::vector<std::string>* out) {
  for (const std::string& w : compiled.warnings()) {
    out->push_back(absl::StrCat("tool \"", tool.name, "\": ", which, w));
  }
}

// Levenshtein distance of `a` (lower case) and `b` with b read in lower
// case, if it is at most `cutoff`, else cutoff + 1. Only a
// band of 2 * cutoff + 1 cells per row can hold a distance within the
// cutoff, and once a whole row exceeds it no later row can come back.
size_t BoundedEditDistance(absl::string_view a, absl::string_view b,
                           size_t cutoff) {
  const size_t over = cutoff + 1;
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) >
      cutoff) {
    return over;
  }
  std::vector<size_t> row(b.size() + 1, over);
  for (size_t j = 0; j <= std::min(b.size(), cutoff); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    const size_t lo = i > cutoff ? i - cutoff : 1;
    const size_t hi = std::min(b.size(), i + cutoff);
    size_t diag = row[lo - 1];
    row[lo - 1] = lo == 1 && i <= cutoff ? i : over;
    size_t row_min = row[lo - 1];
    for (size_t j = lo; j <= hi; ++j) {
      const size_t up = row[j];
      row[j] = std::min({up + 1, row[j - 1] + 1,
                         diag + (a[i - 1] == absl::ascii_tolower(b[j - 1]) ? 0 : 1),
                      over});
      diag = up;
      row_min = std::min(row_min, row[j]);
    }
    if (hi < b.size()) row[hi + 1] = over;
    if (row_min > cutoff) return over;
  }
  return row[b.size()];
}

// Names are at most kMaxToolNameBytes, so the band is at most 17 wide.
constexpr size_t kMaxSuggestionDistance = 8;
// How many candidates are compared between two cancellation checks.
constexpr size_t kCandidatesPerCheck = 64;

}  // namespace

absl::StatusOr<std::shared_ptr<const Snapshot>> Snapshot::Compile(
    Manifest manifest, std::string name, const CancelToken* cancel) {
  std::shared_ptr<Snapshot> s(new Snapshot());
  s->id_ = ManifestId(manifest);
  s->name_ = std::move(name);
  s->source_format_ = manifest.format;
  s->canonical_json_ = CanonicalJson(ManifestToJson(manifest));
  s->settings_ = manifest.settings;
  s->warnings_ = manifest.warnings;
  const std::string documents_digest = DocumentsDigest(manifest);
  for (ToolSpec& spec : manifest.tools) {
    if (cancel != nullptr) {
      if (absl::Status gone = cancel->Check(); !gone.ok()) return gone;
    }
    CompiledTool tool;
    auto in = CompileToolSchema(manifest, documents_digest, spec,
                                spec.input_schema, spec.input_schema_pointer);
    if (!in.ok()) return in.status();
    tool.input = *std::move(in);
    AddSchemaWarnings(spec, *tool.input, "", &s->warnings_);
    if (spec.output_schema.has_value()) {
      auto out = CompileToolSchema(manifest, documents_digest, spec,
                                   *spec.output_schema,
                                   spec.output_schema_pointer);
      if (!out.ok()) return out.status();
      tool.output = *std::move(out);
      AddSchemaWarnings(spec, *tool.output, "output schema: ",
                        &s->warnings_);
    }
    // Compiled and in canonical_json_: the parsed documents (about 12
    // bytes of heap per byte of schema) and their source pointers go.
    spec.input_schema = Json();
    if (spec.output_schema.has_value()) *spec.output_schema = Json();
    std::string().swap(spec.input_schema_pointer);
    std::string().swap(spec.output_schema_pointer);
    tool.spec = std::move(spec);
    s->tool_names_.push_back(tool.spec.name);
    s->tools_.push_back(std::move(tool));
  }
  // A sorted vector, not a map: a map node costs ~70 bytes per tool.
  std::sort(s->tools_.begin(), s->tools_.end(),
            [](const CompiledTool& a, const CompiledTool& b) {
              return a.spec.name < b.spec.name;
            });
  s->tools_.shrink_to_fit();
  s->tool_names_.shrink_to_fit();
  s->canonical_json_.shrink_to_fit();  // Built by appending: up to 2x slack.
  s->warnings_.shrink_to_fit();
  return std::shared_ptr<const Snapshot>(std::move(s));
}

size_t Snapshot::compiled_bytes() const {
  using heap_bytes::Chunk;
  using heap_bytes::Str;
  using heap_bytes::Vec;
  // The object with its shared_ptr control block.
  size_t n = Chunk(sizeof(Snapshot) + 16) + Str(id_) + Str(name_) +
             Str(canonical_json_) + Vec(tool_names_) +
             Vec(warnings_) + Vec(tools_);
  for (const std::string& t : tool_names_) n += Str(t);
  for (const std::string& w : warnings_) n += Str(w);
  for (const CompiledTool& tool : tools_) {
    n += Str(tool.spec.name) + Str(tool.spec.description) +
         heap_bytes::JsonOwned(tool.spec.input_schema) +
         SchemaShare(tool.input) + SchemaShare(tool.output);
    if (tool.spec.output_schema.has_value()) {
      n += heap_bytes::JsonOwned(*tool.spec.output_schema);
    }
  }
  return n;
}

const CompiledTool* Snapshot::FindTool(absl::string_view name) const {
  auto it = std::lower_bound(tools_.begin(), tools_.end(), name,
                             [](const CompiledTool& t, absl::string_view n) {
                               return t.spec.name < n;
                             });
  return it == tools_.end() || it->spec.name != name ? nullptr : &*it;
}

std::vector<std::string> Snapshot::NearestToolNames(
    absl::string_view name, size_t max, const CancelToken* cancel) const {
  std::vector<std::string> out;
  // No tool has a longer name; comparing would be work for no hint.
  if (name.empty() || name.size() > kMaxToolNameBytes || max == 0) return out;
  const std::string lower = absl::AsciiStrToLower(name);
  const size_t cutoff =
      std::min(kMaxSuggestionDistance, std::max<size_t>(2, name.size() / 4));
  std::vector<std::pair<size_t, size_t>> scored;  // (distance, index)
  for (size_t i = 0; i < tool_names_.size(); ++i) {
    if (cancel != nullptr && i % kCandidatesPerCheck == 0 &&
        !cancel->Check().ok()) {
      break;
    }
    const size_t d = BoundedEditDistance(lower, tool_names_[i], cutoff);
    if (d <= cutoff) scored.emplace_back(d, i);
  }
  const size_t n = std::min(max, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + n, scored.end(),
                    [&](const auto& x, const auto& y) {
                      return x.first != y.first ? x.first < y.first
                                                : tool_names_[x.second] <
                                                      tool_names_[y.second];
                    });
  for (size_t i = 0; i < n; ++i) out.push_back(tool_names_[scored[i].second]);
  return out;
}

}  // namespace toolgate
