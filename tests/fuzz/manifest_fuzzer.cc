// Manifest load: ParseManifest then Snapshot::Compile, on arbitrary input.
//
// Input: one option byte, then the manifest text. The option byte modulo 5
// picks the declared format (AUTO, toolgate, OpenAI, Anthropic, MCP).
//
// Invariants (manifest.h, snapshot.h):
//  * a refusal is INVALID_ARGUMENT;
//  * an accepted manifest has a concrete format (the declared one unless
//    AUTO), tools with non-empty names in strictly ascending order, and
//    object or boolean input schemas;
//  * AUTO reads a manifest exactly as its detected format does;
//  * the snapshot id is stable: the canonical manifest (toolgate format),
//    read back, has the same id and the same canonical bytes, and the id
//    is "sha256:" and 64 lowercase hex digits;
//  * the snapshot is what the id says: it compiles exactly when the
//    canonical manifest's does, carries the id and canonical JSON, finds
//    every tool, and both compilations decide probe arguments identically
//    (the second keeps no program resident: every schema is found in the
//    canonical JSON and compiled on use, so this checks lazy against
//    resident, input and output schemas).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/manifest/manifest.h"
#include "core/snapshot/snapshot.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

constexpr ManifestFormat kFormats[] = {
    ManifestFormat::kAuto, ManifestFormat::kToolgate, ManifestFormat::kOpenAI,
    ManifestFormat::kAnthropic, ManifestFormat::kMcp};

void CheckId(const std::string& id) {
  bool hex = id.size() == 7 + 64 && id.compare(0, 7, "sha256:") == 0;
  for (size_t i = 7; hex && i < id.size(); ++i) {
    hex = (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f');
  }
  FUZZ_CHECK(hex, "malformed manifest id %s", id.c_str());
}

void CheckShape(const Manifest& m, ManifestFormat declared) {
  FUZZ_CHECK(m.format != ManifestFormat::kAuto, "format left AUTO");
  FUZZ_CHECK(declared == ManifestFormat::kAuto || m.format == declared,
             "declared %s, read as %s",
             std::string(ManifestFormatName(declared)).c_str(),
             std::string(ManifestFormatName(m.format)).c_str());
  for (size_t i = 0; i < m.tools.size(); ++i) {
    FUZZ_CHECK(!m.tools[i].name.empty(), "a tool without a name");
    FUZZ_CHECK(i == 0 || m.tools[i - 1].name < m.tools[i].name,
               "tools not strictly sorted: \"%s\" then \"%s\"",
               m.tools[i - 1].name.c_str(), m.tools[i].name.c_str());
    const Json& s = m.tools[i].input_schema;
    FUZZ_CHECK(s.is_object() || s.is_boolean(),
               "tool %s has a %s input schema", m.tools[i].name.c_str(),
               std::string(JsonTypeName(s)).c_str());
  }
}

const std::vector<Json>& Probes() {
  static const auto* const kProbes = new std::vector<Json>{
      Json::object(), Json{{"id", "x"}}, Json{{"a", 1}, {"b", nullptr}},
      Json{{"query", "q"}, {"limit", 5}}};
  return *kProbes;
}

void CheckSnapshots(const Manifest& m, const Manifest& canonical,
                    const std::string& id, const std::string& json) {
  auto snapshot = Snapshot::Compile(m, "fuzz");
  // The canonical form with no program resident: every tool compiled on
  // use must decide as the resident one does.
  ResidentBudget lazy;
  lazy.times_manifest = 0;
  lazy.min_program_bytes = 0;
  auto again = Snapshot::Compile(canonical, "fuzz", nullptr, lazy);
  FUZZ_CHECK(snapshot.ok() == again.ok(),
             "the manifest %s but its canonical form %s",
             snapshot.ok() ? "compiles" : "does not compile",
             again.ok() ? "does" : "does not");
  if (!snapshot.ok()) {
    FUZZ_CHECK(snapshot.status().code() == absl::StatusCode::kInvalidArgument,
               "snapshot refusal is not INVALID_ARGUMENT: %s",
               snapshot.status().ToString().c_str());
    return;
  }
  const Snapshot& s = **snapshot;
  FUZZ_CHECK(s.id() == id && (*again)->id() == id, "snapshot id is not %s",
             id.c_str());
  FUZZ_CHECK(s.canonical_json() == json, "snapshot canonical JSON differs");
  FUZZ_CHECK(s.tool_names().size() == m.tools.size(), "tools lost");
  size_t schemas = 0;
  for (const ToolSpec& spec : m.tools) {
    schemas += spec.output_schema.has_value() ? 2 : 1;
  }
  FUZZ_CHECK((*again)->lazy_schemas() == schemas,
             "%zu of %zu schemas not found in the canonical JSON",
             schemas - (*again)->lazy_schemas(), schemas);
  for (const ToolSpec& spec : m.tools) {
    const CompiledTool* a = s.FindTool(spec.name);
    const CompiledTool* b = (*again)->FindTool(spec.name);
    FUZZ_CHECK(a != nullptr && b != nullptr && a->input && b->input,
               "tool %s not found in its snapshot", spec.name.c_str());
    FUZZ_CHECK((a->output == nullptr) == !spec.output_schema.has_value(),
               "tool %s: output schema presence changed", spec.name.c_str());
    for (const Json& probe : Probes()) {
      FUZZ_CHECK(a->input->IsValid(probe) == b->input->IsValid(probe),
                 "tool %s: one id, two decisions on %s", spec.name.c_str(),
                 CanonicalJson(probe).c_str());
      FUZZ_CHECK(a->output == nullptr ||
                     a->output->IsValid(probe) == b->output->IsValid(probe),
                 "tool %s: output schema, two decisions on %s",
                 spec.name.c_str(), CanonicalJson(probe).c_str());
    }
  }
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;  // NOLINT
  if (size == 0) return 0;
  const ManifestFormat declared = kFormats[data[0] % 5];
  const absl::string_view text = fuzz::AsText(data + 1, size - 1);
  const absl::StatusOr<Manifest> m = ParseManifest(text, declared);
  if (!m.ok()) {
    FUZZ_CHECK(m.status().code() == absl::StatusCode::kInvalidArgument,
               "a refusal that is not INVALID_ARGUMENT: %s",
               m.status().ToString().c_str());
    return 0;
  }
  CheckShape(*m, declared);
  const std::string id = ManifestId(*m);
  CheckId(id);

  if (declared == ManifestFormat::kAuto) {
    const absl::StatusOr<Manifest> explicit_read = ParseManifest(text, m->format);
    FUZZ_CHECK(explicit_read.ok() && ManifestId(*explicit_read) == id,
               "AUTO and %s read the manifest differently",
               std::string(ManifestFormatName(m->format)).c_str());
  }

  const std::string canonical = CanonicalJson(ManifestToJson(*m));
  const absl::StatusOr<Manifest> back = ParseManifest(
      canonical, ManifestFormat::kToolgate, fuzz::RereadLimits());
  FUZZ_CHECK(back.ok(), "the canonical manifest does not read back: %s\n  %s",
             std::string(back.status().message()).c_str(),
             canonical.substr(0, 400).c_str());
  FUZZ_CHECK(ManifestId(*back) == id, "the canonical manifest has another id");
  FUZZ_CHECK(CanonicalJson(ManifestToJson(*back)) == canonical,
             "canonical manifest -> read -> canonical is not stable");
  CheckSnapshots(*m, *back, id, canonical);
  return 0;
}
