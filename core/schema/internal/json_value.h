// Value semantics JSON Schema needs and nlohmann does not give: numeric
// equality across integer/float storage (1 == 1.0), exact numeric
// comparison, exact decimal multipleOf, hashing consistent with equality,
// and string length in Unicode code points.
//
// Thread-safety: pure functions and value types.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_JSON_VALUE_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_JSON_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/json/strict_json.h"

namespace toolgate {
namespace schema {
namespace internal {

// A JSON number held exactly (long double holds every int64, uint64 and
// double value without rounding on the platforms we build for).
struct JsonNumber {
  long double value = 0;
};

bool IsNumber(const Json& v);
JsonNumber ToNumber(const Json& v);
// True for integers and for floats with no fractional part (1.0).
bool IsIntegral(const Json& v);

// -1, 0, 1 comparing the number `v` with `limit`.
int CompareNumber(const Json& v, const JsonNumber& limit);

// A finite number as digits * 10^exponent, digits without trailing zeros,
// taken from the shortest decimal form that round-trips, i.e. the number
// as the author wrote it. multipleOf is decided on these exactly, so
// 0.0075 is a multiple of 0.0001 even though the doubles are not.
struct Decimal {
  unsigned __int128 digits = 0;
  int exponent = 0;
};
Decimal ToDecimal(const Json& v);
bool IsMultipleOf(const Decimal& value, const Decimal& divisor);

// Equality as JSON Schema defines it (numbers by value, objects unordered).
bool JsonEqual(const Json& a, const Json& b);
// A total order consistent with JsonEqual (0 exactly when equal): type
// rank, then numbers by value, strings by bytes, arrays and objects
// lexicographically.
int JsonCompare(const Json& a, const Json& b);

// Length in Unicode code points of valid UTF-8.
size_t CodePointLength(const std::string& s);

// Finds two equal items; returns false when all are unique, else sets
// *first/*second to their indexes. O(n log n) comparisons for any input.
bool FindDuplicate(const Json& array, size_t* first, size_t* second);

// Shortest round-trip text of a number ("0.1", "10", "1e+308").
std::string NumberText(const JsonNumber& n);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_JSON_VALUE_H_
