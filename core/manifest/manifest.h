// Tool manifests: the four accepted formats, read into one model.
//
// A manifest arrives as an OpenAI tools array, Anthropic tools, an MCP
// tools/list result, or toolgate's own format (which also carries per-tool
// policy, extra schema documents and run settings). Whatever the input, it
// is normalised into a Manifest whose canonical form (toolgate format,
// tools sorted by name, keys sorted) is what a snapshot id hashes.
//
// Reading is strict: an unknown format, an ambiguous AUTO detection, a
// missing schema, a duplicate tool name or a malformed field refuses the
// whole manifest with INVALID_ARGUMENT; nothing is guessed.
//
// Thread-safety: pure functions over immutable values.
#ifndef TOOLGATE_CORE_MANIFEST_MANIFEST_H_
#define TOOLGATE_CORE_MANIFEST_MANIFEST_H_

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/policy/argument_checks.h"
#include "core/policy/text_checks.h"

namespace toolgate {

// Longest accepted tool name, in bytes. A name any longer cannot be one of
// a snapshot's tools, so nothing needs to be compared with it.
inline constexpr size_t kMaxToolNameBytes = 128;

enum class ManifestFormat { kAuto, kToolgate, kOpenAI, kAnthropic, kMcp };

// What executing a tool can do to the world. Unknown counts as kWrite.
enum class SideEffect { kRead, kWrite, kDestructive };

// How a tool's output is shaped: an MCP CallToolResult, plain JSON, or
// detected per output (an object with a "content" array is read as MCP).
// Part of the canonical manifest, so it is part of the snapshot id.
enum class OutputFormat { kAuto, kMcp, kJson };

absl::string_view ManifestFormatName(ManifestFormat format);
absl::string_view SideEffectName(SideEffect effect);
absl::string_view OutputFormatName(OutputFormat format);

// An explicit, per-field coercion a tool allows (policy.coerce); nothing
// else is ever coerced.
enum class Coercion { kIntegerFromString, kBooleanFromString };

absl::string_view CoercionName(Coercion coercion);

// A constraint on one string argument (policy.arguments; the checks are
// core/policy/argument_checks.h and text_checks.h).
struct ArgumentRule {
  enum class Kind { kPath, kUrl, kShellArg, kIdentifier, kText };
  Kind kind = Kind::kShellArg;
  policy::PathRule path;                             // kPath.
  policy::UrlRule url;                               // kUrl.
  std::optional<policy::IdentifierRule> identifier;  // kIdentifier.
  policy::TextRule text;                             // kText.
};

absl::string_view ArgumentRuleKindName(ArgumentRule::Kind kind);

// What a tool's policy says about individual arguments. Pointers are JSON
// Pointers into the call's arguments, in which a `*` token matches every
// array item or object member.
struct ArgumentPolicy {
  // Pointer -> the coercion applied there before schema validation.
  std::map<std::string, Coercion> coerce;
  // Pointer -> the run context key whose value the argument must equal.
  std::map<std::string, std::string> bind;
  // Pointer -> the constraint the (string) argument there must meet.
  std::map<std::string, ArgumentRule> rules;
};

// A tool's policy (toolgate format's `policy` member; docs/policy.md).
struct ToolPolicy {
  // "format" keywords assert (date-time, email, ...) instead of annotating.
  bool format_assertion = false;
  // A valid call is NEEDS_APPROVAL rather than ALLOW. Effective value: the
  // tool's own policy.requires_approval when given, else whether its side
  // effect is in settings.require_approval_for.
  bool requires_approval = false;
  // False: refused when the model's turn holds other calls too.
  bool parallel = true;
  // Null when the policy names no argument: most tools, which then carry
  // one pointer, not two empty maps, per snapshot.
  std::shared_ptr<const ArgumentPolicy> arguments;
  // ALLOWed calls of this tool per run; 0: no budget of its own.
  int max_calls_per_run = 0;
};

struct ToolSpec {
  std::string name;
  std::string description;
  Json input_schema;  // Object or boolean schema.
  std::optional<Json> output_schema;
  SideEffect side_effect = SideEffect::kWrite;
  OutputFormat output_format = OutputFormat::kAuto;
  ToolPolicy policy;
};

// Where a tool's input_schema / output_schema sat in the submitted
// manifest, so compile errors can point into what the user wrote. Kept
// beside the tools, not in ToolSpec: a snapshot keeps every ToolSpec and
// needs these only while compiling.
struct SchemaPointers {
  std::string input;
  std::string output;
};

struct RunSettings {
  // Consecutive rejects before a run's misformat breaker opens.
  int max_consecutive_rejects = 5;
  // Kill switch: `threshold` invalid outputs among the last `window`.
  int kill_switch_threshold = 3;
  int kill_switch_window = 10;
  // Tools of these side effects need approval unless their own policy says
  // otherwise. Sorted, no repeats.
  std::vector<SideEffect> require_approval_for;
  // ALLOWed calls per run of all tools of a side effect together; absent:
  // no budget.
  std::map<SideEffect, int> max_calls_per_run_by_class;
};

struct Manifest {
  ManifestFormat format = ManifestFormat::kAuto;  // As detected.
  std::vector<ToolSpec> tools;                    // Sorted by name.
  // Extra schema documents a $ref may reach, by absolute URI.
  std::map<std::string, Json> documents;
  RunSettings settings;
  std::vector<std::string> warnings;
  // By tool name. Not hashed.
  std::map<std::string, SchemaPointers> schema_pointers;
};

// Reads `manifest_json` (already size-checked by the caller's limits).
absl::StatusOr<Manifest> ParseManifest(absl::string_view manifest_json,
                                       ManifestFormat format,
                                       const JsonLimits& limits = JsonLimits());

// The manifest in toolgate format, as a JSON value.
Json ManifestToJson(const Manifest& manifest);

// "sha256:" + hex SHA-256 of CanonicalJson(ManifestToJson(manifest)).
std::string ManifestId(const Manifest& manifest);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_MANIFEST_MANIFEST_H_
