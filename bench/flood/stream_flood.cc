// Flood of the issue 25 resources against a real server with its default
// limits, watching its memory and CPU:
//
//  1. open streams: --streams ValidateToolCallStream calls, each filled to
//     just under the events' byte limit with text (the most a stream holds)
//     and left open. At most --max_call_streams are accepted, the rest are
//     RESOURCE_EXHAUSTED; the server's peak RSS stays under the bound.
//     Then one more message each: every stream is answered at once
//     (input_too_large) without half-closing.
//  2. one stream past its limit: it keeps sending up to --past_limit_mb
//     without half-closing. The server answers once the limit is passed;
//     the client's writes fail after a few MB, and the server's CPU for
//     the phase stays under --max_stream_cpu_seconds.
//  3. bad files on reload: --manifests holds a FIFO, symlinks to
//     /dev/urandom and /dev/zero, a directory, a socket and a 1 TB sparse
//     file, all *.json; --sighups reloads each refuse them while a good
//     file reloads, the old snapshots keep serving, memory and CPU stay
//     bounded and SIGTERM ends the server within its grace period.
//
//   stream_flood [--streams=400] [--past_limit_mb=3300] [--sighups=50]
//                [--max_call_streams=0 (the server's default)]
//                [--max_peak_rss_mb=1024] [--max_stream_cpu_seconds=2]
//                [--max_reload_cpu_seconds=5] [--worst=false]
//
// Prints one JSON object; exits 0 only when every check held.
// bench/flood/run_stream_flood.sh runs the full size; the
// //bench/flood:stream_flood_smoke_test a small one.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/config.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "server/call_streams.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace flood {
namespace {

using Json = nlohmann::json;

struct Options {
  int64_t streams = 400;
  int64_t past_limit_mb = 3300;
  int64_t sighups = 50;
  int64_t max_call_streams = 0;
  int64_t max_peak_rss_mb = 1024;
  double max_stream_cpu_seconds = 2;
  double max_reload_cpu_seconds = 5;
  // The most one stream can hold: --audit_payloads (its events kept too)
  // and a header of 1.5 MB (an approval_id), with text events.
  bool worst = false;
};

bool ParseFlags(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::vector<std::string> kv =
        absl::StrSplit(argv[i], absl::MaxSplits('=', 1));
    bool ok = kv.size() == 2;
    if (!ok) {
    } else if (kv[0] == "--streams") {
      ok = absl::SimpleAtoi(kv[1], &o->streams);
    } else if (kv[0] == "--past_limit_mb") {
      ok = absl::SimpleAtoi(kv[1], &o->past_limit_mb);
    } else if (kv[0] == "--sighups") {
      ok = absl::SimpleAtoi(kv[1], &o->sighups);
    } else if (kv[0] == "--max_call_streams") {
      ok = absl::SimpleAtoi(kv[1], &o->max_call_streams);
    } else if (kv[0] == "--worst") {
      ok = kv[1] == "true" || kv[1] == "false";
      o->worst = kv[1] == "true";
    } else if (kv[0] == "--max_peak_rss_mb") {
      ok = absl::SimpleAtoi(kv[1], &o->max_peak_rss_mb);
    } else if (kv[0] == "--max_stream_cpu_seconds") {
      ok = absl::SimpleAtod(kv[1], &o->max_stream_cpu_seconds);
    } else if (kv[0] == "--max_reload_cpu_seconds") {
      ok = absl::SimpleAtod(kv[1], &o->max_reload_cpu_seconds);
    } else {
      ok = false;
    }
    if (!ok) {
      std::cerr << "stream_flood: bad flag " << argv[i] << "\n";
      return false;
    }
  }
  return true;
}

// A /proc/<pid>/status field in kB; -1 when unreadable.
int64_t StatusKb(int pid, absl::string_view field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, absl::StrCat(field, ":"))) continue;
    std::istringstream rest(line.substr(field.size() + 1));
    int64_t kb = -1;
    rest >> kb;
    return kb;
  }
  return -1;
}

// User + system CPU seconds of `pid` so far; -1 when unreadable.
double CpuSeconds(int pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat;
  std::getline(in, stat);
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 2));
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;  // state .. cmajflt
  int64_t utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) return -1;
  return static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK);
}

// The events' byte limit at the default --max_input_bytes.
constexpr int64_t kStreamBytes = 4 * 200000 + (1 << 20);

std::string TextChunk(size_t n) {
  return R"({"object":"chat.completion.chunk","choices":[{"index":0,)"
         R"("delta":{"content":")" +
         std::string(n, 'x') + R"("}}]})";
}

// ~100 KB of text in ten chunks.
const v1::ToolCallStreamRequest& Filler() {
  static const auto* filler = [] {
    auto* m = new v1::ToolCallStreamRequest;
    for (int i = 0; i < 10; ++i) m->add_events(TextChunk(10000));
    return m;
  }();
  return *filler;
}

struct Stream {
  grpc::ClientContext ctx;
  v1::ValidateToolCallResponse resp;
  std::unique_ptr<grpc::ClientWriter<v1::ToolCallStreamRequest>> writer;
  bool open = true;
};

std::string Code(const v1::ValidateToolCallResponse& r) {
  return r.violations_size() > 0 ? r.violations(0).code() : "";
}

class Flood {
 public:
  Flood(const Options& o, testutil::ServerProcess* server,
        const std::string& snapshot)
      : o_(o), server_(server), snapshot_(snapshot) {
    // Several connections: no one connection's stream limit shapes this.
    for (int i = 0; i < 8; ++i) {
      channels_.push_back(grpc::CreateChannel(
          server->address(), grpc::InsecureChannelCredentials()));
    }
  }

  std::unique_ptr<Stream> Open(int i) {
    auto s = std::make_unique<Stream>();
    s->ctx.set_deadline(std::chrono::system_clock::now() +
                        std::chrono::minutes(10));
    auto stub = v1::ToolGate::NewStub(channels_[i % channels_.size()]);
    s->writer = stub->ValidateToolCallStream(&s->ctx, &s->resp);
    v1::ToolCallStreamRequest header;
    header.set_snapshot_id(snapshot_);
    header.set_stream_format(v1::STREAM_FORMAT_OPENAI_CHAT);
    if (o_.worst) header.set_approval_id(std::string(1500000, 'a'));
    s->open = s->writer->Write(header);
    return s;
  }

  // Phase 1. A refused call cannot be told by its writes (they go into
  // flow-control windows whatever the server did): each call's answer
  // says, once it has passed its limit.
  bool OpenStreams(Json* report) {
    std::vector<std::unique_ptr<Stream>> streams;
    const int64_t rss_before = StatusKb(server_->pid(), "VmRSS");
    for (int64_t i = 0; i < o_.streams; ++i) {
      std::unique_ptr<Stream> s = Open(static_cast<int>(i));
      for (int64_t sent = 0; s->open && sent + 200000 < kStreamBytes;
           sent += Filler().ByteSizeLong()) {
        s->open = s->writer->Write(Filler());
      }
      streams.push_back(std::move(s));
    }
    const int64_t rss_open = StatusKb(server_->pid(), "VmRSS");
    int64_t answered = 0, refused = 0, other = 0;
    const auto start = std::chrono::steady_clock::now();
    for (auto& s : streams) {
      for (int i = 0; i < 100 && s->open; ++i) {
        s->open = s->writer->Write(Filler());
      }
      const grpc::Status status = s->writer->Finish();
      if (status.ok() && Code(s->resp) == "input_too_large") {
        ++answered;
      } else if (status.error_code() ==
                 grpc::StatusCode::RESOURCE_EXHAUSTED) {
        ++refused;
      } else {
        ++other;
      }
    }
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    const int64_t cap = o_.max_call_streams > 0
                            ? o_.max_call_streams
                            : server::kDefaultMaxCallStreams;
    const int64_t expect_open = std::min(cap, o_.streams);
    (*report)["streams"] = o_.streams;
    (*report)["streams_answered_past_limit"] = answered;
    (*report)["streams_refused"] = refused;
    (*report)["streams_failed_otherwise"] = other;
    (*report)["answer_seconds"] = took.count();
    (*report)["rss_before_streams_kb"] = rss_before;
    (*report)["rss_streams_open_kb"] = rss_open;
    if (answered > 0) {
      (*report)["rss_per_open_stream_kb"] = (rss_open - rss_before) / answered;
    }
    return answered == expect_open && refused == o_.streams - expect_open &&
           other == 0;
  }

  // Phase 2.
  bool PastTheLimit(Json* report) {
    const double cpu_before = CpuSeconds(server_->pid());
    std::unique_ptr<Stream> s = Open(0);
    const int64_t messages =
        o_.past_limit_mb * 1000000 / static_cast<int64_t>(Filler().ByteSizeLong());
    int64_t written = 0;
    while (s->open && written < messages) {
      s->open = s->writer->Write(Filler());
      if (s->open) ++written;
    }
    const grpc::Status status = s->writer->Finish();  // No half-close.
    const double cpu = CpuSeconds(server_->pid()) - cpu_before;
    const int64_t bytes = written * static_cast<int64_t>(Filler().ByteSizeLong());
    (*report)["past_limit_bytes_tried"] =
        messages * static_cast<int64_t>(Filler().ByteSizeLong());
    (*report)["past_limit_bytes_written"] = bytes;
    (*report)["past_limit_decision"] =
        absl::StrCat(status.error_code(), " ",
                     v1::Decision_Name(s->resp.decision()), " ", Code(s->resp));
    (*report)["past_limit_server_cpu_seconds"] = cpu;
    return status.ok() && Code(s->resp) == "input_too_large" &&
           bytes <= 64 * kStreamBytes && cpu >= 0 &&
           cpu <= o_.max_stream_cpu_seconds;
  }

  std::string IdOf(const std::string& name) {
    auto stub = v1::ToolGate::NewStub(channels_[0]);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(10));
    v1::GetSnapshotRequest req;
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    return stub->GetSnapshot(&ctx, req, &resp).ok() ? resp.snapshot_id() : "";
  }

 private:
  const Options& o_;
  testutil::ServerProcess* const server_;
  const std::string snapshot_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
};

std::string Manifest(const std::string& tool) {
  return R"([{"type":"function","function":{"name":")" + tool +
         R"(","parameters":{"type":"object","properties":{"v":{"type":"string"}}}}}])";
}

// Every kind of entry that is not a regular file, and one too large.
bool MakeBadEntries(const std::string& dir) {
  bool ok = mkfifo((dir + "/bad_fifo.json").c_str(), 0600) == 0 &&
            symlink("/dev/urandom", (dir + "/bad_urandom.json").c_str()) == 0 &&
            symlink("/dev/zero", (dir + "/bad_zero.json").c_str()) == 0 &&
            mkdir((dir + "/bad_dir.json").c_str(), 0700) == 0;
  std::ofstream(dir + "/bad_huge.json");
  ok = ok && truncate((dir + "/bad_huge.json").c_str(), off_t{1} << 40) == 0;
  // A socket, bound by its name from its directory (paths can be long).
  const int cwd = open(".", O_RDONLY | O_DIRECTORY);
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string("bad_socket.json").copy(addr.sun_path, sizeof(addr.sun_path) - 1);
  ok = ok && chdir(dir.c_str()) == 0 &&
       bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  ok = fchdir(cwd) == 0 && ok;
  close(cwd);
  return ok;
}

// Phase 3. The bad entries sort before probe.json, whose tool changes at
// every reload: once "probe" names a new snapshot the reload went past
// them.
bool Reloads(const Options& o, const std::string& dir,
             testutil::ServerProcess* server, Flood* flood, int64_t* peak,
             Json* report) {
  if (!MakeBadEntries(dir)) {
    (*report)["reload_error"] = "cannot make the bad entries";
    return false;
  }
  const std::string kept = flood->IdOf("crm");
  const double cpu_before = CpuSeconds(server->pid());
  int64_t reloaded = 0;
  for (int64_t i = 0; i < o.sighups; ++i) {
    const std::string before = flood->IdOf("probe");
    std::ofstream(dir + "/probe.json") << Manifest(absl::StrCat("probe_", i));
    kill(server->pid(), SIGHUP);
    for (int wait = 0; wait < 200; ++wait) {
      if (flood->IdOf("probe") != before) {
        ++reloaded;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  const double cpu = CpuSeconds(server->pid()) - cpu_before;
  (*report)["sighups"] = o.sighups;
  (*report)["reloads_done"] = reloaded;
  (*report)["reload_server_cpu_seconds"] = cpu;
  const bool kept_ok = !kept.empty() && flood->IdOf("crm") == kept;
  (*report)["old_snapshot_kept"] = kept_ok;
  *peak = StatusKb(server->pid(), "VmHWM");
  const auto start = std::chrono::steady_clock::now();
  const int code = server->Stop();
  const std::chrono::duration<double> took =
      std::chrono::steady_clock::now() - start;
  (*report)["sigterm_exit_code"] = code;
  (*report)["sigterm_seconds"] = took.count();
  return reloaded == o.sighups && kept_ok && cpu >= 0 &&
         cpu <= o.max_reload_cpu_seconds && code == 0 && took.count() < 10;
}

int Main(const Options& o) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/stream_flood.", getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/crm.json") << Manifest("lookup");
  std::ofstream(dir + "/probe.json") << Manifest("probe");
  std::vector<std::string> flags = {"--manifests=" + dir,
                                    "--shutdown_grace_seconds=2"};
  if (o.max_call_streams > 0) {
    flags.push_back(absl::StrCat("--max_call_streams=", o.max_call_streams));
  }
  if (o.worst) {
    flags.push_back("--audit_log=/dev/null");
    flags.push_back("--audit_payloads");
  }
  testutil::ServerProcess server(flags);
  if (!server.started()) {
    std::cerr << "stream_flood: the server did not start\n";
    return 1;
  }
  Json report;
  Flood flood(o, &server, "");
  const std::string snapshot = flood.IdOf("crm");
  Flood streams(o, &server, snapshot);
  const bool open_ok = streams.OpenStreams(&report);
  const bool past_ok = o.past_limit_mb <= 0 || streams.PastTheLimit(&report);
  int64_t peak = StatusKb(server.pid(), "VmHWM");
  const bool reload_ok =
      o.sighups <= 0 || Reloads(o, dir, &server, &streams, &peak, &report);
  report["worst"] = o.worst;
  report["peak_rss_kb"] = peak;
  report["max_peak_rss_kb"] = o.max_peak_rss_mb * 1024;
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER)
  const bool memory_ok = peak > 0;  // Shadow memory says nothing here.
  report["rss_bound_checked"] = false;
#else
  const bool memory_ok = peak > 0 && peak <= o.max_peak_rss_mb * 1024;
#endif
  const bool ok = open_ok && past_ok && reload_ok && memory_ok;
  report["checks"] = {{"open_streams", open_ok},
                      {"past_the_limit", past_ok},
                      {"reloads", reload_ok},
                      {"memory", memory_ok}};
  report["ok"] = ok;
  std::cout << report.dump(2) << "\n";
  std::filesystem::remove_all(dir);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace flood
}  // namespace toolgate

int main(int argc, char** argv) {
  toolgate::flood::Options options;
  if (!toolgate::flood::ParseFlags(argc, argv, &options)) return 2;
  return toolgate::flood::Main(options);
}
