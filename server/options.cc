#include "server/options.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/redis/address.h"

namespace toolgate {
namespace server {
namespace {

using Setter = std::function<absl::Status(const std::string&, ServerOptions*)>;

Setter Text(std::string ServerOptions::*field) {
  return [field](const std::string& v, ServerOptions* o) {
    o->*field = v;
    return absl::OkStatus();
  };
}

Setter Text(std::function<std::string*(ServerOptions*)> field) {
  return [field](const std::string& v, ServerOptions* o) {
    *field(o) = v;
    return absl::OkStatus();
  };
}

template <typename Int>
Setter Number(std::function<Int*(ServerOptions*)> field, int64_t min,
              int64_t max) {
  return [field, min, max](const std::string& v, ServerOptions* o) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(v, &n) || n < min || n > max) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected an integer from ", min, " to ", max, ", got \"", v, "\""));
    }
    *field(o) = static_cast<Int>(n);
    return absl::OkStatus();
  };
}

// Boolean flags: `--name` alone is true; `--name=true|false` also parse.
Setter Bool(bool EngineOptions::*field) {
  return [field](const std::string& v, ServerOptions* o) {
    if (v != "true" && v != "false") {
      return absl::InvalidArgumentError(
          absl::StrCat("expected true or false, got \"", v, "\""));
    }
    o->engine.*field = v == "true";
    return absl::OkStatus();
  };
}

const std::map<std::string, Setter>& BoolSetters() {
  static const auto* kSetters = new std::map<std::string, Setter>{
      {"audit_payloads", Bool(&EngineOptions::audit_payloads)},
      {"audit_required", Bool(&EngineOptions::audit_required)},
  };
  return *kSetters;
}

const std::map<std::string, Setter>& Setters() {
  static const auto* kSetters = new std::map<std::string, Setter>{
      {"listen", Text(&ServerOptions::listen)},
      {"manifests", Text(&ServerOptions::manifests_dir)},
      {"audit_log", Text(&ServerOptions::audit_log)},
      {"port_file", Text(&ServerOptions::port_file)},
      {"metrics_listen", Text(&ServerOptions::metrics_listen)},
      {"admin_token_file", Text(&ServerOptions::admin_token_file)},
      {"tls_cert_file", Text(&ServerOptions::tls_cert_file)},
      {"tls_key_file", Text(&ServerOptions::tls_key_file)},
      {"tls_client_ca_file", Text(&ServerOptions::tls_client_ca_file)},
      {"health_listen", Text(&ServerOptions::health_listen)},
      {"otlp_endpoint", Text(&ServerOptions::otlp_endpoint)},
      {"otlp_ca_file", Text(&ServerOptions::otlp_ca_file)},
      {"otlp_timeout_ms",
       Number<int>([](ServerOptions* o) { return &o->otlp_timeout_ms; }, 10,
                   60000)},
      {"trace_sample_ratio",
       [](const std::string& v, ServerOptions* o) {
         double r = 0;
         if (!absl::SimpleAtod(v, &r) || !(r >= 0 && r <= 1)) {
           return absl::InvalidArgumentError(absl::StrCat(
               "expected a ratio from 0 to 1, got \"", v, "\""));
         }
         o->trace_sample_ratio = r;
         return absl::OkStatus();
       }},
      {"approver_identities",
       [](const std::string& v, ServerOptions* o) {
         o->approver_identities = absl::StrSplit(v, ',');
         for (const std::string& id : o->approver_identities) {
           if (id.empty() || id.size() > 1024) {
             return absl::InvalidArgumentError(
                 "expected a comma-separated list of certificate identities "
                 "(none empty)");
           }
         }
         return absl::OkStatus();
       }},
      {"snapshot_create",
       [](const std::string& v, ServerOptions* o) {
         if (v != "admin" && v != "any") {
           return absl::InvalidArgumentError(
               absl::StrCat("expected admin or any, got \"", v, "\""));
         }
         o->snapshot_create_admin = v == "admin";
         return absl::OkStatus();
       }},
      {"max_input_bytes",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.limits.max_bytes; }, 1,
           64 << 20)},
      {"max_depth",
       Number<int>([](ServerOptions* o) { return &o->engine.limits.max_depth; },
                   1, 10000)},
      {"max_runs",
       Number<size_t>([](ServerOptions* o) { return &o->engine.max_runs; }, 1,
                      100000000)},
      {"max_snapshots",
       Number<size_t>([](ServerOptions* o) { return &o->engine.max_snapshots; },
                      1, 1000000)},
      {"max_snapshot_bytes",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.max_snapshot_bytes; },
           1 << 20, int64_t{1} << 40)},
      {"max_runs_per_tenant",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.max_runs_per_tenant; }, 1,
           100000000)},
      {"run_idle_ttl_seconds",
       Number<int64_t>(
           [](ServerOptions* o) { return &o->engine.run_idle_ttl_seconds; }, 1,
           int64_t{30} * 24 * 3600)},
      {"approval_ttl_seconds",
       Number<int64_t>(
           [](ServerOptions* o) { return &o->engine.approval_ttl_seconds; }, 1,
           int64_t{7} * 24 * 3600)},
      {"max_approvals",
       Number<size_t>([](ServerOptions* o) { return &o->engine.max_approvals; },
                      1, 100000000)},
      {"max_pending_approvals_per_run",
       Number<size_t>(
           [](ServerOptions* o) {
             return &o->engine.max_pending_approvals_per_run;
           },
           1, 100000000)},
      {"max_pending_approvals_per_tenant",
       Number<size_t>(
           [](ServerOptions* o) {
             return &o->engine.max_pending_approvals_per_tenant;
           },
           1, 100000000)},
      {"max_approval_bytes",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.max_approval_bytes; },
           1 << 20, int64_t{1} << 40)},
      {"max_waits_per_run",
       Number<int>(
           [](ServerOptions* o) { return &o->engine.max_waits_per_run; }, 1,
           256)},
      {"max_protected_text_bytes",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.max_protected_text_bytes; },
           0, int64_t{1} << 40)},
      {"max_stream_events",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.max_stream_events; }, 1,
           100000000)},
      {"max_calls_per_output",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.max_calls_per_output; }, 1,
           10000)},
      {"result_schema_cache_bytes",
       Number<size_t>(
           [](ServerOptions* o) {
             return &o->engine.result_schema_cache_bytes;
           },
           0, int64_t{1} << 36)},
      {"schema_pool_bytes",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.schema_pool_bytes; }, 0,
           int64_t{1} << 40)},
      {"request_compile_bytes",
       Number<size_t>(
           [](ServerOptions* o) { return &o->engine.request_compile_bytes; }, 0,
           int64_t{1} << 40)},
      {"max_send_message_bytes",
       Number<int64_t>(
           [](ServerOptions* o) { return &o->max_send_message_bytes; }, 1 << 20,
           (int64_t{1} << 31) - 1)},
      {"max_call_streams",
       Number<int>([](ServerOptions* o) { return &o->max_call_streams; }, 1,
                   100000)},
      {"max_ext_proc_streams",
       Number<int>([](ServerOptions* o) { return &o->max_ext_proc_streams; },
                   1, 100000)},
      {"stream_idle_timeout_ms",
       Number<int>(
           [](ServerOptions* o) { return &o->stream_idle_timeout_ms; }, 100,
           3600 * 1000)},
      {"shutdown_grace_seconds",
       Number<int>([](ServerOptions* o) { return &o->shutdown_grace_seconds; },
                   0, 3600)},
      {"state_store",
       [](const std::string& v, ServerOptions* o) {
         if (v != "memory") {
           if (auto address = redis::ParseAddress(v); !address.ok()) {
             return address.status();
           }
         }
         o->state_store.url = v;
         return absl::OkStatus();
       }},
      {"state_store_password_file",
       Text([](ServerOptions* o) { return &o->state_store.password_file; })},
      {"state_store_ca_file",
       Text([](ServerOptions* o) { return &o->state_store.ca_file; })},
      {"state_store_cert_file",
       Text([](ServerOptions* o) { return &o->state_store.cert_file; })},
      {"state_store_key_file",
       Text([](ServerOptions* o) { return &o->state_store.key_file; })},
      {"state_store_timeout_ms",
       Number<int>([](ServerOptions* o) { return &o->state_store.timeout_ms; },
                   1, 60000)},
      {"state_store_key_prefix",
       [](const std::string& v, ServerOptions* o) {
         if (v.size() > 128 || v.find_first_of(" \t\r\n{}") != v.npos) {
           return absl::InvalidArgumentError(
               "expected at most 128 bytes without spaces or braces (braces "
               "would change Redis Cluster's hash slots)");
         }
         o->state_store.key_prefix = v;
         return absl::OkStatus();
       }},
      {"drain_notice_ms",
       Number<int>([](ServerOptions* o) { return &o->drain_notice_ms; }, 0,
                   3600 * 1000)},
  };
  return *kSetters;
}

// Half a TLS configuration must not start a plaintext server.
absl::Status CheckTlsFlags(const ServerOptions& o) {
  if (o.tls_cert_file.empty() != o.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        o.tls_cert_file.empty()
            ? "--tls_key_file needs --tls_cert_file (no TLS without both)"
            : "--tls_cert_file needs --tls_key_file (no TLS without both)");
  }
  if (!o.tls_client_ca_file.empty() && o.tls_cert_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_client_ca_file needs --tls_cert_file and --tls_key_file");
  }
  // Without mTLS no certificate is verified: nothing to match them against.
  if (!o.approver_identities.empty() && o.tls_client_ca_file.empty()) {
    return absl::InvalidArgumentError(
        "--approver_identities needs --tls_client_ca_file (mTLS)");
  }
  const StateStoreOptions& store = o.state_store;
  if (store.url == "memory" &&
      (!store.password_file.empty() || !store.ca_file.empty() ||
       !store.cert_file.empty() || !store.key_file.empty())) {
    return absl::InvalidArgumentError(
        "--state_store_password_file, --state_store_ca_file, "
        "--state_store_cert_file and --state_store_key_file need "
        "--state_store=redis://..., rediss://... or unix://...");
  }
  if (store.cert_file.empty() != store.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--state_store_cert_file and --state_store_key_file come together");
  }
  if (o.otlp_endpoint.empty() && !o.otlp_ca_file.empty()) {
    return absl::InvalidArgumentError("--otlp_ca_file needs --otlp_endpoint");
  }
  if (!o.health_listen.empty() && o.health_listen == o.listen) {
    return absl::InvalidArgumentError(
        "--health_listen must differ from --listen");
  }
  // With nowhere to write, every decision would go unaudited.
  if ((o.engine.audit_required || o.engine.audit_payloads) &&
      o.audit_log.empty()) {
    return absl::InvalidArgumentError(
        o.engine.audit_required ? "--audit_required needs --audit_log"
                                : "--audit_payloads needs --audit_log");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServerOptions> ParseServerFlags(
    const std::vector<std::string>& args) {
  ServerOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg.substr(0, 2) != "--") {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument ", arg));
    }
    arg.remove_prefix(2);
    std::string name(arg.substr(0, arg.find('=')));
    const bool boolean = BoolSetters().count(name) > 0;
    std::string value;
    if (arg.find('=') != absl::string_view::npos) {
      value = std::string(arg.substr(arg.find('=') + 1));
    } else if (boolean) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " needs a value"));
    }
    const auto& setters = boolean ? BoolSetters() : Setters();
    auto it = setters.find(name);
    if (it == setters.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (auto s = it->second(value, &options); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, ": ", s.message()));
    }
  }
  if (absl::Status s = CheckTlsFlags(options); !s.ok()) return s;
  return options;
}

int MaxReceiveMessageBytes(const ServerOptions& options) {
  const int64_t bytes =
      4 * static_cast<int64_t>(options.engine.limits.max_bytes) + (1 << 20);
  return static_cast<int>(std::min<int64_t>(bytes, (int64_t{1} << 31) - 1));
}

int MaxSendMessageBytes(const ServerOptions& options) {
  if (options.max_send_message_bytes > 0) {
    return static_cast<int>(options.max_send_message_bytes);
  }
  return std::max(4 << 20, MaxReceiveMessageBytes(options));
}

std::string ServerUsage() {
  return "usage: toolgate [--listen HOST:PORT|unix:PATH] [--manifests DIR]\n"
         "                [--max_input_bytes N] [--max_depth N] [--max_runs "
         "N]\n"
         "                [--max_snapshots N] [--max_snapshot_bytes N]\n"
         "                [--max_runs_per_tenant N] [--run_idle_ttl_seconds "
         "N]\n"
         "                [--max_calls_per_output N] "
         "[--approval_ttl_seconds N]\n"
         "                [--max_approvals N] "
         "[--max_pending_approvals_per_run N]\n"
         "                [--max_pending_approvals_per_tenant N] "
         "[--max_approval_bytes N]\n"
         "                [--max_waits_per_run N] "
         "[--max_protected_text_bytes N]\n"
         "                [--result_schema_cache_bytes N] "
         "[--max_stream_events N]\n"
         "                [--schema_pool_bytes N] [--max_call_streams N]\n"
         "                [--max_ext_proc_streams N] "
         "[--stream_idle_timeout_ms N]\n"
         "                [--request_compile_bytes N]\n"
         "                [--max_send_message_bytes N] [--audit_log PATH|-]\n"
         "                [--audit_payloads] [--audit_required]\n"
         "                [--port_file PATH] [--shutdown_grace_seconds N]\n"
         "                [--drain_notice_ms N] [--metrics_listen HOST:PORT]\n"
         "                [--admin_token_file PATH] "
         "[--snapshot_create admin|any]\n"
         "                [--tls_cert_file PEM --tls_key_file PEM "
         "[--tls_client_ca_file PEM]]\n"
         "                [--approver_identities ID[,ID...]]\n"
         "                [--health_listen HOST:PORT]\n"
         "                [--otlp_endpoint HOST:PORT [--otlp_ca_file PEM]\n"
         "                 [--trace_sample_ratio R] [--otlp_timeout_ms N]]\n"
         "                [--state_store memory|redis://[USER@]HOST:PORT[/DB]|"
         "rediss://...|unix:///PATH\n"
         "                 [--state_store_password_file PATH]\n"
         "                 [--state_store_ca_file PEM]\n"
         "                 [--state_store_cert_file PEM "
         "--state_store_key_file PEM]\n"
         "                 [--state_store_timeout_ms N] "
         "[--state_store_key_prefix P]]\n";
}

}  // namespace server
}  // namespace toolgate
