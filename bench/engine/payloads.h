// Realistic model outputs, envelopes and tool outputs for toolgate's
// benchmarks, written against the embedded example manifests (schemas/).
//
// Shared by the in-process engine benchmark and the gRPC load generator so
// that both measure the same bytes: the difference between their numbers
// is then the cost of the transport, not of different inputs.
//
// Every payload documents the decision it must produce; the benchmarks
// check that decision before timing, so a payload that silently stopped
// exercising its path (a manifest change, a parser change) fails loudly
// instead of producing a fast, meaningless number.
#ifndef TOOLGATE_BENCH_ENGINE_PAYLOADS_H_
#define TOOLGATE_BENCH_ENGINE_PAYLOADS_H_

#include <string>
#include <vector>

namespace toolgate {
namespace bench {

enum class Expect { kAllow, kReject };

// A ValidateToolCall input: model output, as native JSON or as text.
struct CallPayload {
  std::string name;      // Benchmark label, e.g. "openai_allow".
  std::string snapshot;  // Embedded snapshot name: tickets, customers, ...
  bool native = true;    // native_json; false means text.
  bool syntax_repair = false;
  // Text in a declared format: its name (core/extract/text_format.h, e.g.
  // "pythonic"); empty for today's reading.
  std::string text_format;
  std::string output;
  Expect expect = Expect::kAllow;
};

// Provider-native calls: OpenAI message, Anthropic message, MCP params;
// each valid (ALLOW) and invalid with several violations (REJECT).
const std::vector<CallPayload>& NativeCalls();

// Calls written in text: tag, fenced block after reasoning, ReAct, bare
// object, and a damaged call under STRICT (REJECT) and SYNTAX_REPAIR
// (ALLOW).
const std::vector<CallPayload>& TextCalls();

// The text_tag call (get_ticket, with the same prose before it where the
// family allows prose) written in each declared format's syntax:
// format_hermes, format_mistral, format_llama3_json, format_pythonic,
// format_granite, format_deepseek_v3. All ALLOW.
const std::vector<CallPayload>& FormatCalls();

// Looks a payload up by name in NativeCalls(), TextCalls() and
// FormatCalls(); aborts on an unknown name (a typo in a benchmark is a bug, not a skip).
const CallPayload& CallNamed(const std::string& name);

// An agent envelope of about 4 KB: reasoning, a <think> block holding a
// decoy result block, a python block, a draft block, and the real result
// block last. Its verdict is PASS.
const std::string& VerdictEnvelope();

// A tool output for ValidateToolOutput.
struct OutputPayload {
  std::string name;
  std::string snapshot;
  std::string tool;
  std::string content_type;
  int http_status = 200;  // -1: no HTTP transport (MCP).
  std::string body;
  bool expect_valid = true;
};

// billing/get_invoice as plain JSON over HTTP (~2 KB); customers/
// get_customer as an MCP CallToolResult (valid, and drifted from its
// output schema).
const std::vector<OutputPayload>& ToolOutputs();

}  // namespace bench
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_ENGINE_PAYLOADS_H_
