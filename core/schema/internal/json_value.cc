#include "core/schema/internal/json_value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

namespace toolgate {
namespace schema {
namespace internal {
namespace {

using u128 = unsigned __int128;

Decimal Normalize(u128 digits, int exponent) {
  if (digits == 0) return Decimal{0, 0};
  while (digits % 10 == 0) {
    digits /= 10;
    ++exponent;
  }
  return Decimal{digits, exponent};
}

Decimal DecimalFromDouble(double d) {
  char buf[64];
  // One byte kept for the terminator: the exponent is read with atoi,
  // which must not run on into whatever the stack held after the digits.
  auto res = std::to_chars(buf, buf + sizeof(buf) - 1, std::fabs(d));
  *res.ptr = '\0';
  u128 digits = 0;
  int exponent = 0;
  bool after_point = false;
  for (char* p = buf; p < res.ptr; ++p) {
    if (*p == '.') {
      after_point = true;
    } else if (*p == 'e' || *p == 'E') {
      exponent += std::atoi(p + 1);
      break;
    } else {
      digits = digits * 10 + static_cast<unsigned>(*p - '0');
      if (after_point) --exponent;
    }
  }
  return Normalize(digits, exponent);
}

// (base^exp) mod m with 128-bit intermediates; m < 2^64.
u128 PowMod(u128 base, int exp, u128 m) {
  u128 result = 1 % m;
  base %= m;
  while (exp > 0) {
    if (exp & 1) result = result * base % m;
    base = base * base % m;
    exp >>= 1;
  }
  return result;
}

}  // namespace

bool IsNumber(const Json& v) { return v.is_number(); }

JsonNumber ToNumber(const Json& v) {
  switch (v.type()) {
    case Json::value_t::number_integer:
      return JsonNumber{static_cast<long double>(v.get<int64_t>())};
    case Json::value_t::number_unsigned:
      return JsonNumber{static_cast<long double>(v.get<uint64_t>())};
    case Json::value_t::number_float:
      return JsonNumber{static_cast<long double>(v.get<double>())};
    default:
      return JsonNumber{0};
  }
}

bool IsIntegral(const Json& v) {
  if (v.is_number_integer()) return true;  // Signed and unsigned.
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d;
}

int CompareNumber(const Json& v, const JsonNumber& limit) {
  const long double x = ToNumber(v).value;
  return x < limit.value ? -1 : (x > limit.value ? 1 : 0);
}

Decimal ToDecimal(const Json& v) {
  if (v.is_number_unsigned()) return Normalize(v.get<uint64_t>(), 0);
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    const u128 mag = i < 0 ? static_cast<u128>(-(i + 1)) + 1
                           : static_cast<u128>(i);
    return Normalize(mag, 0);
  }
  return DecimalFromDouble(v.get<double>());
}

bool IsMultipleOf(const Decimal& value, const Decimal& divisor) {
  if (value.digits == 0) return true;
  if (divisor.digits == 0) return false;
  // value/divisor = (dv / dd) * 10^(ev - ed). With dv free of factors of
  // ten, a negative power leaves a fraction.
  const int k = value.exponent - divisor.exponent;
  if (k < 0) return false;
  const u128 m = divisor.digits;
  return (value.digits % m) * PowMod(10, k, m) % m == 0;
}

bool JsonEqual(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    return ToNumber(a).value == ToNumber(b).value;
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::array: {
      const auto& x = a.get_ref<const Json::array_t&>();
      const auto& y = b.get_ref<const Json::array_t&>();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!JsonEqual(x[i], y[i])) return false;
      }
      return true;
    }
    case Json::value_t::object: {
      const auto& x = a.get_ref<const Json::object_t&>();
      const auto& y = b.get_ref<const Json::object_t&>();
      if (x.size() != y.size()) return false;
      // Both maps iterate in key order.
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (i->first != j->first || !JsonEqual(i->second, j->second)) {
          return false;
        }
      }
      return true;
    }
    default:
      return a == b;
  }
}

namespace {

int TypeRank(const Json& v) {
  if (v.is_null()) return 0;
  if (v.is_boolean()) return 1;
  if (v.is_number()) return 2;
  if (v.is_string()) return 3;
  if (v.is_array()) return 4;
  return 5;
}

template <typename T>
int Three(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareArrays(const Json::array_t& x, const Json::array_t& y) {
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (int c = JsonCompare(x[i], y[i]); c != 0) return c;
  }
  return Three(x.size(), y.size());
}

int CompareObjects(const Json::object_t& x, const Json::object_t& y) {
  // Both maps iterate in key order.
  auto i = x.begin();
  auto j = y.begin();
  for (; i != x.end() && j != y.end(); ++i, ++j) {
    if (int c = i->first.compare(j->first); c != 0) return c < 0 ? -1 : 1;
    if (int c = JsonCompare(i->second, j->second); c != 0) return c;
  }
  return Three(x.size(), y.size());
}

}  // namespace

int JsonCompare(const Json& a, const Json& b) {
  const int ra = TypeRank(a), rb = TypeRank(b);
  if (ra != rb) return Three(ra, rb);
  switch (ra) {
    case 0: return 0;
    case 1: return Three(a.get<bool>(), b.get<bool>());
    case 2: return Three(ToNumber(a).value, ToNumber(b).value);
    case 3: {
      const int c = a.get_ref<const std::string&>().compare(
          b.get_ref<const std::string&>());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 4:
      return CompareArrays(a.get_ref<const Json::array_t&>(),
                           b.get_ref<const Json::array_t&>());
    default:
      return CompareObjects(a.get_ref<const Json::object_t&>(),
                            b.get_ref<const Json::object_t&>());
  }
}

size_t CodePointLength(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool FindDuplicate(const Json& array, size_t* first, size_t* second) {
  const auto& items = array.get_ref<const Json::array_t&>();
  const size_t n = items.size();
  if (n < 2) return false;
  if (n <= 8) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i + 1; j < n; ++j) {
        if (JsonEqual(items[i], items[j])) {
          *first = i;
          *second = j;
          return true;
        }
      }
    }
    return false;
  }
  // Sorting by a total order consistent with JsonEqual: O(n log n)
  // comparisons whatever the items are. (A hash would let crafted
  // collisions make this quadratic.)
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return JsonCompare(items[x], items[y]) < 0;
  });
  for (size_t k = 1; k < n; ++k) {
    if (JsonCompare(items[order[k - 1]], items[order[k]]) == 0) {
      *first = std::min(order[k - 1], order[k]);
      *second = std::max(order[k - 1], order[k]);
      return true;
    }
  }
  return false;
}

std::string NumberText(const JsonNumber& n) {
  const long double x = n.value;
  if (x == std::floor(x) && std::fabs(x) < 1e18L) {
    return std::to_string(static_cast<int64_t>(x));
  }
  // Plain decimals read best in messages ("0.0001", not "1e-04").
  const double d = static_cast<double>(x);
  const bool plain = std::fabs(d) >= 1e-7 && std::fabs(d) < 1e21;
  char buf[400];
  auto res = plain ? std::to_chars(buf, buf + sizeof(buf), d,
                                   std::chars_format::fixed)
                   : std::to_chars(buf, buf + sizeof(buf), d);
  return std::string(buf, res.ptr);
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
