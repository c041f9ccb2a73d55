// The Evaluator class behind Evaluate(), shared by the evaluator*.cc files
// that split it by keyword family; nothing outside the evaluator uses it.
//
// Thread-safety: an Evaluator is a per-call stack object.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_EVALUATOR_IMPL_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_EVALUATOR_IMPL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/schema/internal/evaluator.h"
#include "core/schema/internal/program.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace schema {
namespace internal {

// Bounds recursion whatever the schema graph; instances are at most 256
// deep and in-place reference cycles are refused at compile time.
constexpr int kMaxDepth = 1024;

// The step budget counts work, not only subschema evaluations (one step
// each): loops whose length the schema chooses (enum members, required
// names, patternProperties alternatives), scans of the instance, and the
// violations an explanation builds would otherwise let one step cost
// microseconds. A step is about what evaluating a small subschema costs
// (about 10 ns of CPU on the bench machine, see bench/README.md); the
// rates below were measured against it with //bench/schema:worst_case.
constexpr uint64_t kComparesPerStep = 2;     // enum members compared.
constexpr uint64_t kLookupsPerStep = 1;      // names looked up in a member
                                             // map or the dynamic scope.
constexpr uint64_t kStepsPerMatch = 2;       // member name matched by RE2.
constexpr uint64_t kBytesPerStep = 8;        // string bytes or annotation
                                             // bits scanned.
constexpr uint64_t kStepsPerViolation = 40;  // building one violation.

inline uint8_t KindOf(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return kNull;
    case Json::value_t::boolean: return kBoolean;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return kNumber;
    case Json::value_t::string: return kString;
    case Json::value_t::array: return kArray;
    case Json::value_t::object: return kObject;
    default: return 0;
  }
}

// What in-place subschemas evaluated, for unevaluated*. Indexes are member
// positions in the (ordered) object, or array indexes.
struct Ann {
  bool all_props = false;
  bool all_items = false;
  size_t prefix = 0;
  std::vector<bool> props;
  std::vector<bool> items;

  static void Mark(std::vector<bool>* bits, size_t i, size_t n) {
    if (bits->size() < n) bits->resize(n);
    (*bits)[i] = true;
  }
  bool Prop(size_t i) const {
    return all_props || (i < props.size() && props[i]);
  }
  bool Item(size_t i) const {
    return all_items || i < prefix || (i < items.size() && items[i]);
  }
  static void Or(std::vector<bool>* to, const std::vector<bool>& from) {
    if (to->size() < from.size()) to->resize(from.size());
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i]) (*to)[i] = true;
    }
  }
  void Merge(const Ann& o) {
    all_props |= o.all_props;
    all_items |= o.all_items;
    prefix = std::max(prefix, o.prefix);
    Or(&props, o.props);
    Or(&items, o.items);
  }
};

struct PathToken {
  const std::string* key;  // Null for an array index.
  size_t index;
};

// `s` in double quotes, for messages.
std::string Quote(const std::string& s);

class Evaluator {
 public:
  Evaluator(const Program& p, Sink* sink)
      : p_(p), sink_(sink), root_sink_(sink) {}

  bool Top(const Json& v) {
    const bool ok = Eval(*p_.root, v, nullptr) && !aborted_;
    if (!ok && root_sink_ && root_sink_->added == 0) {
      Add(root_sink_, "", "", "", "a valid instance", v,
          "instance is invalid");
    }
    return ok;
  }
  uint64_t steps() const { return steps_; }

 private:
  // evaluator.cc: the per-node loop and the keyword dispatch.
  bool Eval(const Node& n, const Json& v, Ann* parent);
  bool Run(const Instr& ins, const Json& v, uint8_t kind, Ann* a);

  // evaluator_scalars.cc: checks on the value itself.
  bool False(const Instr& ins, const Json& v);
  bool Type(const Instr& ins, const Json& v, uint8_t kind);
  bool Const(const Instr& ins, const Json& v);
  bool Enum(const Instr& ins, const Json& v, uint8_t kind);
  bool Numeric(const Instr& ins, const Json& v);
  bool Strings(const Instr& ins, const Json& v);
  bool Counts(const Instr& ins, const Json& v);

  // evaluator_objects.cc.
  bool Required(const Instr& ins, const Json& v);
  bool Members(const Instr& ins, const Json& v, Ann* a);
  bool CheapMembers(const Instr& ins, const Json::object_t& obj);
  bool MembersByLookup(const Instr& ins, const Json::object_t& obj,
                       bool prechecked);
  bool MembersByMerge(const Instr& ins, const Json::object_t& obj,
                      bool prechecked, Ann* a);
  bool Additional(const Instr& ins, const std::string& key, const Json& value);
  bool PropertyNames(const Instr& ins, const Json& v);
  bool DependentSchemas(const Instr& ins, const Json& v, Ann* a);

  // evaluator_arrays.cc.
  bool Items(const Instr& ins, const Json& v, Ann* a);
  bool Contains(const Instr& ins, const Json& v, Ann* a);

  // evaluator_applicators.cc: in-place applicators.
  bool AllOf(const Instr& ins, const Json& v, Ann* a);
  bool AnyOneOf(const Instr& ins, const Json& v, Ann* a);
  bool ReportAlternatives(const Instr& ins, const Json& v, size_t passed,
                          const std::vector<size_t>& which);
  std::string Closest(const Instr& ins, const Json& v);
  bool Not(const Instr& ins, const Json& v);
  bool If(const Instr& ins, const Json& v, Ann* a);
  bool DynamicRef(const Instr& ins, const Json& v, Ann* a);

  // evaluator_unevaluated.cc.
  bool Unevaluated(const Instr& ins, const Json& v, Ann* a);
  bool UnevaluatedChild(const Instr& ins, const Json& child,
                        const std::string* key, size_t i);

  // Evaluates a child instance location.
  bool Child(const Node& n, const Json& v, const std::string* key,
             size_t index) {
    if (sink_) path_.push_back(PathToken{key, index});
    const bool ok = Eval(n, v, nullptr);
    if (sink_) path_.pop_back();
    return ok;
  }
  // Evaluates with violations off (branches whose failure is not final).
  bool Quiet(const Node& n, const Json& v, Ann* a) {
    Sink* saved = sink_;
    sink_ = nullptr;
    const bool ok = Eval(n, v, a);
    sink_ = saved;
    return ok;
  }
  bool Stop() const { return !sink_ || sink_->added >= sink_->max; }

  // evaluator_violations.cc: building violations.
  std::string Pointer(const std::string* extra_key = nullptr,
                      size_t extra_index = ~size_t{0}) const;
  void Add(Sink* sink, std::string pointer, const std::string& schema_pointer,
           const std::string& keyword, const std::string& expected,
           const Json& v, std::string message);
  void Report(const Instr& ins, const Json& v, std::string message,
              const std::string* key = nullptr, size_t index = ~size_t{0},
              const std::string* expected = nullptr) {
    if (Stop()) return;
    Add(sink_, Pointer(key, index), ins.schema_pointer, ins.keyword,
        expected ? *expected : ins.expected, v, std::move(message));
  }
  bool Abort(const Json& v, const char* what);

  const Program& p_;
  Sink* sink_;
  Sink* const root_sink_;
  // Inline: the paths of most instances are shallow, and this vector grew
  // on every validation.
  absl::InlinedVector<PathToken, 16> path_;
  uint64_t steps_ = 0;
  int depth_ = 0;
  bool aborted_ = false;
  bool detail_ = true;
  std::vector<SchemaViolation> pending_detail_;
  int scope_size_ = 0;
  int scope_[kMaxDepth];
};

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_EVALUATOR_IMPL_H_
