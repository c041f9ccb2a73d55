#include "server/options.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace server {
namespace {

TEST(ServerFlags, DefaultsAndOverrides) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->listen, "127.0.0.1:50051");
  EXPECT_EQ(d->engine.limits.max_bytes, 200000u);
  EXPECT_EQ(d->engine.limits.max_depth, 256);
  auto o = ParseServerFlags({"--listen=unix:/tmp/tg.sock", "--manifests", "/m",
                             "--max_input_bytes=1000", "--max_depth", "16"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->listen, "unix:/tmp/tg.sock");
  EXPECT_EQ(o->manifests_dir, "/m");
  EXPECT_EQ(o->engine.limits.max_bytes, 1000u);
  EXPECT_EQ(o->engine.limits.max_depth, 16);
}

TEST(ServerFlags, RefusesWhatWouldSilentlyKeepADefault) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"--max_input_byte=10"},    // typo
           {"--max_input_bytes=ten"},  // not a number
           {"--max_input_bytes=0"},    // out of range
           {"--max_depth=-1"},
           {"--max_calls_per_output=0"},
           {"--max_send_message_bytes=1000"},  // Below 1 MiB.
           {"--result_schema_cache_bytes=-1"},
           {"--schema_pool_bytes=-1"},
           {"--request_compile_bytes=-1"},
           {"--listen"},  // no value
           {"positional"}}) {
    auto o = ParseServerFlags(args);
    EXPECT_FALSE(o.ok()) << args[0];
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(ServerFlags, ResponseAndRequestLimits) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->engine.max_calls_per_output, 64u);
  EXPECT_EQ(d->engine.result_schema_cache_bytes, 64u << 20);
  EXPECT_EQ(d->engine.schema_pool_bytes, size_t{64} << 20);
  EXPECT_EQ(d->engine.request_compile_bytes, size_t{8} << 20);
  // The default send limit is a default client's 4 MiB receive limit, or
  // the receive limit when that is larger.
  EXPECT_EQ(MaxReceiveMessageBytes(*d), 4 * 200000 + (1 << 20));
  EXPECT_EQ(MaxSendMessageBytes(*d), 4 << 20);
  auto big = ParseServerFlags({"--max_input_bytes=2000000"});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(MaxSendMessageBytes(*big), 4 * 2000000 + (1 << 20));
  auto o = ParseServerFlags(
      {"--max_calls_per_output=8", "--result_schema_cache_bytes=0",
       "--schema_pool_bytes=0", "--max_send_message_bytes=2097152",
       "--request_compile_bytes=0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->engine.max_calls_per_output, 8u);
  EXPECT_EQ(o->engine.result_schema_cache_bytes, 0u);
  EXPECT_EQ(o->engine.schema_pool_bytes, 0u);
  EXPECT_EQ(o->engine.request_compile_bytes, 0u);
  EXPECT_EQ(MaxSendMessageBytes(*o), 2097152);
}

TEST(ServerFlags, MaxCallStreams) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->max_call_streams, 64);
  auto o = ParseServerFlags({"--max_call_streams=1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->max_call_streams, 1);
  for (const char* bad : {"--max_call_streams=0", "--max_call_streams=-1",
                          "--max_call_streams=100001"}) {
    EXPECT_EQ(ParseServerFlags({bad}).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  EXPECT_NE(ServerUsage().find("[--max_call_streams N]"), std::string::npos);
}

TEST(ServerFlags, StreamIdleTimeout) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->stream_idle_timeout_ms, 30000);
  for (const auto& [flag, ms] : std::vector<std::pair<std::string, int>>{
           {"--stream_idle_timeout_ms=100", 100},
           {"--stream_idle_timeout_ms=300", 300},
           {"--stream_idle_timeout_ms=3600000", 3600000}}) {
    auto o = ParseServerFlags({flag});
    ASSERT_TRUE(o.ok()) << flag << ": " << o.status();
    EXPECT_EQ(o->stream_idle_timeout_ms, ms) << flag;
  }
  // Below 100 ms a slow client's pause would end its stream; 0 would turn
  // the bound off. Neither is accepted, nor a typo.
  for (const char* bad :
       {"--stream_idle_timeout_ms=0", "--stream_idle_timeout_ms=99",
        "--stream_idle_timeout_ms=-1", "--stream_idle_timeout_ms=3600001",
        "--stream_idle_timeout_ms=30s", "--stream_idle_timeout_ms="}) {
    auto o = ParseServerFlags({bad});
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(o.status().message().find("--stream_idle_timeout_ms"),
              std::string::npos)
        << o.status();
  }
  EXPECT_NE(ServerUsage().find("[--stream_idle_timeout_ms N]"),
            std::string::npos);
}

TEST(ServerFlags, MetricsListenIsOffByDefaultAndDocumented) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->metrics_listen, "");
  auto o = ParseServerFlags({"--metrics_listen=127.0.0.1:9464"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->metrics_listen, "127.0.0.1:9464");
  EXPECT_NE(ServerUsage().find("--metrics_listen HOST:PORT"),
            std::string::npos);
}

TEST(ServerFlags, BoundedStateLimits) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->engine.max_snapshots, 1024u);
  EXPECT_EQ(d->engine.max_snapshot_bytes, size_t{256} << 20);
  EXPECT_EQ(d->engine.max_runs_per_tenant, 10000u);
  EXPECT_EQ(d->engine.run_idle_ttl_seconds, 3600);
  EXPECT_EQ(d->engine.approval_ttl_seconds, 900);
  EXPECT_EQ(ParseServerFlags({"--approval_ttl_seconds=60"})
                ->engine.approval_ttl_seconds,
            60);
  EXPECT_FALSE(ParseServerFlags({"--approval_ttl_seconds=0"}).ok());
  auto o = ParseServerFlags(
      {"--max_snapshots=10", "--max_snapshot_bytes=2097152",
       "--max_runs_per_tenant=5", "--run_idle_ttl_seconds", "30"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->engine.max_snapshots, 10u);
  EXPECT_EQ(o->engine.max_snapshot_bytes, 2097152u);
  EXPECT_EQ(o->engine.max_runs_per_tenant, 5u);
  EXPECT_EQ(o->engine.run_idle_ttl_seconds, 30);
  for (const char* bad : {"--max_snapshot_bytes=1000",
                          "--max_runs_per_tenant=0", "--run_idle_ttl_seconds=0",
                          "--run_idle_ttl_seconds=-5", "--max_snapshots=0"}) {
    EXPECT_EQ(ParseServerFlags({bad}).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  for (const char* flag :
       {"--max_snapshot_bytes N", "--max_runs_per_tenant N",
        "--run_idle_ttl_seconds N", "--approval_ttl_seconds N"}) {
    EXPECT_NE(ServerUsage().find(flag), std::string::npos) << flag;
  }
}

// Issue 25: the caps on protected texts, approvals and waits.
TEST(ServerFlags, RunAndApprovalCaps) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->engine.max_protected_text_bytes, size_t{64} << 20);
  EXPECT_EQ(d->engine.max_approvals, 10000u);
  EXPECT_EQ(d->engine.max_pending_approvals_per_run, 64u);
  EXPECT_EQ(d->engine.max_pending_approvals_per_tenant, 1000u);
  EXPECT_EQ(d->engine.max_approval_bytes, size_t{64} << 20);
  EXPECT_EQ(d->engine.max_waits_per_run, 4);
  EXPECT_TRUE(d->approver_identities.empty());
  auto o = ParseServerFlags(
      {"--max_protected_text_bytes=0", "--max_approvals=5",
       "--max_pending_approvals_per_run=2",
       "--max_pending_approvals_per_tenant=3", "--max_approval_bytes=2097152",
       "--max_waits_per_run=1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->engine.max_protected_text_bytes, 0u);
  EXPECT_EQ(o->engine.max_approvals, 5u);
  EXPECT_EQ(o->engine.max_pending_approvals_per_run, 2u);
  EXPECT_EQ(o->engine.max_pending_approvals_per_tenant, 3u);
  EXPECT_EQ(o->engine.max_approval_bytes, 2097152u);
  EXPECT_EQ(o->engine.max_waits_per_run, 1);
  for (const char* bad :
       {"--max_protected_text_bytes=-1", "--max_approvals=0",
        "--max_pending_approvals_per_run=0",
        "--max_pending_approvals_per_tenant=0", "--max_approval_bytes=1000",
        "--max_waits_per_run=0", "--max_waits_per_run=257"}) {
    EXPECT_EQ(ParseServerFlags({bad}).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  for (const char* flag :
       {"--max_protected_text_bytes N", "--max_pending_approvals_per_tenant N",
        "--max_waits_per_run N", "--max_approvals N",
        "--max_pending_approvals_per_run N", "--max_approval_bytes N",
        "--approver_identities ID[,ID...]"}) {
    EXPECT_NE(ServerUsage().find(flag), std::string::npos) << flag;
  }
}

TEST(ServerFlags, ApproverIdentitiesNeedMtls) {
  const std::vector<std::string> tls = {"--tls_cert_file=c", "--tls_key_file=k",
                                        "--tls_client_ca_file=ca"};
  std::vector<std::string> args = tls;
  args.push_back("--approver_identities=oncall.example,spiffe://x/approver");
  auto o = ParseServerFlags(args);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(
      o->approver_identities,
      (std::vector<std::string>{"oncall.example", "spiffe://x/approver"}));
  auto plain = ParseServerFlags({"--approver_identities=oncall.example"});
  EXPECT_EQ(plain.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(plain.status().message(), "--tls_client_ca_file"));
  for (const char* bad :
       {"--approver_identities=", "--approver_identities=a,,b",
        "--approver_identities=a,"}) {
    std::vector<std::string> with = tls;
    with.push_back(bad);
    EXPECT_FALSE(ParseServerFlags(with).ok()) << bad;
  }
}

// Half a TLS configuration is a start-up error, never a plaintext server.
TEST(ServerFlags, AuditFlagsAreOffByDefaultAndNeedALog) {
  auto d = ParseServerFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->engine.audit_payloads);
  EXPECT_FALSE(d->engine.audit_required);
  // A bare boolean flag does not swallow the next flag as its value.
  auto o = ParseServerFlags(
      {"--audit_payloads", "--audit_log", "/a", "--audit_required=true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->engine.audit_payloads);
  EXPECT_TRUE(o->engine.audit_required);
  EXPECT_EQ(o->audit_log, "/a");
  auto off = ParseServerFlags({"--audit_payloads=false"});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->engine.audit_payloads);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"--audit_required"},
           {"--audit_payloads"},
           {"--audit_required=yes", "--audit_log=/a"}}) {
    auto bad = ParseServerFlags(args);
    EXPECT_FALSE(bad.ok()) << args[0];
    EXPECT_TRUE(absl::StrContains(bad.status().message(), "--audit_"))
        << bad.status();
  }
  EXPECT_TRUE(absl::StrContains(ServerUsage(), "[--audit_required]"));
}

TEST(ServerFlags, TlsFlagsMustComeTogether) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--tls_cert_file=c.pem"}, "--tls_cert_file needs --tls_key_file"},
      {{"--tls_key_file=k.pem"}, "--tls_key_file needs --tls_cert_file"},
      {{"--tls_client_ca_file=ca.pem"},
       "--tls_client_ca_file needs --tls_cert_file and --tls_key_file"},
      {{"--tls_client_ca_file=ca.pem", "--tls_key_file=k.pem"},
       "--tls_key_file needs --tls_cert_file"},
      {{"--listen=127.0.0.1:1", "--health_listen=127.0.0.1:1"},
       "--health_listen must differ from --listen"},
  };
  for (const Case& c : cases) {
    auto o = ParseServerFlags(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0];
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(o.status().message(), c.message))
        << o.status().message();
  }
  auto ok = ParseServerFlags({"--tls_cert_file=c.pem", "--tls_key_file=k.pem",
                              "--tls_client_ca_file=ca.pem",
                              "--health_listen=0.0.0.0:8081"});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->tls_cert_file, "c.pem");
  EXPECT_EQ(ok->tls_key_file, "k.pem");
  EXPECT_EQ(ok->tls_client_ca_file, "ca.pem");
  EXPECT_EQ(ok->health_listen, "0.0.0.0:8081");
}

}  // namespace
}  // namespace server
}  // namespace toolgate
