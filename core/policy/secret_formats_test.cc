#include <chrono>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policy/secret_checks.h"
#include "core/policy/secret_formats_internal.h"
#include "core/text/invisible_chars.h"
#include "gtest/gtest.h"

namespace toolgate::policy {
namespace {

// Tokens are assembled at run time so that no literal in this file looks
// like a live credential to a scanner.
std::string Alnum(size_t n, size_t seed = 0) {
  static constexpr char kChars[] =
      "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xYz0AbCdEfGhIjKlMnOpQrStUvWxYz";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += kChars[(i * 7 + seed) % 56];
  return s;
}

struct SecretCase {
  std::string text;
  bool secret;
};

class FindSecretTest : public ::testing::TestWithParam<SecretCase> {};

TEST_P(FindSecretTest, Decides) {
  const SecretCase& c = GetParam();
  std::optional<ArgumentViolation> v = FindSecret(c.text);
  EXPECT_EQ(v.has_value(), c.secret) << c.text;
  if (v) {
    EXPECT_EQ(v->code, "argument_secret");
    // The message never quotes the secret.
    EXPECT_EQ(v->message.find(c.text.substr(c.text.size() / 2, 12)),
              std::string::npos)
        << v->message;
  }
}

const std::string kAws = absl::StrCat("AK", "IAIOSFODNN7EXAMPLE");
const std::string kJwt = absl::StrCat(
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".", "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
    ".", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U");

INSTANTIATE_TEST_SUITE_P(
    Table, FindSecretTest,
    ::testing::Values(
        // PEM private keys; public material passes.
        SecretCase{"-----BEGIN RSA PRIVATE KEY-----\nMIIEow...", true},
        SecretCase{"x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl", true},
        SecretCase{"-----BEGIN PRIVATE KEY-----", true},
        SecretCase{"-----BEGIN ENCRYPTED PRIVATE KEY-----", true},
        SecretCase{"------BEGIN EC PRIVATE KEY-----", true},
        SecretCase{"key0-----BEGIN EC PRIVATE KEY-----", true},
        SecretCase{"-----BEGIN PGP PRIVATE KEY BLOCK-----", true},
        SecretCase{"-----BEGIN PUBLIC KEY-----\nMIIBIj...", false},
        SecretCase{"-----BEGIN CERTIFICATE-----\nMIID...", false},
        SecretCase{"-----BEGIN RSA PUBLIC KEY-----", false},
        SecretCase{"the private key is stored in the vault", false},
        // AWS access key ids.
        SecretCase{kAws, true},
        SecretCase{"aws_access_key_id=" + kAws + "\n", true},
        SecretCase{absl::StrCat("AS", "IAY34FZKBOKMUTVV7A"), true},
        SecretCase{kAws + "X", false}, SecretCase{"x" + kAws, false},
        SecretCase{"AKIA is a prefix", false},
        SecretCase{absl::StrCat("AK", "IAiosfodnn7example"), false},
        // Google and Azure.
        SecretCase{absl::StrCat("key=AI", "za", Alnum(35)), true},
        SecretCase{absl::StrCat("AI", "za", Alnum(34)), false},
        SecretCase{absl::StrCat("DefaultEndpointsProtocol=https;AccountName=a;"
                                "AccountKey=",
                                Alnum(86), "=="),
                   true},
        SecretCase{"Endpoint=sb://x.servicebus.windows.net/;SharedAccessKey=" +
                       Alnum(44),
                   true},
        SecretCase{"AccountKey=short", false},
        // GitHub.
        SecretCase{absl::StrCat("gh", "p_", Alnum(36)), true},
        SecretCase{absl::StrCat("token: gh", "s_", Alnum(36)), true},
        SecretCase{absl::StrCat("gh", "o_", Alnum(36)), true},
        SecretCase{absl::StrCat("github", "_pat_", Alnum(22), "_", Alnum(59)),
                   true},
        SecretCase{"ghp_short", false},
        SecretCase{absl::StrCat("xgh", "p_", Alnum(36)), false},
        SecretCase{"github_pat_ is the prefix of fine-grained tokens", false},
        // Slack.
        SecretCase{absl::StrCat("xo", "xb-", "1234567890-", Alnum(24)), true},
        SecretCase{absl::StrCat("xo", "xp-", "12345-67890-abc"), true},
        SecretCase{"xoxo-hugs-and-kisses", false},
        SecretCase{"xoxb-abcdefghijklmnop", false},
        // OpenAI / Anthropic / Stripe.
        SecretCase{absl::StrCat("s", "k-proj-", Alnum(48)), true},
        SecretCase{absl::StrCat("OPENAI_API_KEY=s", "k-", Alnum(48)), true},
        SecretCase{absl::StrCat("s", "k-ant-api03-", Alnum(80)), true},
        SecretCase{absl::StrCat("s", "k_live_", Alnum(24)), true},
        SecretCase{"sk-learn-is-a-machine-learning-library-for-python", false},
        SecretCase{"task-" + Alnum(40), false},
        SecretCase{"sk-" + std::string(40, 'a'), false},
        // Bearer tokens.
        SecretCase{"Authorization: Bearer abc123def456ghi789jkl0mno", true},
        SecretCase{"authorization: bearer " + kJwt, true},
        SecretCase{"BEARER\tAbCdEfGhIjKlMnOpQrStUv", true},
        SecretCase{"the bearer of bad news", false},
        SecretCase{"Bearer authentication is described in RFC 6750", false},
        SecretCase{"Bearer abcdefghijklmnopqrstuvwxyz", false},
        SecretCase{"Bearer abc123", false},
        SecretCase{"Bearer\nabc123def456ghi789jkl0mno", false},
        // JWTs.
        SecretCase{kJwt, true}, SecretCase{"token=" + kJwt + "&x=1", true},
        SecretCase{"eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.", true},
        SecretCase{"eyJhbGciOiJIUzI1NiJ9", false},
        SecretCase{"eyJhbGciOiJIUzI1NiJ9.not-a-payload.sig", false},
        SecretCase{"x" + kJwt, false},
        // Benign neighbours.
        SecretCase{"123e4567-e89b-12d3-a456-426614174000", false},
        SecretCase{"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
                   "7852b855",
                   false},
        SecretCase{"9b3feec1a2b4c6d8e0f1a2b3c4d5e6f708192a3b", false},
        SecretCase{
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
            "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
            false},
        SecretCase{"Please review the quarterly report and reply by Friday.",
                   false},
        SecretCase{"https://example.org/path?query=value#frag", false},
        SecretCase{"password", false}, SecretCase{"", false}));

TEST(FindSecretTest, AdversarialRepetitionStaysFast) {
  // Each of these would be quadratic if a token were re-verified from each
  // of its bytes; 1 MiB of them must take well under a second.
  for (absl::string_view unit :
       {"eyJ", "eyJaaaaaaaaaaa.", "bearer ", "sk-", "-----BEGIN ", "xoxb-1",
        "AccountKey=", "ghp_"}) {
    std::string text;
    while (text.size() < (1 << 20)) absl::StrAppend(&text, unit);
    const auto start = std::chrono::steady_clock::now();
    FindSecret(text);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    EXPECT_LT(seconds, 1.0) << unit;
  }
}

// FindSecret skips most bytes with a table test; the definition it must
// agree with is the first position where SecretKindAt finds a token in the
// text as sent or, when there is none, in the text without invisible
// characters (mapped back to the text as sent).
std::optional<size_t> FirstSecretByDefinition(absl::string_view text) {
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (!internal::SecretKindAt(text, i).empty()) return i;
  }
  text::ScanText visible;
  if (!text::NormalizeForScan(text, &visible)) return std::nullopt;
  const absl::string_view v = visible.text;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    if (!internal::SecretKindAt(v, i).empty()) return visible.SourceOffset(i);
  }
  return std::nullopt;
}

TEST(FindSecretTest, AgreesWithTheDefinitionOnRandomTexts) {
  // Format prefixes, the bytes around word boundaries, and runs of token
  // bytes, glued at random: tokens land at the start, after every kind of
  // byte, and inside words.
  const std::vector<std::string> pieces = {
      "AKIA", "ASIA", "AIza", "AccountKey=", "SharedAccessKey=", "ghp_",
      "github_pat_", "xoxb-", "xoxz-", "sk-", "sk_live_", "rk_live_", "Bearer ",
      "bEaReR\t", "eyJ", ".", "-----BEGIN ", "RSA PRIVATE KEY-----",
      "PRIVATE KEY", "-", "_", " ", "\n", "=", "/", "+", "~", "\xc3\xa9", "e",
      "s", "b", "A", "g", "x", "r", "S", Alnum(8, 1), Alnum(16, 2),
      Alnum(24, 3), Alnum(40, 4), "0123456789ABCDEF", "abcdefghijklmnop",
      // Invisible characters, a space NormalizeForScan makes plain, a line
      // break it makes "\n", a control byte and a byte that is not UTF-8.
      "\xe2\x80\x8b", "\xc2\xad", "\xe2\x80\xae", "\xc2\xa0", "\r",
      std::string(1, '\x01'), "\xff"};
  std::mt19937 rng(20261127);
  std::uniform_int_distribution<size_t> count(1, 12);
  std::uniform_int_distribution<size_t> pick(0, pieces.size() - 1);
  int found = 0;
  int hidden = 0;  // Found only without invisible characters.
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    for (size_t k = count(rng); k > 0; --k) text += pieces[pick(rng)];
    const std::optional<size_t> want = FirstSecretByDefinition(text);
    const std::optional<ArgumentViolation> got = FindSecret(text);
    ASSERT_EQ(got.has_value(), want.has_value()) << text;
    if (!want) continue;
    ++found;
    const bool split =
        got->message.find(absl::StrCat("(at byte ", *want,
                                       ", split by invisible characters)")) !=
        std::string::npos;
    hidden += split;
    EXPECT_TRUE(split || got->message.find(absl::StrCat(
                             "(at byte ", *want, ")")) != std::string::npos)
        << text << " -> " << got->message;
  }
  // Both answers are common enough for the comparison to mean something.
  EXPECT_GT(found, 1000);
  EXPECT_LT(found, 18000);
  EXPECT_GT(hidden, 100);
}

// FindSecret passes over texts shorter than kShortestSecretBytes: the shortest
// token of every format, each one byte short of it not being one.
TEST(FindSecretTest, NoFormatIsShorterThanTheShortestReadText) {
  const std::string shortest[] = {
      absl::StrCat("xo", "xb-1234567890"),
      "eyJaaaaaaa.eyJaaaaaaa.",
      kAws,
      "-----BEGIN PRIVATE KEY-----",
      "Bearer abcdefghijklmnopqrs1",
      absl::StrCat("s", "k_live_", Alnum(24)),
      absl::StrCat("s", "k-", Alnum(32)),
      absl::StrCat("AI", "za", Alnum(35)),
      absl::StrCat("gh", "p_", Alnum(36)),
      absl::StrCat("github", "_pat_", Alnum(40)),
      absl::StrCat("AccountKey=", Alnum(40)),
      absl::StrCat("SharedAccessKey=", Alnum(40)),
  };
  for (const std::string& token : shortest) {
    EXPECT_GE(token.size(), kShortestSecretBytes) << token;
    EXPECT_TRUE(FindSecret(token).has_value()) << token;
    EXPECT_FALSE(FindSecret(token.substr(0, token.size() - 1)).has_value())
        << token;
  }
  EXPECT_EQ(shortest[0].size(), kShortestSecretBytes);
}

// Invisible characters a model can put inside a token, each as UTF-8.
struct Invisible {
  const char* name;
  std::string utf8;
};
const Invisible kInvisibles[] = {
    {"U+200B zero width space", "\xE2\x80\x8B"},
    {"U+200C zero width non-joiner", "\xE2\x80\x8C"},
    {"U+200D zero width joiner", "\xE2\x80\x8D"},
    {"U+2060 word joiner", "\xE2\x81\xA0"},
    {"U+FEFF byte order mark", "\xEF\xBB\xBF"},
    {"U+00AD soft hyphen", "\xC2\xAD"},
    {"U+200E left-to-right mark", "\xE2\x80\x8E"},
    {"U+200F right-to-left mark", "\xE2\x80\x8F"},
    {"U+202E right-to-left override", "\xE2\x80\xAE"},
    {"U+2066 left-to-right isolate", "\xE2\x81\xA6"},
    {"U+061C arabic letter mark", "\xD8\x9C"},
    {"U+E0041 tag latin capital a", "\xF3\xA0\x81\x81"},
};

// One of each format FindSecret knows, as in the table above.
std::vector<std::string> OneOfEachFormat() {
  return {
      "-----BEGIN RSA PRIVATE KEY-----",
      kAws,
      absl::StrCat("AS", "IAY34FZKBOKMUTVV7A"),
      absl::StrCat("AI", "za", Alnum(35)),
      absl::StrCat("AccountKey=", Alnum(44)),
      absl::StrCat("SharedAccessKey=", Alnum(44)),
      absl::StrCat("gh", "p_", Alnum(36)),
      absl::StrCat("github", "_pat_", Alnum(22), "_", Alnum(59)),
      absl::StrCat("xo", "xb-", "1234567890-", Alnum(24)),
      absl::StrCat("s", "k-proj-", Alnum(48)),
      absl::StrCat("s", "k_live_", Alnum(24)),
      "Bearer abc123def456ghi789jkl0mno",
      kJwt,
  };
}

// `token` with `invisible` after every `every` bytes (not splitting the
// token's ASCII, which is all it holds).
std::string Split(const std::string& token, const std::string& invisible,
                  size_t every) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (i > 0 && i % every == 0) out += invisible;
    out += token[i];
  }
  return out;
}

// Issue 25 item 2: a token split by invisible characters is still the
// token once pasted; the scan reads the text without them.
TEST(FindSecretTest, InvisibleCharactersDoNotHideAToken) {
  for (const std::string& token : OneOfEachFormat()) {
    ASSERT_TRUE(FindSecret(token).has_value()) << token;
    for (const Invisible& c : kInvisibles) {
      for (size_t every : {size_t{1}, size_t{4}, token.size() / 2}) {
        const std::string split = Split(token, c.utf8, every);
        std::optional<ArgumentViolation> v = FindSecret("cfg: " + split);
        ASSERT_TRUE(v.has_value())
            << c.name << " every " << every << ": " << token;
        EXPECT_EQ(v->code, "argument_secret");
        // The offset is into the text as sent; the message says why the
        // bytes as sent did not show the token (half a Slack token may
        // still be one).
        EXPECT_NE(v->message.find("(at byte 5"), std::string::npos)
            << v->message;
        if (every == 1) {
          EXPECT_NE(v->message.find("split by invisible"), std::string::npos)
              << v->message;
        }
        EXPECT_EQ(v->message.find(token.substr(token.size() / 2, 8)),
                  std::string::npos);
      }
    }
    // Several different ones, and runs of them, in one token.
    std::string mixed;
    for (size_t i = 0; i < token.size(); ++i) {
      if (i > 0) {
        mixed += kInvisibles[i % std::size(kInvisibles)].utf8;
        if (i % 3 == 0)
          mixed += kInvisibles[(i + 5) % std::size(kInvisibles)].utf8;
      }
      mixed += token[i];
    }
    EXPECT_TRUE(FindSecret(mixed).has_value()) << token;
  }
}

TEST(FindSecretTest, InvisibleCharactersDoNotMakeAToken) {
  const std::string zwsp = "\xE2\x80\x8B";
  // Benign texts with invisible characters stay benign.
  for (const std::string& text : std::vector<std::string>{
           "Hello" + zwsp + " world", "\xEF\xBB\xBFplain text with a BOM",
           "AKIA" + zwsp + " is a prefix", "the bearer" + zwsp + " of bad news",
           "sk-" + zwsp + "learn-is-a-machine-learning-library-for-python",
           "\xE2\x80\xAEtxt.exe"}) {
    EXPECT_FALSE(FindSecret(text).has_value()) << text;
  }
  // A visible byte in the way still breaks a token (only invisible
  // characters are taken out).
  EXPECT_FALSE(FindSecret(Split(kAws, "-", 4)).has_value());
}

TEST(FindSecretTest, AMemberNameIsNamedAsSuch) {
  std::optional<ArgumentViolation> v =
      FindSecret(kAws, ArgumentPart::kMemberName);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->message.rfind("the member name contains", 0), 0u) << v->message;
  EXPECT_EQ(v->message.find(kAws), std::string::npos);
  v = FindSecret(kAws);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->message.rfind("the argument contains", 0), 0u) << v->message;
}

}  // namespace
}  // namespace toolgate::policy
