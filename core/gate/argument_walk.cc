#include "core/gate/argument_walk.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace toolgate {
namespace {

std::vector<std::string> Tokens(absl::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  for (absl::string_view t : absl::StrSplit(pointer.substr(1), '/')) {
    tokens.push_back(absl::StrReplaceAll(t, {{"~1", "/"}, {"~0", "~"}}));
  }
  return tokens;
}

template <typename J, typename Visit>
void Walk(J& value, const std::vector<std::string>& tokens, size_t i,
          const std::string& at, const Visit& visit) {
  if (i == tokens.size()) {
    visit(value, at);
    return;
  }
  const std::string& token = tokens[i];
  if (value.is_array()) {
    for (size_t k = 0; k < value.size(); ++k) {
      if (token == "*" || token == std::to_string(k)) {
        Walk(value[k], tokens, i + 1, absl::StrCat(at, "/", k), visit);
      }
    }
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (token == "*" || token == it.key()) {
        Walk(it.value(), tokens, i + 1,
             absl::StrCat(at, "/", EscapePointerToken(it.key())), visit);
      }
    }
  }
}

}  // namespace

class StringWalker {
 public:
  explicit StringWalker(const StringVisit& visit) : visit_(visit) {}

  void Walk(const Json& value) {
    if (value.is_string()) {
      visit_(value.get_ref<const std::string&>(), path_,
             policy::ArgumentPart::kValue);
    } else if (value.is_array()) {
      for (size_t k = 0; k < value.size(); ++k) {
        path_.steps_.push_back({nullptr, k});
        Walk(value[k]);
        path_.steps_.pop_back();
      }
    } else if (value.is_object()) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        path_.steps_.push_back({&it.key(), 0});
        visit_(it.key(), path_, policy::ArgumentPart::kMemberName);
        Walk(it.value());
        path_.steps_.pop_back();
      }
    }
  }

 private:
  const StringVisit& visit_;
  ValuePath path_;
};

std::string ValuePath::Pointer() const {
  std::string out;
  for (const Step& step : steps_) {
    if (step.key == nullptr) {
      absl::StrAppend(&out, "/", step.index);
    } else {
      absl::StrAppend(&out, "/", EscapePointerToken(*step.key));
    }
  }
  return out;
}

void ForEachAt(Json& arguments, absl::string_view pointer,
               const std::function<void(Json&, const std::string&)>& visit) {
  Walk(arguments, Tokens(pointer), 0, "", visit);
}

void ForEachAt(
    const Json& arguments, absl::string_view pointer,
    const std::function<void(const Json&, const std::string&)>& visit) {
  Walk(arguments, Tokens(pointer), 0, "", visit);
}

void ForEachString(const Json& arguments, const StringVisit& visit) {
  StringWalker(visit).Walk(arguments);
}

}  // namespace toolgate
