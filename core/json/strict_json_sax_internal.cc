#include "core/json/strict_json_sax_internal.h"

#include <cmath>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/json/strict_json_scan_internal.h"

namespace toolgate {
namespace json_internal {
namespace {

// Builds a nlohmann DOM from SAX events, refusing what RFC 8259 leaves
// undefined or what the default DOM parser would silently accept.
class StrictDomBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  StrictDomBuilder(Json* root, const JsonLimits& limits, size_t input_size)
      : root_(root), limits_(limits), input_size_(input_size) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool v) { return Put(v); }
  bool number_integer(number_integer_t v) { return Put(v); }
  bool number_unsigned(number_unsigned_t v) { return Put(v); }
  // nlohmann reports 1e400 as a parse error (406) before this.
  bool number_float(number_float_t v, const string_t& text) {
    switch (FitNumber(text, v)) {
      case NumberFit::kExact:
        return Put(v);
      case NumberFit::kOverflow:
        return Fail(
            kNumberOutOfRange,
            absl::StrCat("number ", Quoted(text), " is outside double range"));
      case NumberFit::kUnderflow:
        return Fail(kNumberOutOfRange,
                    absl::StrCat("number ", Quoted(text),
                                 " is too close to zero for a double: it "
                                 "would be read as 0"));
      case NumberFit::kInexact:
        break;
    }
    char buf[32];
    const absl::string_view read_as(buf, FormatDouble(v, buf) - buf);
    return Fail(
        kNumberInexact,
        absl::StrCat("number ", Quoted(text), " would be read as ", read_as,
                     ", a different number (numbers are kept as "
                     "doubles): write ",
                     read_as, " or fewer significant digits"));
  }
  bool string(string_t& v) { return Put(std::move(v)); }
  bool binary(binary_t&) { return Fail(kInvalidJson, "binary value"); }

  bool start_object(std::size_t) { return Open(Json::object()); }
  bool start_array(std::size_t) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(string_t& k) {
    Frame& top = stack_.back();
    auto [it, inserted] =
        top.container->get_ref<Json::object_t&>().emplace(k, nullptr);
    if (!inserted) {
      return Fail(kDuplicateKey,
                  absl::StrCat("duplicate object key \"", k, "\""), k);
    }
    top.key = std::move(k);
    top.has_key = true;
    slot_ = &it->second;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) {
    // Running into the end of the input means the value was cut off (for
    // example at a model's token limit), which callers must tell apart from
    // malformed text: a truncated call is never executed or repaired.
    // The lexer counts the end-of-input it ran into as one more character.
    const bool at_end = position > input_size_;
    if (ex.id == 406) {  // out_of_range: number overflow
      return Fail(kNumberOutOfRange, "number is outside double range");
    }
    // nlohmann prefixes messages with "[json.exception.parse_error.101] ".
    std::string what = ex.what();
    const size_t bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    return Fail(at_end ? kTruncatedJson : kInvalidJson, what);
  }

  absl::Status status() const { return status_; }

 private:
  // A literal as quoted in a message: the first 40 bytes of a long one.
  static std::string Quoted(absl::string_view literal) {
    if (literal.size() <= 40) return std::string(literal);
    return absl::StrCat(literal.substr(0, 40), "...");
  }

  struct Frame {
    Json* container;
    std::string key;  // Last key seen, for error pointers.
    bool has_key = false;
  };

  Json* NextSlot() {
    if (stack_.empty()) return root_;
    Frame& top = stack_.back();
    if (top.container->is_array()) {
      auto& arr = top.container->get_ref<Json::array_t&>();
      arr.emplace_back(nullptr);
      return &arr.back();
    }
    return slot_;
  }

  template <typename T>
  bool Put(T&& v) {
    *NextSlot() = std::forward<T>(v);
    return true;
  }

  bool Open(Json&& container) {
    if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
      return Fail(kNestingTooDeep,
                  absl::StrCat("nesting deeper than ", limits_.max_depth));
    }
    Json* slot = NextSlot();
    *slot = std::move(container);
    stack_.push_back(Frame{slot, "", false});
    return true;
  }

  bool Close() {
    stack_.pop_back();
    return true;
  }

  // Pointer to the value being parsed when an error struck; `extra` names a
  // member of the innermost object that was never stored (a duplicate key).
  std::string Pointer(absl::string_view extra) const {
    std::string out;
    for (size_t i = 0; i < stack_.size(); ++i) {
      const Frame& f = stack_[i];
      const bool innermost = i + 1 == stack_.size();
      if (innermost && !extra.empty()) break;
      if (f.container->is_array()) {
        // Outer arrays hold the open child as their last element; in the
        // innermost one the failing element was never stored.
        const size_t n = f.container->size();
        if (!innermost && n == 0) break;
        absl::StrAppend(&out, "/", innermost ? n : n - 1);
      } else {
        if (!f.has_key) break;
        absl::StrAppend(&out, "/", EscapePointerToken(f.key));
      }
    }
    if (!extra.empty()) absl::StrAppend(&out, "/", EscapePointerToken(extra));
    return out;
  }

  bool Fail(absl::string_view code, absl::string_view message,
            absl::string_view extra_token = "") {
    if (status_.ok()) {
      status_ = MakeJsonError(code, Pointer(extra_token), message);
    }
    return false;
  }

  Json* root_;
  const JsonLimits& limits_;
  size_t input_size_;
  std::vector<Frame> stack_;
  Json* slot_ = nullptr;
  absl::Status status_;
};

}  // namespace

absl::Status CheckSizeAndPresence(absl::string_view text,
                                  const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return MakeJsonError(kInputTooLarge, "",
                         absl::StrCat("input is ", text.size(),
                                      " bytes; the limit is ",
                                      limits.max_bytes));
  }
  size_t first = 0;
  while (first < text.size() && IsJsonWhitespace(text[first])) ++first;
  if (first == text.size()) {
    return MakeJsonError(kEmptyInput, "", "no JSON value (empty input)");
  }
  return absl::OkStatus();
}

absl::StatusOr<Json> ParseStrictJsonWithSax(absl::string_view text,
                                            const JsonLimits& limits) {
  if (absl::Status s = CheckSizeAndPresence(text, limits); !s.ok()) return s;
  Json root;
  StrictDomBuilder builder(&root, limits, text.size());
  bool ok = false;
  try {
    ok = Json::sax_parse(text.begin(), text.end(), &builder,
                         Json::input_format_t::json, /*strict=*/true);
  } catch (const std::exception& e) {
    return MakeJsonError(kInvalidJson, "", e.what());
  }
  if (!ok) {
    absl::Status s = builder.status();
    if (s.ok()) s = MakeJsonError(kInvalidJson, "", "malformed JSON");
    return s;
  }
  return root;
}

}  // namespace json_internal
}  // namespace toolgate
