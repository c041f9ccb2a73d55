#include "server/manifests.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/util/regular_file.h"
#include "schemas/embedded_examples.h"

namespace toolgate {
namespace server {
namespace {

// One manifest to load: an embedded example (its text) or a file (read
// when its turn comes, so that one file at a time is held).
struct ManifestFile {
  std::string name;
  std::string source;                   // The path, or "embedded FILE".
  std::optional<std::string> contents;  // Embedded only.
};

// "tickets.openai.json" -> "tickets": the format part is not the name.
std::string SnapshotName(const std::filesystem::path &file) {
  std::string stem = file.stem().string();
  return stem.substr(0, stem.find('.'));
}

absl::StatusOr<std::vector<ManifestFile>> ListManifests(
    const std::string &dir) {
  std::vector<ManifestFile> out;
  if (dir.empty()) {
    for (const EmbeddedManifest &m : EmbeddedExampleManifests()) {
      out.push_back({m.name, absl::StrCat("embedded ", m.file), m.contents});
    }
    return out;
  }
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  if (ec) return absl::NotFoundError(absl::StrCat(dir, ": ", ec.message()));
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat("no *.json manifests in ", dir));
  }
  std::sort(files.begin(), files.end());
  for (const auto &file : files) {
    out.push_back({SnapshotName(file), file.string(), std::nullopt});
  }
  return out;
}

// A file is read as a regular file of at most --max_input_bytes
// (core/util/regular_file.h): a FIFO, a device, a directory or a socket
// named *.json is refused, never waited on or read without end.
absl::Status AddManifest(Engine *engine, const ManifestFile &m,
                         std::ostream &log) {
  absl::StatusOr<std::string> json =
      m.contents.has_value()
          ? *m.contents
          : ReadRegularFile(m.source, engine->options().limits.max_bytes);
  // The reader's message begins with the path.
  if (!json.ok()) return absl::InvalidArgumentError(json.status().message());
  auto snapshot = engine->CreateSnapshot(*json, ManifestFormat::kAuto, m.name,
                                         NameRule::kLoad);
  if (!snapshot.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(m.source, ": ", snapshot.status().message()));
  }
  log << "toolgate: snapshot \"" << m.name << "\" " << (*snapshot)->id()
      << " from " << m.source << " (" << (*snapshot)->tool_names().size()
      << " tools)\n";
  return absl::OkStatus();
}

}  // namespace

absl::Status LoadManifests(Engine *engine, const std::string &dir,
                           std::ostream &log) {
  auto files = ListManifests(dir);
  if (!files.ok()) return files.status();
  for (const ManifestFile &m : *files) {
    if (auto s = AddManifest(engine, m, log); !s.ok()) return s;
  }
  return absl::OkStatus();
}

int ReloadManifests(Engine *engine, const std::string &dir, std::ostream &log) {
  auto files = ListManifests(dir);
  if (!files.ok()) {
    log << "toolgate: reload: " << files.status().message()
        << "; keeping every loaded snapshot\n";
    return 1;
  }
  int failed = 0;
  for (const ManifestFile &m : *files) {
    if (auto s = AddManifest(engine, m, log); !s.ok()) {
      log << "toolgate: reload: " << s.message() << "; \"" << m.name
          << "\" keeps its previous snapshot\n";
      ++failed;
    }
  }
  return failed;
}

}  // namespace server
}  // namespace toolgate
