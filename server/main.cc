// toolgate: the sidecar. See docs/operating.md.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/engine/engine.h"
#include "core/trace/tracer.h"
#include "core/util/tls_files.h"
#include "core/util/secret_file.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "server/audit_log.h"
#include "server/auth.h"
#include "server/call_streams.h"
#include "server/credentials.h"
#include "server/envoy_authz.h"
#include "server/envoy_ext_proc.h"
#include "server/manifests.h"
#include "server/metrics.h"
#include "server/options.h"
#include "server/otlp_exporter.h"
#include "server/raw_service.h"
#include "server/service.h"
#include "server/state_store.h"

namespace toolgate {
namespace server {
namespace {

// Every signal an operator or a supervisor may send is handled on one
// thread (they are blocked everywhere else): TERM/INT drain, HUP reloads,
// USR1/USR2/ALRM are logged and ignored. SIGPIPE is ignored outright so a
// closed audit pipe is a failed write, not a dead sidecar.
sigset_t HandledSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM}) {
    sigaddset(&set, sig);
  }
  return set;
}

struct Running {
  const ServerOptions *options;
  Engine *engine;
  AuditLog *audit;  // May be null.
  grpc::Server *server;
  grpc::Server *health_server;  // May be null (no --health_listen).
  std::atomic<bool> *draining;   // Set first thing when draining.
};

// Announce the drain, keep answering for the notice period, then stop
// accepting and give in-flight calls the rest of the grace period; the
// process is gone shortly after it whatever a handler is still doing.
// Why the notice: gRPC cancels every call whose request it has not read
// when Shutdown begins. On a busy server a request can wait tens of ms in
// the socket before gRPC reads it, so a call sent well before the signal
// was cancelled; during the notice such calls are read and answered, and
// clients that watch health move away.
void Drain(const Running &r, int sig) {
  std::cerr << "toolgate: signal " << sig << ", draining\n";
  r.draining->store(true);
  r.server->GetHealthCheckService()->SetServingStatus(false);
  if (r.health_server != nullptr) {
    r.health_server->GetHealthCheckService()->SetServingStatus(false);
  }
  const auto start = std::chrono::system_clock::now();
  const auto grace = std::chrono::seconds(r.options->shutdown_grace_seconds);
  std::thread([grace, audit = r.audit] {
    std::this_thread::sleep_for(grace + std::chrono::milliseconds(250));
    if (audit != nullptr) audit->Close();
    std::cerr << "toolgate: grace period over, exiting\n";
    _exit(0);
  }).detach();
  std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
      grace, std::chrono::milliseconds(r.options->drain_notice_ms)));
  r.server->Shutdown(start + grace);
  if (r.health_server != nullptr) r.health_server->Shutdown(start + grace);
}

void HandleSignals(Running r) {
  const sigset_t set = HandledSignals();
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == SIGTERM || sig == SIGINT) return Drain(r, sig);
    if (sig == SIGHUP) {
      std::cerr << "toolgate: SIGHUP, reloading manifests\n";
      ReloadManifests(r.engine, r.options->manifests_dir, std::cerr);
      continue;
    }
    std::cerr << "toolgate: signal " << sig << " ignored\n";
  }
}

std::unique_ptr<grpc::Server> Start(
    const ServerOptions &options,
    const std::shared_ptr<grpc::ServerCredentials> &credentials,
    grpc::Service *service,
    const std::vector<grpc::Service *> &more_services = {}) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, credentials, &port);
  builder.SetMaxReceiveMessageSize(MaxReceiveMessageBytes(options));
  // No response may grow without bound: past this, the call fails with
  // RESOURCE_EXHAUSTED (a deny for every client).
  builder.SetMaxSendMessageSize(MaxSendMessageBytes(options));
  builder.RegisterService(service);
  for (grpc::Service *more : more_services) builder.RegisterService(more);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    std::cerr << "toolgate: cannot listen on " << options.listen << "\n";
    return nullptr;
  }
  if (!options.port_file.empty())
    std::ofstream(options.port_file) << port << "\n";
  const char *security = options.tls_cert_file.empty() ? "plaintext"
                         : options.tls_client_ca_file.empty() ? "TLS"
                                                               : "mTLS";
  std::cerr << "toolgate: serving (" << security << ") on " << options.listen
            << (port > 0 ? absl::StrCat(" (port ", port, ")") : "") << "\n";
  return server;
}

// Drops every plugin from a ServerBuilder. grpc's reflection plugin, once
// InitProtoReflectionServerBuilderPlugin() has run, is added to every
// builder the process makes; the health-only listener must not serve it.
class NoPlugins final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments *) override {}
  void UpdatePlugins(
      std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>> *plugins)
      override {
    plugins->clear();
  }
};

// Plaintext, grpc.health.v1.Health only: what a Kubernetes `grpc:` probe
// (which cannot do TLS) can reach. It says no more than the main
// listener's health service does, and nothing else is served on it (no
// reflection: it would list the main listener's services to anyone who
// can reach the probe port). `unimplemented` (gRPC's default generic
// service: UNIMPLEMENTED for every method; must outlive the server) takes
// every other method: gRPC refuses to build a server with no service of
// its own (the health service is added at start).
std::unique_ptr<grpc::Server> StartHealthOnly(
    const std::string &listen, grpc::CallbackGenericService *unimplemented) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  builder.SetOption(std::make_unique<NoPlugins>());
  builder.RegisterCallbackGenericService(unimplemented);
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    std::cerr << "toolgate: --health_listen: cannot listen on " << listen
              << "\n";
    return nullptr;
  }
  std::cerr << "toolgate: health only (plaintext) on " << listen << "\n";
  return server;
}

int Fail(const absl::Status &status) {
  std::cerr << "toolgate: " << status.message() << "\n";
  return 1;
}

// Null when tracing is off (no --otlp_endpoint).
absl::StatusOr<std::unique_ptr<trace::Tracer>> StartTracer(
    const ServerOptions &options) {
  if (options.otlp_endpoint.empty()) return nullptr;
  OtlpOptions otlp;
  otlp.endpoint = options.otlp_endpoint;
  otlp.timeout = absl::Milliseconds(options.otlp_timeout_ms);
  if (!options.otlp_ca_file.empty()) {
    auto ca = ReadPemCertificates(options.otlp_ca_file, "otlp_ca_file");
    if (!ca.ok()) return ca.status();
    otlp.ca_pem = *std::move(ca);
  }
  auto exporter = OtlpExporter::Create(std::move(otlp));
  if (!exporter.ok()) return exporter.status();
  trace::TracerOptions t;
  t.sample_ratio = options.trace_sample_ratio;
  t.shutdown_budget = absl::Milliseconds(options.otlp_timeout_ms);
  std::cerr << "toolgate: traces to " << options.otlp_endpoint
            << " (sample ratio " << options.trace_sample_ratio << ")\n";
  return std::make_unique<trace::Tracer>(t, *std::move(exporter));
}

int Serve(const ServerOptions &options) {
  std::string token;
  if (!options.admin_token_file.empty()) {
    auto read = ReadSecretFile(options.admin_token_file, "admin_token_file");
    if (!read.ok()) return Fail(read.status());
    token = *std::move(read);
  }
  const AdminAuth auth(token, AdminAuth::IsLocalListener(options.listen),
                       options.approver_identities);
  if (!auth.CanApprove()) {
    std::cerr << "toolgate: approvals: no approver credential configured "
                 "(--admin_token_file, or --approver_identities with mTLS): "
                 "nobody can approve, so calls that need approval stay "
                 "NEEDS_APPROVAL\n";
  }
  auto credentials = ListenerCredentials(options);
  if (!credentials.ok()) return Fail(credentials.status());
  std::unique_ptr<AuditLog> audit;
  if (!options.audit_log.empty()) {
    auto opened = AuditLog::Open(options.audit_log);
    if (!opened.ok()) return Fail(opened.status());
    audit = *std::move(opened);
  }
  absl::StatusOr<std::unique_ptr<StateStore>> store =
      StateStore::Open(options.state_store, options.engine);
  if (!store.ok()) return Fail(store.status());
  if (*store != nullptr) {
    std::cerr << "toolgate: runs and approvals in " << (*store)->name()
              << "\n";
  }
  Engine engine(options.engine,
                audit ? AuditLog::SinkFor(audit.get()) : nullptr, nullptr,
                *store != nullptr ? (*store)->Factory() : nullptr);
  if (auto s = LoadManifests(&engine, options.manifests_dir, std::cerr);
      !s.ok()) {
    return Fail(s);
  }
  ToolGateService typed(&engine, &auth,
                        options.snapshot_create_admin
                            ? SnapshotCreate::kAdmin
                            : SnapshotCreate::kAnyone);
  CallStreams call_streams(options.max_call_streams,
                           options.stream_idle_timeout_ms);
  absl::StatusOr<std::unique_ptr<trace::Tracer>> tracer = StartTracer(options);
  if (!tracer.ok()) return Fail(tracer.status());
  std::unique_ptr<ServerMetrics> metrics;
  if (!options.metrics_listen.empty()) {
    auto served =
        ServerMetrics::Serve(options.metrics_listen, &engine, &call_streams);
    if (!served.ok()) return Fail(served.status());
    metrics = *std::move(served);
    metrics->set_tracer(tracer->get());
    if (*store != nullptr) (*store)->CountIn(metrics->registry());
    std::cerr << "toolgate: metrics on " << options.metrics_listen << "\n";
  }
  // Parses requests itself: an unparsable one is INVALID_ARGUMENT naming
  // the field, not INTERNAL (see raw_service.h).
  RawToolGateService service(&typed, metrics.get(), &call_streams,
                             tracer->get());
  // Envoy's ext_authz and ext_proc (docs/mesh.md), on the same listener.
  std::unique_ptr<GrantStore> mesh_grants =
      *store != nullptr ? (*store)->Grants() : std::make_unique<RunGrants>();
  EnvoyAuthzService envoy_authz(&engine, mesh_grants.get(), metrics.get(),
                                tracer->get());
  CallStreams ext_proc_streams(options.max_ext_proc_streams,
                               options.stream_idle_timeout_ms);
  EnvoyExtProcService envoy_ext_proc(&engine, mesh_grants.get(), metrics.get(),
                                     tracer->get(), &ext_proc_streams);
  std::unique_ptr<grpc::Server> server = Start(
      options, *credentials, &service, {&envoy_authz, &envoy_ext_proc});
  if (server == nullptr) return 1;
  grpc::CallbackGenericService unimplemented;
  std::unique_ptr<grpc::Server> health;
  if (!options.health_listen.empty()) {
    health = StartHealthOnly(options.health_listen, &unimplemented);
    if (health == nullptr) return 1;
    // Readiness (can this replica decide?) apart from liveness ("").
    health->GetHealthCheckService()->SetServingStatus(kReadinessService,
                                                      true);
  }
  std::atomic<bool> draining{false};
  std::thread signals(HandleSignals,
                      Running{&options, &engine, audit.get(), server.get(),
                              health.get(), &draining});
  std::unique_ptr<StoreHealth> store_health;
  if (*store != nullptr) {
    store_health = std::make_unique<StoreHealth>(
        store->get(), server.get(), health.get(), &draining);
  }
  // Idle runs are refused from the moment they expire; this frees them
  // (and unpins their snapshots) even when no OpenRun comes to sweep.
  // std:: primitives, not absl::Notification: TSan follows pthread's
  // condition variables, not Debian's uninstrumented absl waits.
  std::mutex sweep_mu;
  std::condition_variable sweep_cv;
  bool stop_sweeping = false;
  std::thread sweeper([&] {
    const absl::Duration every = std::clamp(
        absl::Seconds(options.engine.run_idle_ttl_seconds) / 4,
        absl::Seconds(1), absl::Seconds(60));
    std::unique_lock<std::mutex> lock(sweep_mu);
    while (!sweep_cv.wait_for(lock, absl::ToChronoSeconds(every),
                              [&] { return stop_sweeping; })) {
      lock.unlock();
      engine.SweepIdleRuns();
      lock.lock();
    }
  });
  server->Wait();
  if (health != nullptr) health->Wait();
  {
    std::lock_guard<std::mutex> lock(sweep_mu);
    stop_sweeping = true;
  }
  sweep_cv.notify_all();
  sweeper.join();
  signals.join();
  store_health.reset();
  if (audit != nullptr) audit->Close();
  std::cerr << "toolgate: stopped\n";
  return 0;
}

}  // namespace
}  // namespace server
}  // namespace toolgate

int main(int argc, char **argv) {
  // Debian's Abseil is built without NDEBUG, so every absl::Mutex lock
  // also fed the deadlock detector's lock graph (about 2% of a loaded
  // server's CPU in perf). Lock order is kept by design and checked by
  // the TSan runs, not at run time in production.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Before gRPC starts threads: every thread inherits the mask, so only
  // the signal thread (sigwait) ever sees these.
  signal(SIGPIPE, SIG_IGN);
  const sigset_t signals = toolgate::server::HandledSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << toolgate::server::ServerUsage();
    return 0;
  }
  auto options = toolgate::server::ParseServerFlags(args);
  if (!options.ok()) {
    std::cerr << "toolgate: " << options.status().message() << "\n"
              << toolgate::server::ServerUsage();
    return 2;
  }
  return toolgate::server::Serve(*options);
}
