// End to end: Engine::ValidateToolCall (stateless) over fixed snapshots,
// with arbitrary model output as text or provider-native JSON.
//
// Input: one option byte, then the model output. Option bits 0-1 pick the
// snapshot (the tickets, billing or customers example), bit 2 = native
// JSON (else text), bit 3 = SYNTAX_REPAIR.
//
// Invariants (gate.h, engine.h):
//  * the request is well formed, so the engine answers (no Status);
//  * ALLOW / NEEDS_APPROVAL ⇒ at least one call, no violation, and for every
//    call: the name is a tool of the snapshot, and the reported arguments
//    re-parse strictly (canonical, stable) and validate against that
//    tool's input schema. NEEDS_APPROVAL exactly when such a call's tool
//    requires approval;
//  * REJECT ⇒ at least one violation and a repair prompt; STOP ⇒ a reason;
//  * STRICT reports no repairs;
//  * stateless calls are pure: the same request decides the same again;
//  * native output a plain reader (OpenAI, Anthropic, MCP) answers for
//    reads exactly as the general reader reads it (core/gate/plain_native.h).
//  * native output whose top level carries a provider stop signal that
//    does not say the output is complete (core/stream/stop_signal.h: cut,
//    failed, unknown, null, not a string) is never ALLOW / NEEDS_APPROVAL.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/engine/engine.h"
#include "core/gate/plain_native.h"
#include "core/stream/stop_signal.h"
#include "schemas/embedded_examples.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

struct Fixture {
  Engine engine;
  std::string ids[3];
};

Fixture& Snapshots() {
  static Fixture* const kFixture = [] {
    auto* f = new Fixture;
    size_t i = 0;
    for (const EmbeddedManifest& m : EmbeddedExampleManifests()) {
      FUZZ_CHECK(i < 3, "more than three example manifests");
      auto s = f->engine.CreateSnapshot(m.contents, ManifestFormat::kAuto,
                                        m.name);
      FUZZ_CHECK(s.ok(), "example %s: %s", m.name,
                 std::string(s.status().message()).c_str());
      f->ids[i++] = (*s)->id();
    }
    FUZZ_CHECK(i == 3, "expected three example manifests, found %zu", i);
    return f;
  }();
  return *kFixture;
}

void CheckAllowed(const ValidateCallResponse& r, const Snapshot& snapshot,
                  bool strict) {
  const std::string name(DecisionName(r.decision));
  const char* decision = name.c_str();
  FUZZ_CHECK(!r.calls.empty(), "%s with no call", decision);
  FUZZ_CHECK(r.violations.empty(), "%s with %zu violations (first %s)",
             decision, r.violations.size(), r.violations[0].code.c_str());
  bool approval = false;
  for (const CallReport& call : r.calls) {
    const CompiledTool* tool = snapshot.FindTool(call.name);
    FUZZ_CHECK(tool != nullptr, "%s of \"%s\", not a tool of the snapshot",
               decision, call.name.c_str());
    approval |= tool->spec.policy.requires_approval;
    const absl::StatusOr<Json> args = ParseStrictJson(call.arguments_json);
    FUZZ_CHECK(args.ok(), "%s of %s: arguments do not re-parse strictly: %s",
               decision, call.name.c_str(),
               std::string(args.status().message()).c_str());
    FUZZ_CHECK(args->is_object(), "%s of %s with %s arguments", decision,
               call.name.c_str(), std::string(JsonTypeName(*args)).c_str());
    FUZZ_CHECK(CanonicalJson(*args) == call.arguments_json,
               "%s of %s: arguments_json is not canonical", decision,
               call.name.c_str());
    fuzz::CheckCanonicalRoundTrip(*args, "allowed arguments");
    FUZZ_CHECK(tool->input->IsValid(*args),
               "%s of %s with arguments its schema refuses: %s", decision,
               call.name.c_str(), call.arguments_json.substr(0, 300).c_str());
    FUZZ_CHECK(!strict || call.repairs.empty(), "STRICT reported a repair");
  }
  FUZZ_CHECK(approval == (r.decision == Decision::kNeedsApproval),
             "%s, but a call's tool %s approval", decision,
             approval ? "requires" : "does not require");
}

void CheckPlainReader(absl::string_view output) {
  const JsonLimits limits;
  const std::optional<RawCalls> plain =
      gate_internal::ReadPlainNative(output, limits);
  if (!plain.has_value()) return;
  const RawCalls general = gate_internal::ReadNativeCallsGeneral(output, limits);
  FUZZ_CHECK(general.error.ok() && plain->error.ok(),
             "the plain reader answered where the general one refuses (%s)",
             general.error.code.c_str());
  FUZZ_CHECK(plain->calls.size() == general.calls.size(),
             "plain reader: %zu calls, general: %zu", plain->calls.size(),
             general.calls.size());
  for (size_t i = 0; i < general.calls.size(); ++i) {
    const RawCall& a = plain->calls[i];
    const RawCall& b = general.calls[i];
    FUZZ_CHECK(a.id == b.id && a.name == b.name && a.source == b.source &&
                   a.error.code == b.error.code &&
                   a.error.pointer == b.error.pointer &&
                   a.error.message == b.error.message &&
                   (!a.error.ok() || a.arguments == b.arguments),
               "call %zu: the plain reader reads it differently", i);
  }
}

// Whether native output's top level says the model did not finish (or
// says it in a way toolgate cannot read): such output must never run.
bool StopsIncomplete(absl::string_view output) {
  const absl::StatusOr<Json> doc = ParseStrictJson(output);
  if (!doc.ok() || !doc->is_object()) return false;
  for (stream::StopSignal signal : stream::kStopSignals) {
    auto it = doc->find(std::string(stream::StopSignalKey(signal)));
    if (it == doc->end()) continue;
    if (!it->is_string() ||
        stream::ClassifyStop(signal, it->get_ref<const std::string&>()) !=
            stream::StopKind::kComplete) {
      return true;
    }
  }
  return false;
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;  // NOLINT
  if (size == 0) return 0;
  Fixture& f = Snapshots();
  ValidateCallRequest request;
  request.snapshot_id = f.ids[(data[0] & 3) % 3];
  request.kind = (data[0] & 4) ? OutputKind::kNative : OutputKind::kText;
  request.syntax_repair = (data[0] & 8) != 0;
  request.output = fuzz::AsText(data + 1, size - 1);
  if (request.kind == OutputKind::kNative) CheckPlainReader(request.output);

  const absl::StatusOr<ValidateCallResponse> r =
      f.engine.ValidateToolCall(request);
  FUZZ_CHECK(r.ok(), "a well-formed request got a Status: %s",
             r.status().ToString().c_str());
  FUZZ_CHECK(r->snapshot_id == request.snapshot_id, "answered for %s",
             r->snapshot_id.c_str());
  const auto snapshot = f.engine.GetSnapshot(request.snapshot_id, "");
  FUZZ_CHECK(snapshot.ok(), "snapshot vanished");
  switch (r->decision) {
    case Decision::kAllow:
    case Decision::kNeedsApproval:
      FUZZ_CHECK(request.kind != OutputKind::kNative ||
                     !StopsIncomplete(request.output),
                 "%s of native output whose stop signal is not complete",
                 std::string(DecisionName(r->decision)).c_str());
      CheckAllowed(*r, **snapshot, !request.syntax_repair);
      break;
    case Decision::kReject:
      FUZZ_CHECK(!r->violations.empty(), "REJECT without a violation");
      FUZZ_CHECK(!r->repair_prompt.empty(), "REJECT without a repair prompt");
      break;
    case Decision::kStop:
      FUZZ_CHECK(!r->stop_reason.empty(), "STOP without a reason");
      break;
  }

  const absl::StatusOr<ValidateCallResponse> again =
      f.engine.ValidateToolCall(request);
  FUZZ_CHECK(again.ok() && again->decision == r->decision &&
                 again->violations.size() == r->violations.size() &&
                 again->calls.size() == r->calls.size(),
             "the same stateless request decides differently");
  return 0;
}
