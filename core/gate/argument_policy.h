// Stage "policy (arguments)": what a valid call's arguments may hold
// beyond their schema (docs/policy.md). Schema validity proves shape, not
// intent: a valid read_file("../../etc/shadow") is what a prompt-injected
// model produces.
//
// For each call the schema accepted, in this order, each finding a
// violation with the argument's pointer that makes the call invalid:
//   parallel_not_allowed     policy.parallel false and the output holds
//                            other calls too
//   binding_context_missing  policy.bind names a context key the run does
//                            not have, or the call has no run
//   binding_mismatch         the bound argument is not the context value,
//                            byte for byte (a non-string never is)
//   path_*, url_*, shell_metacharacter, option_injection,
//   identifier_invalid,
//   text_too_long,
//   argument_injection       policy.arguments (core/policy/argument_checks.h,
//                            text_checks.h); a non-string value at a ruled
//                            pointer is refused with the kind's *_invalid
//                            code (text_invalid for text)
//   argument_secret          a string value or object member name of a
//                            write or destructive tool's arguments holds a
//                            credential (secret_checks.h)
//   argument_leak            a string value or member name holds 32 bytes
//                            of one of the run's protected texts
// Both scans also read the string without invisible characters. A member
// name's finding carries the member's pointer (`/headers/<name>`, ~ and /
// escaped); the message says it is the name and never quotes it. The rules
// of policy.arguments read values only: a member name is not a value at
// the rule's pointer (the schema's propertyNames governs names).
// Never allows anything: it can only refuse.
//
// Thread-safety: pure function over immutable inputs.
#ifndef TOOLGATE_CORE_GATE_ARGUMENT_POLICY_H_
#define TOOLGATE_CORE_GATE_ARGUMENT_POLICY_H_

#include <map>
#include <string>

#include "core/gate/gate_result.h"
#include "core/policy/secret_checks.h"

namespace toolgate {

struct RunFacts {
  // The run's context (OpenRunRequest.context); null for a stateless call.
  const std::map<std::string, std::string>* context = nullptr;
  // The run's protected texts; null when it has none.
  const policy::LeakDetector* leaks = nullptr;
};

void CheckArgumentPolicy(const RunFacts& run, GateResult* result);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_ARGUMENT_POLICY_H_
