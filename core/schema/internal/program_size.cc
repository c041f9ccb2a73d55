#include "core/schema/internal/program_size.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace toolgate {
namespace schema {
namespace internal {
namespace {

// glibc's header per allocation, rounded up.
constexpr size_t kAllocOverhead = 16;
// libstdc++ keeps strings of up to 15 bytes inside the object.
constexpr size_t kInlineString = 15;

size_t HeapOf(const std::string& s) {
  return s.capacity() > kInlineString ? s.capacity() + 1 + kAllocOverhead : 0;
}

template <typename T>
size_t HeapOf(const std::vector<T>& v) {
  return v.capacity() > 0 ? v.capacity() * sizeof(T) + kAllocOverhead : 0;
}

size_t HeapOf(const std::vector<std::string>& v) {
  size_t n = v.capacity() > 0 ? v.capacity() * sizeof(std::string) : 0;
  for (const std::string& s : v) n += HeapOf(s);
  return n + kAllocOverhead;
}

// nlohmann::json keeps objects as std::map nodes and arrays, strings and
// objects behind a pointer.
size_t HeapOf(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object: {
      const auto& members = j.get_ref<const Json::object_t&>();
      size_t n = sizeof(Json::object_t) + kAllocOverhead;
      for (const auto& [key, value] : members) {
        // Red-black tree node: colour and three links, then the pair.
        n += 4 * sizeof(void*) + sizeof(std::string) + sizeof(Json) +
             kAllocOverhead + HeapOf(key) + HeapOf(value);
      }
      return n;
    }
    case Json::value_t::array: {
      const auto& items = j.get_ref<const Json::array_t&>();
      size_t n = sizeof(Json::array_t) + kAllocOverhead + HeapOf(items);
      for (const Json& item : items) n += HeapOf(item);
      return n;
    }
    case Json::value_t::string:
      return sizeof(std::string) + kAllocOverhead +
             HeapOf(j.get_ref<const std::string&>());
    default:
      return 0;
  }
}

// RE2 keeps its pattern, a parsed regexp, a compiled program (instructions
// of 8 to 16 bytes, plus about 1 KiB of tables) and a reverse program built
// on first use.
size_t HeapOf(const PatternChild& p) {
  size_t n = HeapOf(p.source) + HeapOf(p.schema_pointer);
  if (p.re != nullptr) {
    n += sizeof(RE2) + kAllocOverhead + 1024 + 2 * p.re->pattern().size() +
         2 * 16 * static_cast<size_t>(std::max(0, p.re->ProgramSize()));
  }
  return n;
}

size_t HeapOf(const Instr& ins) {
  size_t n = HeapOf(ins.keyword) + HeapOf(ins.schema_pointer) +
             HeapOf(ins.expected) + HeapOf(ins.additional_pointer) +
             HeapOf(ins.dynamic_anchor) + HeapOf(ins.nodes) +
             HeapOf(ins.props) + HeapOf(ins.cheap_props) +
             HeapOf(ins.patterns) + HeapOf(ins.names) + HeapOf(ins.dependent) +
             HeapOf(ins.values);
  for (const NamedChild& c : ins.props) n += HeapOf(c.name);
  for (const PatternChild& p : ins.patterns) n += HeapOf(p);
  for (const auto& [name, required] : ins.dependent) {
    n += HeapOf(name) + HeapOf(required);
  }
  for (const Json& v : ins.values) n += HeapOf(v);
  if (ins.string_values.capacity() > 0) {
    n += ins.string_values.capacity() * (sizeof(std::string) + 1) +
         kAllocOverhead;
    for (const std::string& s : ins.string_values) n += HeapOf(s);
  }
  return n;
}

}  // namespace

size_t ApproximateProgramBytes(const Program& program) {
  size_t n = sizeof(Program) + HeapOf(program.nodes) +
             HeapOf(program.resources) + HeapOf(program.warnings);
  for (const std::unique_ptr<Node>& node : program.nodes) {
    if (node == nullptr) continue;
    n += sizeof(Node) + kAllocOverhead + HeapOf(node->instrs) +
         HeapOf(node->pointer);
    for (const Instr& ins : node->instrs) n += HeapOf(ins);
  }
  for (const ResourceAnchors& r : program.resources) {
    n += HeapOf(r.dynamic);
    for (const NamedChild& c : r.dynamic) n += HeapOf(c.name);
  }
  return n;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
