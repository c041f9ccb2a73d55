// toolgate: the sidecar. See README.md.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/engine/engine.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "schemas/embedded_examples.h"
#include "server/options.h"
#include "server/raw_service.h"
#include "server/service.h"

namespace toolgate {
namespace server {
namespace {

// "tickets.openai.json" -> "tickets": the format part is not the name.
std::string SnapshotName(const std::filesystem::path& file) {
  std::string stem = file.stem().string();
  return stem.substr(0, stem.find('.'));
}

absl::Status AddManifest(Engine* engine, const std::string& name,
                         const std::string& source, const std::string& json) {
  auto snapshot = engine->CreateSnapshot(json, ManifestFormat::kAuto, name);
  if (!snapshot.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", snapshot.status().message()));
  }
  std::cerr << "toolgate: snapshot \"" << name << "\" " << (*snapshot)->id()
            << " from " << source << " (" << (*snapshot)->tool_names().size()
            << " tools)\n";
  return absl::OkStatus();
}

absl::Status LoadManifests(Engine* engine, const std::string& dir) {
  if (dir.empty()) {
    for (const EmbeddedManifest& m : EmbeddedExampleManifests()) {
      auto s = AddManifest(engine, m.name, absl::StrCat("embedded ", m.file),
                           m.contents);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  if (ec) return absl::NotFoundError(absl::StrCat(dir, ": ", ec.message()));
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat("no *.json manifests in ", dir));
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    auto s = AddManifest(engine, SnapshotName(file), file.string(), buf.str());
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// One JSON line per decision; never argument values.
AuditSink MakeAuditSink(const std::string& path) {
  if (path.empty()) return nullptr;
  struct Log {
    absl::Mutex mu;
    std::ofstream file;
  };
  auto log = std::make_shared<Log>();
  if (path != "-") log->file.open(path, std::ios::app);
  return [log, to_stderr = path == "-"](const AuditRecord& r) {
    Json line = {{"audit_id", r.audit_id},
                 {"rpc", r.rpc},
                 {"snapshot_id", r.snapshot_id},
                 {"run_id", r.run_id},
                 {"decision", r.decision},
                 {"stop_reason", r.stop_reason},
                 {"tools", r.tools},
                 {"codes", r.codes}};
    const std::string text = CanonicalJson(line) + "\n";
    absl::MutexLock lock(&log->mu);
    if (to_stderr) {
      std::cerr << text;
    } else {
      log->file << text << std::flush;
    }
  };
}

// SIGTERM/SIGINT: stop accepting, let in-flight calls finish, then return.
void ShutdownOnSignal(grpc::Server* server, int grace_seconds,
                      const sigset_t& signals) {
  int sig = 0;
  sigwait(&signals, &sig);
  std::cerr << "toolgate: signal " << sig << ", draining\n";
  server->GetHealthCheckService()->SetServingStatus(false);
  server->Shutdown(std::chrono::system_clock::now() +
                   std::chrono::seconds(grace_seconds));
}

int Serve(const ServerOptions& options) {
  Engine engine(options.engine, MakeAuditSink(options.audit_log));
  if (auto s = LoadManifests(&engine, options.manifests_dir); !s.ok()) {
    std::cerr << "toolgate: " << s.message() << "\n";
    return 1;
  }
  ToolGateService typed(&engine);
  // Parses requests itself: an unparsable one is INVALID_ARGUMENT naming
  // the field, not INTERNAL (see raw_service.h).
  RawToolGateService service(&typed);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(),
                           &port);
  builder.SetMaxReceiveMessageSize(MaxReceiveMessageBytes(options));
  // No response may grow without bound: past this, the call fails with
  // RESOURCE_EXHAUSTED (a deny for every client).
  builder.SetMaxSendMessageSize(MaxSendMessageBytes(options));
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    std::cerr << "toolgate: cannot listen on " << options.listen << "\n";
    return 1;
  }
  if (!options.port_file.empty())
    std::ofstream(options.port_file) << port << "\n";
  std::cerr << "toolgate: serving on " << options.listen
            << (port > 0 ? absl::StrCat(" (port ", port, ")") : "") << "\n";
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  std::thread stopper(ShutdownOnSignal, server.get(),
                      options.shutdown_grace_seconds, signals);
  server->Wait();
  stopper.join();
  std::cerr << "toolgate: stopped\n";
  return 0;
}

}  // namespace
}  // namespace server
}  // namespace toolgate

int main(int argc, char** argv) {
  // Block the stop signals before gRPC starts threads, so only the
  // stopper thread receives them (via sigwait).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
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
