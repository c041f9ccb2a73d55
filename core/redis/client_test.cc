// core/redis's client against a real redis-server: every transport, the
// credentials, deadlines and the failures an operator meets.
#include "core/redis/client.h"

#include <atomic>
#include <thread>

#include "core/util/tls_files.h"
#include "gtest/gtest.h"
#include "tests/testing/redis_server.h"
#include "tests/testing/test_certs.h"

namespace toolgate::redis {
namespace {

using testutil::RedisServer;
using testutil::RedisServerOptions;

ClientOptions Options(const std::string& url, std::string password = "") {
  ClientOptions o;
  absl::StatusOr<Address> a = ParseAddress(url);
  EXPECT_TRUE(a.ok()) << a.status();
  if (a.ok()) o.connect.address = *a;
  o.connect.password = std::move(password);
  o.timeout = absl::Milliseconds(200);
  return o;
}

std::unique_ptr<Client> MustConnect(ClientOptions o) {
  absl::StatusOr<std::unique_ptr<Client>> c =
      Client::Connect(std::move(o), absl::Seconds(2));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(*c) : nullptr;
}

TEST(Client, SetsAndGetsOverTcpAndUnix) {
  RedisServerOptions ro;
  ro.unix_socket = true;
  RedisServer redis(ro);
  ASSERT_TRUE(redis.started());
  for (const std::string& url : {redis.url(), redis.unix_url()}) {
    SCOPED_TRACE(url);
    std::unique_ptr<Client> c = MustConnect(Options(url));
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->Run("set", {"SET", "k", std::string("a\0b", 3)}).ok());
    absl::StatusOr<Reply> got = c->Run("get", {"GET", "k"});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->str, std::string("a\0b", 3));
    absl::StatusOr<std::vector<Reply>> both =
        c->Pipeline("two", {{"INCR", "n"}, {"INCR", "n"}});
    ASSERT_TRUE(both.ok());
    EXPECT_EQ((*both)[1].integer, (*both)[0].integer + 1);
  }
}

TEST(Client, SelectsTheDatabaseOfTheUrl) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  std::unique_ptr<Client> c = MustConnect(Options(redis.url() + "/3"));
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Run("set", {"SET", "in3", "x"}).ok());
  EXPECT_EQ(redis.Cli({"-n", "3", "GET", "in3"}), "x");
  EXPECT_EQ(redis.Cli({"-n", "0", "EXISTS", "in3"}), "0");
}

TEST(Client, PasswordsRightWrongAndMissing) {
  RedisServerOptions ro;
  ro.password = "s3cret";
  RedisServer redis(ro);
  ASSERT_TRUE(redis.started());
  EXPECT_NE(MustConnect(Options(redis.url(), "s3cret")), nullptr);
  absl::StatusOr<std::unique_ptr<Client>> wrong =
      Client::Connect(Options(redis.url(), "nope"), absl::Seconds(2));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(wrong.status().message().find("--state_store_password_file"),
            absl::string_view::npos);
  EXPECT_EQ(wrong.status().message().find("nope"), absl::string_view::npos);
  absl::StatusOr<std::unique_ptr<Client>> none =
      Client::Connect(Options(redis.url()), absl::Seconds(2));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("requires a password"),
            absl::string_view::npos);
}

TEST(Client, AnAclUserInTheUrl) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  ASSERT_EQ(redis.Cli({"ACL", "SETUSER", "gate", "on", ">pw", "~*", "+@all"}),
            "OK");
  EXPECT_NE(MustConnect(Options("redis://gate@127.0.0.1:" +
                                    std::to_string(redis.port()),
                                "pw")),
            nullptr);
  absl::StatusOr<std::unique_ptr<Client>> wrong = Client::Connect(
      Options("redis://gate@127.0.0.1:" + std::to_string(redis.port()), "x"),
      absl::Seconds(2));
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kUnauthenticated);
}

TEST(Client, NothingListeningIsUnavailable) {
  const int port = testutil::FreeLoopbackPort();
  absl::StatusOr<std::unique_ptr<Client>> c = Client::Connect(
      Options("redis://127.0.0.1:" + std::to_string(port)), absl::Seconds(1));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(c.status().message().find("state store redis://127.0.0.1"),
            absl::string_view::npos);
}

// A restarted store closes every pooled connection; the next request
// must not be lost to one of them.
TEST(Client, ARestartedStoreIsReconnectedBeforeTheNextRequest) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  std::unique_ptr<Client> c = MustConnect(Options(redis.url()));
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Run("ping", {"PING"}).ok());
  ASSERT_TRUE(redis.Restart());
  absl::StatusOr<Reply> r = c->Run("ping", {"PING"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->str, "PONG");
}

TEST(Client, AFrozenStoreTimesOutAndRecovers) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  std::unique_ptr<Client> c = MustConnect(Options(redis.url()));
  ASSERT_NE(c, nullptr);
  redis.Pause();
  const absl::Time start = absl::Now();
  absl::StatusOr<Reply> r = c->Run("ping", {"PING"});
  // UNAVAILABLE to the caller (DEADLINE_EXCEEDED is the caller's own
  // deadline in gRPC), naming the flag that bounds it.
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("--state_store_timeout_ms"),
            absl::string_view::npos)
      << r.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  redis.Resume();
  // The timed-out connection was dropped; the next request gets a clean one.
  absl::StatusOr<Reply> again = c->Run("ping", {"PING"});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->str, "PONG");
}

TEST(Client, ReconnectsAfterTheStoreRestarts) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  std::unique_ptr<Client> c = MustConnect(Options(redis.url()));
  ASSERT_TRUE(c->Run("set", {"SET", "durable", "1"}).ok());
  redis.Kill();
  EXPECT_FALSE(c->Run("get", {"GET", "durable"}).ok());
  ASSERT_TRUE(redis.Restart());
  absl::StatusOr<Reply> r = c->Run("get", {"GET", "durable"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->str, "1");  // AOF brought it back.
}

TEST(Client, ErrorRepliesAreUnavailable) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  std::unique_ptr<Client> c = MustConnect(Options(redis.url()));
  ASSERT_TRUE(c->Run("set", {"SET", "s", "x"}).ok());
  absl::StatusOr<Reply> r = c->Run("incr", {"INCR", "s"});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("answered an error"),
            absl::string_view::npos);
  // The connection stayed in step.
  EXPECT_EQ(c->Run("get", {"GET", "s"})->str, "x");
}

TEST(Client, ScriptsSurviveAFlushOfTheScriptCache) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  std::unique_ptr<Client> c = MustConnect(Options(redis.url()));
  std::vector<std::string> seen;
  c->SetObserver([&](absl::string_view op, absl::string_view result,
                     absl::Duration) { seen.push_back(std::string(op) + ":" +
                                                      std::string(result)); });
  const Script add("add", "return redis.call('INCRBY', KEYS[1], ARGV[1])");
  absl::StatusOr<Reply> r = c->Eval(add, {"sum"}, {"2"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->integer, 2);
  ASSERT_EQ(redis.Cli({"SCRIPT", "FLUSH"}), "OK");
  r = c->Eval(add, {"sum"}, {"3"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->integer, 5);
  const Script bad("bad", "return redis.error_reply('no')");
  EXPECT_EQ(c->Eval(bad, {}, {}).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(seen, (std::vector<std::string>{"add:ok", "add:ok", "bad:error"}));
}

// A pipeline of scripts after the store lost them: loaded and sent again
// once, one reply each; an error that merely mentions NOSCRIPT is an
// error, not a reason to run the scripts again.
TEST(Client, ScriptPipelinesSurviveAFlushOfTheScriptCache) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  std::unique_ptr<Client> c = MustConnect(Options(redis.url()));
  const Script add("add", "return redis.call('INCRBY', KEYS[1], ARGV[1])");
  const Script get("get", "return redis.call('GET', KEYS[1])");
  const std::vector<ScriptCall> calls = {{&add, {"n"}, {"2"}},
                                         {&get, {"n"}, {}}};
  ASSERT_EQ(redis.Cli({"SCRIPT", "FLUSH"}), "OK");
  absl::StatusOr<std::vector<Reply>> r = c->EvalPipeline("pair", calls);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].integer, 2);
  EXPECT_EQ((*r)[1].str, "2");
  const Script says("says", "return redis.error_reply('ERR not NOSCRIPT')");
  ASSERT_FALSE(c->Eval(says, {}, {}).ok());  // Loaded: no NOSCRIPT below.
  const std::vector<ScriptCall> failing = {{&add, {"n"}, {"1"}},
                                           {&says, {}, {}}};
  EXPECT_EQ(c->EvalPipeline("failing", failing).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(redis.Cli({"GET", "n"}), "3");  // Ran once, not again.
}

TEST(Client, ManyThreadsShareTheBoundedPool) {
  RedisServer redis;
  ASSERT_TRUE(redis.started());
  ClientOptions o = Options(redis.url());
  o.max_connections = 3;
  o.timeout = absl::Seconds(5);
  std::unique_ptr<Client> c = MustConnect(o);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (!c->Run("incr", {"INCR", "hits"}).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(redis.Cli({"GET", "hits"}), "2400");
  const std::string clients = redis.Cli({"CLIENT", "LIST"});
  EXPECT_LE(std::count(clients.begin(), clients.end(), '\n') + 1, 4);
}

class TlsClientTest : public ::testing::Test {
 protected:
  testutil::TestCerts certs_;
};

TEST_F(TlsClientTest, VerifiesTheStoreAndPresentsAClientCertificate) {
  ASSERT_TRUE(certs_.ok());
  RedisServerOptions ro;
  ro.tls_cert_file = certs_.Path("server.crt");
  ro.tls_key_file = certs_.Path("server.key");
  ro.tls_ca_file = certs_.Path("ca.crt");
  ro.tls_client_cert_file = certs_.Path("client.crt");
  ro.tls_client_key_file = certs_.Path("client.key");
  RedisServer redis(ro);
  ASSERT_TRUE(redis.started());
  ClientOptions o = Options(redis.url());
  o.connect.tls.ca = testutil::ReadAll(certs_.Path("ca.crt"));
  o.connect.tls.cert = testutil::ReadAll(certs_.Path("client.crt"));
  o.connect.tls.key = testutil::ReadAll(certs_.Path("client.key"));
  std::unique_ptr<Client> c = MustConnect(o);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Run("set", {"SET", "t", "1"}).ok());

  // The wrong CA: the handshake fails, naming the flag.
  ClientOptions wrong_ca = o;
  wrong_ca.connect.tls.ca = testutil::ReadAll(certs_.Path("other_ca.crt"));
  absl::StatusOr<std::unique_ptr<Client>> bad =
      Client::Connect(wrong_ca, absl::Seconds(2));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--state_store_ca_file"),
            absl::string_view::npos)
      << bad.status();
  // No client certificate where the store asks for one.
  ClientOptions no_cert = o;
  no_cert.connect.tls.cert.clear();
  no_cert.connect.tls.key.clear();
  EXPECT_FALSE(Client::Connect(no_cert, absl::Seconds(2)).ok());
  // A certificate that names another host.
  ClientOptions other_host = o;
  other_host.connect.address.host = "127.0.0.2";
  EXPECT_FALSE(Client::Connect(other_host, absl::Seconds(2)).ok());
  // PEM that does not load names its flag.
  ClientOptions garbage = o;
  garbage.connect.tls.ca = "not pem";
  absl::StatusOr<std::unique_ptr<Client>> g =
      Client::Connect(garbage, absl::Seconds(2));
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(TlsClientTest, PlainClientAgainstTlsStoreFailsWithinTheTimeout) {
  ASSERT_TRUE(certs_.ok());
  RedisServerOptions ro;
  ro.tls_cert_file = certs_.Path("server.crt");
  ro.tls_key_file = certs_.Path("server.key");
  ro.tls_ca_file = certs_.Path("ca.crt");
  RedisServer redis(ro);
  ASSERT_TRUE(redis.started());
  absl::StatusOr<std::unique_ptr<Client>> c = Client::Connect(
      Options("redis://127.0.0.1:" + std::to_string(redis.port())),
      absl::Milliseconds(500));
  EXPECT_FALSE(c.ok());
}

}  // namespace
}  // namespace toolgate::redis
