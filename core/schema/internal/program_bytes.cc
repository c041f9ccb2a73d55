// ProgramBytes (program.h): the heap a compiled Program holds, counted
// from container capacities (core/util/heap_bytes.h).
#include <algorithm>
#include <cstddef>
#include <string>

#include "core/schema/internal/program.h"
#include "core/schema/internal/regex.h"
#include "core/util/heap_bytes.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

using heap_bytes::Chunk;
using heap_bytes::Str;
using heap_bytes::Vec;

size_t InstrBytes(const Instr& ins, Sharing sharing) {
  size_t n = Str(ins.keyword) + Str(ins.schema_pointer) + Str(ins.expected) +
             Str(ins.additional_pointer) + Str(ins.dynamic_anchor) +
             Vec(ins.nodes) + Vec(ins.props) + Vec(ins.cheap_props) +
             Vec(ins.patterns) + Vec(ins.names) + Vec(ins.dependent) +
             Vec(ins.values);
  for (const NamedChild& p : ins.props) n += Str(p.name);
  for (const PatternChild& p : ins.patterns) {
    n += Str(p.source) + Str(p.schema_pointer);
    // Interned: each user carries its share, so the shares of all live
    // schemas add up to the RE2's size.
    const long users =
        sharing == Sharing::kWhole ? 1L : std::max(1L, p.re.use_count());
    n += PatternBytes(*p.re) / static_cast<size_t>(users);
  }
  for (const std::string& s : ins.names) n += Str(s);
  for (const auto& [prop, list] : ins.dependent) {
    n += Str(prop) + Vec(list);
    for (const std::string& s : list) n += Str(s);
  }
  for (const Json& v : ins.values) n += heap_bytes::JsonOwned(v);
  if (ins.string_values.capacity() > 0) {
    n += Chunk(ins.string_values.capacity() * (sizeof(std::string) + 1) + 16);
    for (const std::string& s : ins.string_values) n += Str(s);
  }
  return n;
}

}  // namespace

size_t PatternBytes(const RE2& re) { return Chunk(24) + RegexBytes(re); }

size_t ProgramBytes(const Program& p, Sharing sharing) {
  size_t n = Chunk(sizeof(Program)) + Vec(p.nodes) + Vec(p.resources) +
             Vec(p.warnings);
  for (const auto& node : p.nodes) {
    n += Chunk(sizeof(Node)) + Str(node->pointer) + Vec(node->instrs);
    for (const Instr& ins : node->instrs) n += InstrBytes(ins, sharing);
  }
  for (const ResourceAnchors& r : p.resources) {
    n += Vec(r.dynamic);
    for (const NamedChild& d : r.dynamic) n += Str(d.name);
  }
  for (const std::string& w : p.warnings) n += Str(w);
  return n;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
