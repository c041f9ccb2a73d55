#include "server/manifests.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "schemas/embedded_examples.h"

namespace toolgate {
namespace server {
namespace {

struct ManifestFile {
  std::string name;
  std::string source;
  std::string json;
};

// "tickets.openai.json" -> "tickets": the format part is not the name.
std::string SnapshotName(const std::filesystem::path &file) {
  std::string stem = file.stem().string();
  return stem.substr(0, stem.find('.'));
}

absl::StatusOr<std::vector<ManifestFile>> ReadManifests(
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
    std::ifstream in(file, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    if (!in.good() && !in.eof()) {
      return absl::NotFoundError(absl::StrCat(file.string(), ": unreadable"));
    }
    out.push_back({SnapshotName(file), file.string(), buf.str()});
  }
  return out;
}

absl::Status AddManifest(Engine *engine, const ManifestFile &m,
                         std::ostream &log) {
  auto snapshot = engine->CreateSnapshot(m.json, ManifestFormat::kAuto, m.name,
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
  auto files = ReadManifests(dir);
  if (!files.ok()) return files.status();
  for (const ManifestFile &m : *files) {
    if (auto s = AddManifest(engine, m, log); !s.ok()) return s;
  }
  return absl::OkStatus();
}

int ReloadManifests(Engine *engine, const std::string &dir, std::ostream &log) {
  auto files = ReadManifests(dir);
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
