#include "bench/memory/manifest_gen.h"

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace bench {
namespace {

// Pattern number `k`: an anchored code shape, different for each k.
std::string Pattern(size_t k) {
  return absl::StrCat("^[A-Z]{2}", k, "-[0-9]+$");
}

}  // namespace

std::string GenerateManifest(const ManifestGenOptions& options) {
  std::string out = R"({"tools":[)";
  for (size_t i = 0; i < options.tools; ++i) {
    const size_t k =
        options.distinct_patterns == 0 ? i : i % options.distinct_patterns;
    absl::StrAppend(&out, i ? "," : "", R"({"name":")", options.variant,
                    "_tool_", i,
                    R"(","inputSchema":{"type":"object","properties":)",
                    R"({"id":{"type":"string","pattern":")",
                    Pattern(options.pattern_base + k), R"("}}}})");
  }
  out += "]}";
  return out;
}

}  // namespace bench
}  // namespace toolgate
