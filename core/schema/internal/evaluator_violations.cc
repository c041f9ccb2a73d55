// Building violations (instance pointers, SchemaViolation records, the
// evaluation-limit refusal): only ever reached when collecting or failing.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/evaluator_impl.h"

namespace toolgate {
namespace schema {
namespace internal {

std::string Quote(const std::string& s) { return absl::StrCat("\"", s, "\""); }

std::string Evaluator::Pointer(const std::string* extra_key,
                               size_t extra_index) const {
  std::string out;
  auto append = [&out](const std::string* key, size_t index) {
    if (key) {
      absl::StrAppend(&out, "/", EscapePointerToken(*key));
    } else {
      absl::StrAppend(&out, "/", index);
    }
  };
  for (const PathToken& t : path_) append(t.key, t.index);
  if (extra_key || extra_index != ~size_t{0}) append(extra_key, extra_index);
  return out;
}

void Evaluator::Add(Sink* sink, std::string pointer,
                    const std::string& schema_pointer,
                    const std::string& keyword, const std::string& expected,
                    const Json& v, std::string message) {
  steps_ += kStepsPerViolation;
  SchemaViolation out;
  out.instance_pointer = std::move(pointer);
  out.schema_pointer = schema_pointer;
  out.keyword = keyword;
  out.expected = expected;
  out.received = TruncatedJson(v);
  out.message = std::move(message);
  sink->out->push_back(std::move(out));
  ++sink->added;
}

bool Evaluator::Abort(const Json& v, const char* what) {
  if (!aborted_ && root_sink_) {
    Add(root_sink_, sink_ ? Pointer() : "", "", "evaluation_limit",
        "a schema that validates within toolgate's limits", v,
        absl::StrCat("validation stopped: ", what,
                     "; the instance is not accepted"));
  }
  aborted_ = true;
  return false;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
