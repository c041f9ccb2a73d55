#include "bench/load/options.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace toolgate {
namespace load {
namespace {

absl::Status Refuse(absl::string_view addr, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "refusing --addr=", addr, ": ", why,
      " (only 127.0.0.0/8, localhost, [::1] or unix: are allowed)"));
}

bool IsPort(absl::string_view text) {
  int port = 0;
  return !text.empty() && text.size() <= 5 &&
         std::all_of(text.begin(), text.end(), absl::ascii_isdigit) &&
         absl::SimpleAtoi(text, &port) && port >= 1 && port <= 65535;
}

// Dotted decimal with exactly four octets, no leading zeros (which some
// resolvers read as octal), first octet 127.
bool IsLoopbackV4(absl::string_view host) {
  std::vector<absl::string_view> octets = absl::StrSplit(host, '.');
  if (octets.size() != 4) return false;
  for (absl::string_view o : octets) {
    int value = 0;
    if (o.empty() || o.size() > 3 || (o.size() > 1 && o[0] == '0') ||
        !std::all_of(o.begin(), o.end(), absl::ascii_isdigit) ||
        !absl::SimpleAtoi(o, &value) || value > 255) {
      return false;
    }
  }
  return octets[0] == "127";
}

}  // namespace

absl::string_view ModeName(Mode mode) {
  return mode == Mode::kRun ? "run" : "stateless";
}

absl::string_view MixName(Mix mix) {
  switch (mix) {
    case Mix::kAllow:
      return "allow";
    case Mix::kReject:
      return "reject";
    case Mix::kText:
      return "text";
    case Mix::kMixed:
      return "mixed";
    case Mix::kHealth:
      return "health";
    case Mix::kVerdict:
      return "verdict";
    case Mix::kAuthz:
      return "authz";
  }
  return "?";
}

absl::Status CheckLoopbackAddress(absl::string_view addr) {
  if (absl::StartsWith(addr, "unix:")) {
    if (addr.size() == 5) return Refuse(addr, "empty socket path");
    return absl::OkStatus();
  }
  const size_t colon = addr.rfind(':');
  if (colon == absl::string_view::npos) return Refuse(addr, "no port");
  absl::string_view host = addr.substr(0, colon);
  if (!IsPort(addr.substr(colon + 1))) return Refuse(addr, "bad port");
  if (host == "localhost" || host == "[::1]" || IsLoopbackV4(host)) {
    return absl::OkStatus();
  }
  return Refuse(addr, "not a loopback address");
}

namespace {

using Setter = std::function<absl::Status(const std::string&, LoadgenOptions*)>;

Setter IntIn(int LoadgenOptions::*field, int min, int max) {
  return [=](const std::string& v, LoadgenOptions* o) {
    int n = 0;
    if (!absl::SimpleAtoi(v, &n) || n < min || n > max) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected an integer from ", min, " to ", max, ", got \"", v, "\""));
    }
    o->*field = n;
    return absl::OkStatus();
  };
}

template <typename Enum>
Setter OneOf(Enum LoadgenOptions::*field, std::map<std::string, Enum> names) {
  return [=](const std::string& v, LoadgenOptions* o) {
    auto it = names.find(v);
    if (it == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown value \"", v, "\""));
    }
    o->*field = it->second;
    return absl::OkStatus();
  };
}

const std::map<std::string, Setter>& Setters() {
  static const auto* kSetters = new std::map<std::string, Setter>{
      {"addr",
       [](const std::string& v, LoadgenOptions* o) {
         o->addr = v;
         return CheckLoopbackAddress(v);
       }},
      {"duration_seconds",
       IntIn(&LoadgenOptions::duration_seconds, 1, kMaxDurationSeconds)},
      {"concurrency", IntIn(&LoadgenOptions::concurrency, 1, kMaxConcurrency)},
      {"rpc_timeout_ms", IntIn(&LoadgenOptions::rpc_timeout_ms, 1, 60000)},
      {"mode",
       OneOf<Mode>(&LoadgenOptions::mode,
                   {{"stateless", Mode::kStateless}, {"run", Mode::kRun}})},
      {"mix", OneOf<Mix>(&LoadgenOptions::mix, {{"allow", Mix::kAllow},
                                                {"reject", Mix::kReject},
                                                {"text", Mix::kText},
                                                {"mixed", Mix::kMixed},
                                                {"health", Mix::kHealth},
                                                {"verdict", Mix::kVerdict},
                                                {"authz", Mix::kAuthz}})},
      {"max_requests",
       [](const std::string& v, LoadgenOptions* o) {
         if (!absl::SimpleAtoi(v, &o->max_requests) || o->max_requests < 0) {
           return absl::InvalidArgumentError(absl::StrCat(
               "expected a non-negative integer, got \"", v, "\""));
         }
         return absl::OkStatus();
       }},
      {"label",
       [](const std::string& v, LoadgenOptions* o) {
         o->label = v;
         return absl::OkStatus();
       }},
  };
  return *kSetters;
}

}  // namespace

absl::StatusOr<LoadgenOptions> ParseLoadgenFlags(
    const std::vector<std::string>& args) {
  LoadgenOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument ", arg));
    }
    arg.remove_prefix(2);
    const size_t eq = arg.find('=');
    const std::string name(arg.substr(0, eq));
    std::string value;
    if (eq != absl::string_view::npos) {
      value = std::string(arg.substr(eq + 1));
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
    }
    auto setter = Setters().find(name);
    if (setter == Setters().end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (absl::Status s = setter->second(value, &options); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, ": ", s.message()));
    }
  }
  return options;
}

std::string LoadgenUsage() {
  return absl::StrCat(
      "usage: loadgen [--addr=127.0.0.1:50051] [--duration_seconds=10 (max ",
      kMaxDurationSeconds,
      ")]\n"
      "               [--concurrency=4] [--mode=stateless|run]\n"
      "               [--mix=allow|reject|text|mixed|health|verdict|authz]\n"
      "               [--max_requests=0] [--rpc_timeout_ms=5000] "
      "[--label=TEXT]\n"
      "Sends ValidateToolCall (allow, reject, text, mixed), Health/Check\n"
      "(health; ignores --mode=run), ExtractVerdict (verdict) or Envoy's\n"
      "ext_authz Check of an MCP tools/call (authz) in a closed\n"
      "loop to a toolgate sidecar on this machine (loopback or unix:\n"
      "addresses only) and prints one human line and one JSON line.\n");
}

}  // namespace load
}  // namespace toolgate
