#include "server/state_store.h"

#include <array>
#include <iostream>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/redis/address.h"
#include "core/state/redis_run_directory.h"
#include "core/state/redis_run_state.h"
#include "core/state/redis_snapshot_backing.h"
#include "core/util/secret_file.h"
#include "core/util/tls_files.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "server/redis_grants.h"

namespace toolgate {
namespace server {
namespace {

// Every operation the store's clients name (a closed set: label values);
// anything else is counted as "other".
constexpr const char* kOperations[] = {
    "call_commit",    "call_refund",      "output_record",   "run_reset",
    "approval_admit", "approval_unadmit", "approval_decide", "approval_ids",
    "approval_runs",  "approval_list",    "approval_load",   "approval_index",
    "approval_tenant_done", "run_open",   "run_discard",     "run_load",
    "run_lease",      "run_close",        "snap_publish",    "snap_name",
    "snap_fetch",     "snap_delete",      "snap_list",       "grant_issue",
    "grant_take",     "wait_begin",       "wait_end",        "ping",
    "other"};
constexpr std::array<const char*, 4> kResults = {"ok", "error", "timeout",
                                                 "unavailable"};

absl::StatusOr<redis::ClientOptions> ClientOptionsFor(
    const StateStoreOptions& o) {
  redis::ClientOptions client;
  absl::StatusOr<redis::Address> address = redis::ParseAddress(o.url);
  if (!address.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--state_store: ", address.status().message()));
  }
  client.connect.address = *std::move(address);
  if (!o.password_file.empty()) {
    auto password =
        ReadSecretFile(o.password_file, "state_store_password_file");
    if (!password.ok()) return password.status();
    client.connect.password = *std::move(password);
  }
  const bool tls =
      client.connect.address.transport == redis::Address::Transport::kTls;
  if (!tls && (!o.ca_file.empty() || !o.cert_file.empty())) {
    return absl::InvalidArgumentError(
        "--state_store_ca_file, --state_store_cert_file and "
        "--state_store_key_file need a rediss:// --state_store");
  }
  if (!o.ca_file.empty()) {
    auto ca = ReadPemCertificates(o.ca_file, "state_store_ca_file");
    if (!ca.ok()) return ca.status();
    client.connect.tls.ca = *std::move(ca);
  }
  if (!o.cert_file.empty()) {
    auto pair = ReadPemKeyPair(o.cert_file, "state_store_cert_file",
                               o.key_file, "state_store_key_file");
    if (!pair.ok()) return pair.status();
    client.connect.tls.cert = std::move(pair->cert_pem);
    client.connect.tls.key = std::move(pair->key_pem);
  }
  client.timeout = absl::Milliseconds(o.timeout_ms);
  return client;
}

// A store that evicts keys under memory pressure would forget runs (and
// their spent budgets with them) or the caps' leases: toolgate needs
// `noeviction`, so that a full store refuses (UNAVAILABLE) instead. Said at
// start-up; a managed store that hides CONFIG is not second-guessed.
void WarnUnlessNoEviction(redis::Client& client) {
  absl::StatusOr<redis::Reply> policy = client.Run(
      "other", {"CONFIG", "GET", "maxmemory-policy"});
  if (!policy.ok() || policy->elements.size() != 2) return;
  const std::string& value = policy->elements[1].str;
  if (value == "noeviction") return;
  std::cerr << "toolgate: WARNING: " << client.name()
            << " has maxmemory-policy " << value
            << ": under memory pressure it may evict runs, approvals or the "
               "caps' counts; set maxmemory-policy noeviction (docs/state.md)\n";
}

}  // namespace

absl::StatusOr<std::unique_ptr<StateStore>> StateStore::Open(
    const StateStoreOptions& options, const EngineOptions& engine) {
  if (options.url == "memory") return nullptr;
  absl::StatusOr<redis::ClientOptions> client_options =
      ClientOptionsFor(options);
  if (!client_options.ok()) return client_options.status();
  auto client =
      redis::Client::Connect(*std::move(client_options), absl::Seconds(5));
  if (!client.ok()) return client.status();
  WarnUnlessNoEviction(**client);
  return std::unique_ptr<StateStore>(
      new StateStore(*std::move(client), options, engine));
}

StateStore::StateStore(std::unique_ptr<redis::Client> client,
                       StateStoreOptions options, EngineOptions engine)
    : client_(std::move(client)),
      options_(std::move(options)),
      engine_(std::move(engine)) {}

state::SharedStateFactory StateStore::Factory() {
  return [this](SnapshotStore& snapshots) {
    state::RedisRunDirectoryOptions runs;
    runs.key_prefix = options_.key_prefix;
    runs.max_runs = engine_.max_runs;
    runs.max_runs_per_tenant = engine_.max_runs_per_tenant;
    runs.idle_ttl = absl::Seconds(engine_.run_idle_ttl_seconds);
    runs.max_protected_text_bytes = engine_.max_protected_text_bytes;
    state::RedisRunStateOptions approvals;
    approvals.key_prefix = options_.key_prefix;
    approvals.approval_ttl = absl::Seconds(engine_.approval_ttl_seconds);
    approvals.max_approvals = engine_.max_approvals;
    approvals.max_bytes = engine_.max_approval_bytes;
    approvals.max_pending_per_run = engine_.max_pending_approvals_per_run;
    approvals.max_pending_per_tenant = engine_.max_pending_approvals_per_tenant;
    state::SharedState shared;
    shared.snapshots = std::make_unique<state::RedisSnapshotBacking>(
        *client_, options_.key_prefix);
    snapshots.SetBacking(shared.snapshots.get());
    shared.runs = std::make_unique<state::RedisRunDirectory>(
        *client_, runs,
        [&snapshots](absl::string_view id) { return snapshots.Get(id); });
    shared.run_state =
        std::make_unique<state::RedisRunState>(*client_, approvals);
    auto ledger =
        std::make_unique<state::RedisApprovalLedger>(*client_, approvals);
    // A snapshot deleted on another replica goes from here too.
    ledger->events().OnSnapshotDeleted(
        [&snapshots](absl::string_view id) { snapshots.ForgetDeleted(id); });
    shared.approvals = std::move(ledger);
    return shared;
  };
}

std::unique_ptr<GrantStore> StateStore::Grants() {
  return std::make_unique<RedisGrants>(*client_, options_.key_prefix);
}

void StateStore::CountIn(prometheus::Registry& registry) {
  auto& requests = prometheus::BuildCounter()
                       .Name("toolgate_state_store_requests_total")
                       .Help("Requests to the shared state store, by "
                             "operation and result (ok, error, timeout, "
                             "unavailable)")
                       .Register(registry);
  auto& seconds = prometheus::BuildHistogram()
                      .Name("toolgate_state_store_request_seconds")
                      .Help("Round trips to the shared state store")
                      .Register(registry);
  using Counters = std::array<prometheus::Counter*, kResults.size()>;
  auto children = std::make_shared<
      absl::flat_hash_map<std::string, std::pair<Counters, prometheus::Histogram*>>>();
  const prometheus::Histogram::BucketBoundaries buckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
      0.25, 0.5, 1.0};
  for (const char* op : kOperations) {
    Counters counters;
    for (size_t r = 0; r < kResults.size(); ++r) {
      counters[r] = &requests.Add({{"operation", op}, {"result", kResults[r]}});
    }
    (*children)[op] = {counters, &seconds.Add({{"operation", op}}, buckets)};
  }
  client_->SetObserver([children](absl::string_view operation,
                                  absl::string_view result,
                                  absl::Duration elapsed) {
    auto it = children->find(operation);
    if (it == children->end()) it = children->find("other");
    for (size_t r = 0; r < kResults.size(); ++r) {
      if (result == kResults[r]) it->second.first[r]->Increment();
    }
    it->second.second->Observe(absl::ToDoubleSeconds(elapsed));
  });
}

absl::Status StateStore::Ping() {
  absl::StatusOr<redis::Reply> pong = client_->Run("ping", {"PING"});
  if (!pong.ok()) return pong.status();
  if (pong->str != "PONG") {
    return absl::UnavailableError(
        absl::StrCat(client_->name(), ": unexpected answer to PING"));
  }
  return absl::OkStatus();
}

StoreHealth::StoreHealth(StateStore* store, grpc::Server* server,
                         grpc::Server* health_server,
                         const std::atomic<bool>* draining)
    : store_(store),
      server_(server),
      health_server_(health_server),
      draining_(draining) {
  thread_ = std::thread([this] { Loop(); });
}

StoreHealth::~StoreHealth() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
}

void StoreHealth::Loop() {
  bool serving = true;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_cv_.wait_for(lock, std::chrono::seconds(1),
                            [this] { return stop_; })) {
    lock.unlock();
    const absl::Status ping = store_->Ping();
    const bool up = ping.ok() && !draining_->load();
    if (up != serving && !draining_->load()) {
      server_->GetHealthCheckService()->SetServingStatus(up);
      if (health_server_ != nullptr) {
        health_server_->GetHealthCheckService()->SetServingStatus(
            kReadinessService, up);
      }
      std::cerr << "toolgate: " << store_->name()
                << (up ? " answers again: serving\n"
                       : absl::StrCat(" does not answer (", ping.message(),
                                      "): not serving\n"));
    }
    serving = up;
    lock.lock();
  }
}

}  // namespace server
}  // namespace toolgate
