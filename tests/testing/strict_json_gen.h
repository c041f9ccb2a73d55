// Random JSON texts for strict_json_differential_test: valid documents of
// every shape (written with random whitespace and random but legal string
// escapes) and the mutations a strict parser must get right.
//
// Deterministic for a given seed, so a failure reproduces.
#ifndef TOOLGATE_TESTS_TESTING_STRICT_JSON_GEN_H_
#define TOOLGATE_TESTS_TESTING_STRICT_JSON_GEN_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace toolgate {
namespace json_internal {

class JsonTextGenerator {
 public:
  explicit JsonTextGenerator(uint64_t seed) : rng_(seed) {}

  // A valid JSON text nesting at most `max_depth` containers. With
  // `duplicate_key`, some object (if any is generated) repeats a key,
  // possibly spelled with different escapes.
  std::string Document(int max_depth, bool duplicate_key = false);

  // One JSON number: ordinary ones and the edges of int64, uint64 and
  // double (overflow, underflow, subnormals, long digit strings).
  std::string Number();

  // A JSON string literal, quotes included, of random code points each
  // written raw or escaped (\uXXXX, surrogate pairs, short escapes).
  std::string String();

  // `text` with one random edit: a byte replaced or removed, or a byte or
  // troublesome snippet (bad escapes, lone surrogates, invalid UTF-8, NUL,
  // stray brackets, bad number pieces) inserted.
  std::string Mutate(const std::string& text);

  // `depth` nested arrays and objects around a scalar.
  std::string Nested(int depth);

  int Uniform(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }

 private:
  std::string Value(int depth, int max_depth, bool* duplicate_key);
  std::string Object(int depth, int max_depth, bool* duplicate_key);
  std::string Array(int depth, int max_depth, bool* duplicate_key);
  std::string Whitespace();
  // Pool key `index`, each character written raw or escaped at random.
  std::string KeyText(int index);
  void AppendCodePoint(uint32_t cp, std::string* out);
  uint32_t RandomCodePoint();

  std::mt19937_64 rng_;
  // Keys come from a small pool so that escape-equivalent spellings of the
  // same key meet.
  std::vector<std::string> keys_ = {"a",
                                    "b",
                                    "a/b",
                                    "name",
                                    "\xC3\xA9t\xC3\xA9",
                                    "\xF0\x9F\x98\x80",
                                    "",
                                    "~",
                                    "type",
                                    "a_much_longer_key_than_sso_allows"};
};

}  // namespace json_internal
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_TESTING_STRICT_JSON_GEN_H_
