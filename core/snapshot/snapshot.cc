#include "core/snapshot/snapshot.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace {

absl::StatusOr<std::shared_ptr<const schema::Schema>> CompileToolSchema(
    const Manifest& m, const ToolSpec& tool, const Json& doc,
    absl::string_view where) {
  schema::CompileOptions options;
  options.format_assertion = tool.policy.format_assertion;
  options.documents = m.documents;
  auto compiled = schema::Schema::Compile(doc, options);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool \"", tool.name, "\": schema at ", where,
                     " does not compile: ", compiled.status().message()));
  }
  return compiled;
}

// Appends what compiled but may not mean what its author meant; pointers
// are into the input schema unless `which` says otherwise.
void AddSchemaWarnings(const ToolSpec& tool, const schema::Schema& compiled,
                       absl::string_view which, std::vector<std::string>* out) {
  for (const std::string& w : compiled.warnings()) {
    out->push_back(absl::StrCat("tool \"", tool.name, "\": ", which, w));
  }
}

// Levenshtein distance if it is at most `cutoff`, else cutoff + 1. Only a
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
                         diag + (a[i - 1] == b[j - 1] ? 0 : 1), over});
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
  for (const ToolSpec& spec : manifest.tools) {
    if (cancel != nullptr) {
      if (absl::Status gone = cancel->Check(); !gone.ok()) return gone;
    }
    CompiledTool tool;
    tool.spec = spec;
    auto in = CompileToolSchema(manifest, spec, spec.input_schema,
                                spec.input_schema_pointer);
    if (!in.ok()) return in.status();
    tool.input = *std::move(in);
    AddSchemaWarnings(spec, *tool.input, "", &s->warnings_);
    if (spec.output_schema.has_value()) {
      auto out = CompileToolSchema(manifest, spec, *spec.output_schema,
                                   spec.output_schema_pointer);
      if (!out.ok()) return out.status();
      tool.output = *std::move(out);
      AddSchemaWarnings(spec, *tool.output, "output schema: ",
                        &s->warnings_);
    }
    s->tool_names_.push_back(spec.name);
    s->lower_tool_names_.push_back(absl::AsciiStrToLower(spec.name));
    s->tools_.emplace(spec.name, std::move(tool));
  }
  return std::shared_ptr<const Snapshot>(std::move(s));
}

const CompiledTool* Snapshot::FindTool(absl::string_view name) const {
  auto it = tools_.find(name);
  return it == tools_.end() ? nullptr : &it->second;
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
  for (size_t i = 0; i < lower_tool_names_.size(); ++i) {
    if (cancel != nullptr && i % kCandidatesPerCheck == 0 &&
        !cancel->Check().ok()) {
      break;
    }
    const size_t d = BoundedEditDistance(lower, lower_tool_names_[i], cutoff);
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

absl::Status SnapshotStore::BindName(absl::string_view name,
                                     const std::string& id, NameRule rule) {
  if (name.empty()) return absl::OkStatus();
  auto it = names_.find(name);
  if (it == names_.end()) {
    names_.emplace(std::string(name), NameBinding{id, rule == NameRule::kLoad});
    return absl::OkStatus();
  }
  NameBinding& bound = it->second;
  if (bound.id == id) {
    bound.loaded = bound.loaded || rule == NameRule::kLoad;
    return absl::OkStatus();
  }
  if (bound.loaded && rule != NameRule::kLoad) {
    return absl::FailedPreconditionError(absl::StrCat(
        "snapshot name \"", name, "\" is loaded from --manifests and "
        "changes only when the server reloads them"));
  }
  if (rule == NameRule::kClaim) {
    return absl::PermissionDeniedError(absl::StrCat(
        "snapshot name \"", name, "\" is bound to ", bound.id,
        "; re-binding a name needs the admin role"));
  }
  bound = NameBinding{id, rule == NameRule::kLoad};
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::Create(
    absl::string_view manifest_json, ManifestFormat format,
    absl::string_view name, NameRule rule, const CancelToken* cancel) {
  if (absl::StartsWith(name, "sha256:")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "snapshot name \"", name, "\" could be taken for a snapshot id"));
  }
  absl::StatusOr<Manifest> manifest =
      ParseManifest(manifest_json, format, options_.limits);
  if (!manifest.ok()) return manifest.status();
  const std::string id = ManifestId(*manifest);
  {
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(id);
    if (it != by_id_.end()) {
      if (auto s = BindName(name, id, rule); !s.ok()) return s;
      return it->second;
    }
  }
  // Compile outside the lock: schemas can be large.
  auto snapshot =
      Snapshot::Compile(*std::move(manifest), std::string(name), cancel);
  if (!snapshot.ok()) return snapshot.status();
  absl::MutexLock lock(&mu_);
  if (by_id_.size() >= options_.max_snapshots && !by_id_.count(id)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "snapshot store is full (", options_.max_snapshots, " snapshots)"));
  }
  if (auto s = BindName(name, id, rule); !s.ok()) return s;
  auto [it, inserted] = by_id_.emplace(id, *snapshot);
  return it->second;
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::Get(
    absl::string_view id) const {
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    return absl::NotFoundError(absl::StrCat("no snapshot \"", id, "\""));
  }
  return it->second;
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::GetByName(
    absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = names_.find(name);
  if (it == names_.end()) {
    return absl::NotFoundError(
        absl::StrCat("no snapshot named \"", name, "\""));
  }
  return by_id_.at(it->second.id);
}

std::vector<std::shared_ptr<const Snapshot>> SnapshotStore::ListAfter(
    absl::string_view after_id, size_t max) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const Snapshot>> out;
  auto it = after_id.empty() ? by_id_.begin() : by_id_.upper_bound(after_id);
  for (; it != by_id_.end() && out.size() < max; ++it) {
    out.push_back(it->second);
  }
  return out;
}

}  // namespace toolgate
