#include "client/schema_check.h"

#include <filesystem>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/json/strict_json.h"
#include "core/schema/schema.h"
#include "core/util/regular_file.h"

namespace toolgate {
namespace client {
namespace {

namespace fs = std::filesystem;
using schema::CompileOptions;
using schema::SchemaViolation;

constexpr int kAllValid = 0;
constexpr int kSomeInvalid = 1;
constexpr int kRefused = 2;

struct Flags {
  std::string schema_file;
  CompileOptions options;
  std::vector<std::pair<std::string, fs::path>> ref_dirs;
  size_t max_errors = 20;
};

constexpr char kUsage[] =
    "usage: toolgatectl schema check --schema FILE [--dialect draft7|2020-12]"
    " [--ref-dir URL_PREFIX=DIR]... [--format-assertion] [--max-errors N]";

// Schema files and the files --ref-dir resolves to: strict JSON up to this
// size, read as regular files only (a FIFO or a device named there would
// block or never end).
constexpr size_t kMaxSchemaFileBytes = 16 << 20;

absl::StatusOr<std::string> ReadFile(const fs::path& path) {
  return ReadRegularFile(path.string(), kMaxSchemaFileBytes);
}

absl::Status ParseFlags(std::vector<std::string> args, Flags* f) {
  size_t i = 0;
  if (i < args.size() && args[i] == "schema") ++i;
  if (i < args.size() && args[i] == "check") ++i;
  for (; i < args.size(); ++i) {
    std::string name = args[i], value;
    const size_t eq = name.find('=');
    const bool inline_value = name.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto take = [&]() -> absl::Status {
      if (inline_value) return absl::OkStatus();
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      }
      value = args[++i];
      return absl::OkStatus();
    };
    if (name == "--format-assertion" && !inline_value) {
      f->options.format_assertion = true;
      continue;
    }
    if (name != "--schema" && name != "--dialect" && name != "--ref-dir" &&
        name != "--max-errors") {
      return absl::InvalidArgumentError(absl::StrCat("unknown argument ", name));
    }
    absl::Status s = take();
    if (!s.ok()) return s;
    if (name == "--schema") {
      f->schema_file = value;
    } else if (name == "--dialect") {
      if (value == "draft7") {
        f->options.default_dialect = schema::Dialect::kDraft7;
      } else if (value == "2020-12") {
        f->options.default_dialect = schema::Dialect::kDraft2020_12;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("--dialect must be draft7 or 2020-12, not ", value));
      }
    } else if (name == "--ref-dir") {
      const size_t sep = value.find('=');
      if (sep == std::string::npos || sep == 0 || sep + 1 == value.size()) {
        return absl::InvalidArgumentError("--ref-dir takes URL_PREFIX=DIR");
      }
      f->ref_dirs.emplace_back(value.substr(0, sep), value.substr(sep + 1));
    } else if (!absl::SimpleAtoi(value, &f->max_errors) || f->max_errors == 0) {
      return absl::InvalidArgumentError("--max-errors takes a positive number");
    }
  }
  if (f->schema_file.empty()) return absl::InvalidArgumentError("--schema is required");
  return absl::OkStatus();
}

// Maps URL_PREFIX/rest to DIR/rest, refusing any path that leaves DIR.
absl::StatusOr<Json> ResolveFromDirs(
    const std::vector<std::pair<std::string, fs::path>>& dirs,
    absl::string_view uri) {
  for (const auto& [prefix, dir] : dirs) {
    if (uri.substr(0, prefix.size()) != prefix) continue;
    const std::string rest(uri.substr(prefix.size()));
    for (absl::string_view seg : absl::StrSplit(rest, '/')) {
      if (seg == ".." || seg == ".") {
        return absl::PermissionDeniedError(
            absl::StrCat("\"", uri, "\" escapes the --ref-dir directory"));
      }
    }
    if (rest.empty() || rest[0] == '/' || rest.find('\\') != std::string::npos ||
        rest.find('%') != std::string::npos || rest.find('\0') != std::string::npos) {
      return absl::PermissionDeniedError(
          absl::StrCat("\"", uri, "\" is not a plain relative file path"));
    }
    std::error_code ec;
    const fs::path root = fs::canonical(dir, ec);
    if (ec) return absl::NotFoundError(absl::StrCat("no directory ", dir.string()));
    const fs::path file = fs::weakly_canonical(root / rest, ec);
    const std::string root_text = root.string() + "/";
    if (ec || file.string().compare(0, root_text.size(), root_text) != 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("\"", uri, "\" resolves outside ", root.string()));
    }
    auto text = ReadFile(file);
    if (!text.ok()) return text.status();
    return ParseStrictJson(*text, JsonLimits{kMaxSchemaFileBytes, 256});
  }
  return absl::NotFoundError("no --ref-dir prefix matches");
}

Json ViolationJson(const SchemaViolation& v) {
  return Json{{"pointer", v.instance_pointer}, {"schema_pointer", v.schema_pointer},
              {"keyword", v.keyword},          {"expected", v.expected},
              {"received", v.received},        {"message", v.message}};
}

std::string Line(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool IsBlank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

}  // namespace

int RunSchemaCheck(const std::vector<std::string>& args, std::istream& in,
                   std::ostream& out, std::ostream& err) {
  Flags flags;
  absl::Status s = ParseFlags(args, &flags);
  if (!s.ok()) {
    err << s.message() << "\n" << kUsage << "\n";
    return kRefused;
  }
  auto text = ReadFile(flags.schema_file);
  if (!text.ok()) {
    err << text.status().message() << "\n";
    return kRefused;
  }
  auto schema_json = ParseStrictJson(*text, JsonLimits{kMaxSchemaFileBytes, 256});
  if (!schema_json.ok()) {
    err << "schema file is not strict JSON: " << schema_json.status().message() << "\n";
    return kRefused;
  }
  if (!flags.ref_dirs.empty()) {
    auto dirs = flags.ref_dirs;
    flags.options.resolver = [dirs](absl::string_view uri) {
      return ResolveFromDirs(dirs, uri);
    };
  }
  auto compiled = schema::Schema::Compile(*schema_json, flags.options);
  if (!compiled.ok()) {
    err << compiled.status().message() << "\n";
    return kRefused;
  }
  int instances = 0;
  bool all_valid = true;
  std::string line;
  while (std::getline(in, line)) {
    if (IsBlank(line)) continue;
    ++instances;
    std::vector<SchemaViolation> violations;
    auto instance = ParseStrictJson(line);
    bool valid = false;
    if (!instance.ok()) {
      SchemaViolation v;
      v.instance_pointer = JsonErrorPointer(instance.status());
      v.keyword = "invalid_json";
      v.expected = "one strict JSON value (RFC 8259)";
      v.received = line.size() > 120 ? line.substr(0, 120) + "..." : line;
      v.message = absl::StrCat(JsonErrorCode(instance.status()), ": ",
                               instance.status().message());
      violations.push_back(std::move(v));
    } else if ((*compiled)->IsValid(*instance)) {
      // Most instances are valid: the yes/no pass is the fast one, and the
      // line needs no JSON building.
      out << "{\"valid\":true}\n";
      continue;
    } else {
      valid = (*compiled)->Validate(*instance, schema::ValidationMode::kAllErrors,
                                    flags.max_errors, &violations);
    }
    Json result{{"valid", valid}};
    if (!valid) {
      all_valid = false;
      Json list = Json::array();
      for (const SchemaViolation& v : violations) list.push_back(ViolationJson(v));
      result["violations"] = std::move(list);
    }
    out << Line(result) << "\n";
  }
  if (instances == 0) {
    err << "no instances on stdin (expected JSON Lines)\n";
    return kRefused;
  }
  return all_valid ? kAllValid : kSomeInvalid;
}

}  // namespace client
}  // namespace toolgate
