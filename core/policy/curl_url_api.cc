#include "core/policy/curl_url_api.h"

#include <dlfcn.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace toolgate::policy {
namespace {

// libcurl4's soname: the URL API has been in it since 7.62.
constexpr char kLibrary[] = "libcurl.so.4";

template <typename F>
bool Bind(void* library, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(library, name));
  return *out != nullptr;
}

absl::StatusOr<const CurlUrlFunctions*> Load() {
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "url rules need ", kLibrary,
        " (libcurl4): ", why != nullptr ? why : "it could not be loaded"));
  }
  static CurlUrlFunctions f;
  if (!Bind(library, "curl_url", &f.url) ||
      !Bind(library, "curl_url_cleanup", &f.cleanup) ||
      !Bind(library, "curl_url_set", &f.set) ||
      !Bind(library, "curl_url_get", &f.get) ||
      !Bind(library, "curl_free", &f.free)) {
    return absl::FailedPreconditionError(
        absl::StrCat(kLibrary, " lacks the URL API (curl_url_*)"));
  }
  return &f;
}

}  // namespace

absl::StatusOr<const CurlUrlFunctions*> CurlUrlApi() {
  // A function-local static: loaded once, thread-safe, never unloaded.
  static const auto* const kApi =
      new absl::StatusOr<const CurlUrlFunctions*>(Load());
  return *kApi;
}

}  // namespace toolgate::policy
