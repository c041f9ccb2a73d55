// Server memory while a ValidateToolCallStream is fed: it must follow the
// assembled content, not the events. Starts a real server, streams Gemini
// chunks through one call and samples the server's VmRSS as it goes.
//
//   bazel run -c opt //bench/stream:stream_memory -- [MB_EMPTY] [MB_TEXT]
//
// "empty": usage-only chunks (~1 KB each, nothing to assemble), then the
// finish: the server should hold about what it held before. "text": ~1 KB
// text parts: the server holds the text (and, at the decision, the output
// the text is read from). Not a test: prints figures.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

long RssKb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

constexpr char kManifest[] =
    R"([{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{"timezone":{"type":"string"}},"required":["timezone"]}}}])";

void Run(testutil::ServerProcess& server, v1::ToolGate::Stub& stub,
         const std::string& snapshot, const std::string& kind, long mb) {
  const std::string filler(1000, 'x');
  const std::string event =
      kind == "empty" ? R"({"usageMetadata":{"note":")" + filler + R"("}})"
                      : R"({"candidates":[{"content":{"parts":[{"text":")" +
                            filler + R"("}]}}]})";
  const long events = mb * 1000000 / static_cast<long>(event.size());
  const long before = RssKb(server.pid());
  long peak = before;
  grpc::ClientContext ctx;
  v1::ValidateToolCallResponse resp;
  auto writer = stub.ValidateToolCallStream(&ctx, &resp);
  v1::ToolCallStreamRequest header;
  header.set_snapshot_id(snapshot);
  header.set_stream_format(v1::STREAM_FORMAT_GEMINI);
  writer->Write(header);
  v1::ToolCallStreamRequest batch;
  for (int i = 0; i < 100; ++i) batch.add_events(event);
  for (long sent = 0; sent < events; sent += 100) {
    if (!writer->Write(batch)) break;
    if ((sent / 100) % 500 == 0) peak = std::max(peak, RssKb(server.pid()));
  }
  v1::ToolCallStreamRequest last;
  last.add_events(
      R"({"candidates":[{"content":{"parts":[{"text":"."}]},"finishReason":"STOP"}]})");
  writer->Write(last);
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  peak = std::max(peak, RssKb(server.pid()));
  std::cout << kind << ": " << events << " events, "
            << events * static_cast<long>(event.size()) / 1000000
            << " MB of events; content "
            << (kind == "empty" ? 0 : events * 1000 / 1000000)
            << " MB; server VmRSS before " << before / 1024 << " MiB, peak "
            << peak / 1024 << " MiB, after " << RssKb(server.pid()) / 1024
            << " MiB; status " << status.error_code() << ", decision "
            << v1::Decision_Name(resp.decision()) << " "
            << (resp.violations_size() ? resp.violations(0).code() : "")
            << "\n";
}

int Main(int argc, char** argv) {
  long mb_empty = 200, mb_text = 40;
  if (argc > 1) absl::SimpleAtoi(argv[1], &mb_empty);
  if (argc > 2) absl::SimpleAtoi(argv[2], &mb_text);
  testutil::ServerProcess server(
      {"--max_input_bytes=67108864", "--max_stream_events=100000000"});
  if (!server.started()) return 1;
  auto stub = v1::ToolGate::NewStub(grpc::CreateChannel(
      server.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  v1::CreateSnapshotRequest req;
  req.set_manifest_json(kManifest);
  v1::CreateSnapshotResponse snap;
  if (!stub->CreateSnapshot(&ctx, req, &snap).ok()) return 1;
  Run(server, *stub, snap.snapshot_id(), "empty", mb_empty);
  Run(server, *stub, snap.snapshot_id(), "text", mb_text);
  server.Stop();
  return 0;
}

}  // namespace
}  // namespace toolgate

int main(int argc, char** argv) { return toolgate::Main(argc, argv); }
