// libcurl's URL API (curl_url_*), loaded on first use rather than linked.
//
// Why: linking libcurl maps it and its whole closure (GnuTLS, p11-kit,
// Kerberos, LDAP, SSH, ...) into every toolgate process at start, ~3.9 MB
// of idle RSS, although only a manifest with a `url` argument rule ever
// parses a URL. The parser is still libcurl's; only its loading moves to
// the first url rule a manifest declares (ValidateUrlRule), so a machine
// without libcurl refuses that manifest at load instead of failing calls.
//
// Thread-safety: CurlUrlApi() may be called from any thread; the library is
// loaded once and never unloaded.
#ifndef TOOLGATE_CORE_POLICY_CURL_URL_API_H_
#define TOOLGATE_CORE_POLICY_CURL_URL_API_H_

#include <curl/curl.h>

#include "absl/status/statusor.h"

namespace toolgate::policy {

struct CurlUrlFunctions {
  CURLU* (*url)();
  void (*cleanup)(CURLU*);
  CURLUcode (*set)(CURLU*, CURLUPart, const char*, unsigned int);
  CURLUcode (*get)(const CURLU*, CURLUPart, char**, unsigned int);
  void (*free)(void*);
};

// The functions, or FAILED_PRECONDITION naming what could not be loaded
// (the same answer on every call).
absl::StatusOr<const CurlUrlFunctions*> CurlUrlApi();

}  // namespace toolgate::policy

#endif  // TOOLGATE_CORE_POLICY_CURL_URL_API_H_
