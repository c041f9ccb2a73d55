// Internal to core/policy: the per-position definition FindSecret scans
// for, exposed so that a test can hold FindSecret's fast scan to it.
//
// Thread-safety: a pure function.
#ifndef TOOLGATE_CORE_POLICY_SECRET_FORMATS_INTERNAL_H_
#define TOOLGATE_CORE_POLICY_SECRET_FORMATS_INTERNAL_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace toolgate::policy::internal {

// The kind of credential ("a JWT", "a GitHub token", ...) whose token starts
// at text[i], judged with the byte before it; empty when none does.
// FindSecret reports the first i (with i + 1 < text.size()) where this is
// not empty.
absl::string_view SecretKindAt(absl::string_view text, size_t i);

}  // namespace toolgate::policy::internal

#endif  // TOOLGATE_CORE_POLICY_SECRET_FORMATS_INTERNAL_H_
