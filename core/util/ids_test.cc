#include "core/util/ids.h"

#include <set>
#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

// FIPS 180-2 / NIST examples: snapshot ids and run-token hashes depend on
// these bytes staying exactly SHA-256.
TEST(Sha256Test, KnownVectors) {
  struct Case {
    std::string input;
    const char* hex;
  };
  const Case cases[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(absl::BytesToHexString(Sha256(c.input)), c.hex)
        << c.input.size() << " bytes";
  }
}

TEST(RandomHexTest, LengthAlphabetAndFreshness) {
  std::set<std::string> seen;
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{16}, size_t{32},
                       size_t{4096}}) {  // > 256: getrandom may return less
    absl::StatusOr<std::string> hex = RandomHex(bytes);
    ASSERT_TRUE(hex.ok()) << hex.status();
    EXPECT_EQ(hex->size(), 2 * bytes);
    EXPECT_EQ(hex->find_first_not_of("0123456789abcdef"), std::string::npos);
    if (bytes >= 16) {
      EXPECT_TRUE(seen.insert(*hex).second) << *hex;
    }
  }
  absl::StatusOr<std::string> a = RandomHex(16), b = RandomHex(16);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

TEST(SecretsEqualTest, ComparesWholeSecrets) {
  EXPECT_TRUE(SecretsEqual("token", "token"));
  EXPECT_FALSE(SecretsEqual("token", "tokem"));
  EXPECT_FALSE(SecretsEqual("token", "token2"));
  EXPECT_TRUE(SecretsEqual("", ""));
}

}  // namespace
}  // namespace toolgate
