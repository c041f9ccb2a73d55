#include "bench/soak/soak_options.h"

#include <functional>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/load/options.h"

namespace toolgate {
namespace soak {
namespace {

using Setter = std::function<absl::Status(const std::string&, SoakOptions*)>;

template <typename Int>
Setter IntIn(Int SoakOptions::*field, Int min, Int max) {
  return [=](const std::string& v, SoakOptions* o) {
    Int n = 0;
    if (!absl::SimpleAtoi(v, &n) || n < min || n > max) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected an integer from ", min, " to ", max, ", got \"", v, "\""));
    }
    o->*field = n;
    return absl::OkStatus();
  };
}

// A finite number in [min, max] (bounds included unless `open`).
Setter RealIn(double SoakOptions::*field, double min, double max, bool open) {
  return [=](const std::string& v, SoakOptions* o) {
    double d = 0;
    const bool in = absl::SimpleAtod(v, &d) &&
                    (open ? d > min && d < max : d >= min && d <= max);
    if (!in) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected a number ", open ? "between " : "from ", min,
                       open ? " and " : " to ", max, ", got \"", v, "\""));
    }
    o->*field = d;
    return absl::OkStatus();
  };
}

const std::map<std::string, Setter>& Setters() {
  static const auto* kSetters = new std::map<std::string, Setter>{
      {"addr",
       [](const std::string& v, SoakOptions* o) {
         o->addr = v;
         return load::CheckLoopbackAddress(v);
       }},
      {"server_pid", IntIn<int>(&SoakOptions::server_pid, 1, 1 << 30)},
      {"calls", IntIn<int64_t>(&SoakOptions::calls, 1, kMaxCalls)},
      {"time_limit_seconds",
       IntIn<int>(&SoakOptions::time_limit_seconds, 1, kMaxTimeLimitSeconds)},
      {"workers", IntIn<int>(&SoakOptions::workers, 1, kMaxWorkers)},
      {"calls_per_run",
       IntIn<int>(&SoakOptions::calls_per_run, 1, kMaxCallsPerRun)},
      {"warmup_fraction",
       RealIn(&SoakOptions::warmup_fraction, 0, 1, /*open=*/true)},
      {"max_rss_growth_percent",
       RealIn(&SoakOptions::max_rss_growth_percent, 0, 1e6, /*open=*/false)},
      {"rpc_timeout_ms", IntIn<int>(&SoakOptions::rpc_timeout_ms, 1, 60000)},
      {"max_errors", IntIn<int64_t>(&SoakOptions::max_errors, 1, kMaxCalls)},
      {"label",
       [](const std::string& v, SoakOptions* o) {
         o->label = v;
         return absl::OkStatus();
       }},
  };
  return *kSetters;
}

absl::Status Apply(const std::string& name, const std::string& value,
                   SoakOptions* options) {
  auto setter = Setters().find(name);
  if (setter == Setters().end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
  }
  if (absl::Status s = setter->second(value, options); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SoakOptions> ParseSoakFlags(
    const std::vector<std::string>& args) {
  SoakOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument ", arg));
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
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " needs a value"));
    }
    if (absl::Status s = Apply(name, value, &options); !s.ok()) return s;
  }
  // No defaults for these: a soak against a guessed port, or without the
  // server's memory, would not be the soak that was asked for.
  if (options.addr.empty()) {
    return absl::InvalidArgumentError("--addr is required");
  }
  if (options.server_pid == 0) {
    return absl::InvalidArgumentError("--server_pid is required");
  }
  return options;
}

std::string SoakUsage() {
  return "usage: soak --addr=127.0.0.1:PORT --server_pid=PID "
         "[--calls=1000000]\n"
         "            [--time_limit_seconds=3600] [--workers=4]\n"
         "            [--calls_per_run=50] [--warmup_fraction=0.1]\n"
         "            [--max_rss_growth_percent=10] [--rpc_timeout_ms=5000]\n"
         "            [--max_errors=100] [--label=TEXT]\n"
         "Sends a mixed, checked workload (ValidateToolCall "
         "ALLOW/REJECT/text,\n"
         "ExtractVerdict, ValidateToolOutput; runs opened and closed) to a\n"
         "toolgate sidecar on this machine and samples the server's VmRSS.\n"
         "Prints one JSON line; exits 1 on any error, on RSS growth above the\n"
         "limit, or when the time limit or --max_errors ends it early.\n";
}

}  // namespace soak
}  // namespace toolgate
