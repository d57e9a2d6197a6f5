#include "gen/OutputManifest.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/FileTransaction.h"
#include "support/Strings.h"

namespace opgen::gen {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kHeader =
    "# The files opgen wrote in this folder (relative paths): it removes them when it no longer\n"
    "# generates them, and overwrites no other file. Written by opgen; do not edit.\n";

// A listed path that stays inside the folder: relative, without "..", "." or empty components.
bool isInsidePath(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  for (std::string_view rest = path; !rest.empty();) {
    const std::size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return true;
}

}  // namespace

bool isMarkedGenerated(const std::string& path, const std::vector<std::string>& marks) {
  std::ifstream in(path, std::ios::binary);
  std::string head(2048, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  for (const std::string& mark : marks)
    if (support::contains(head, mark)) return true;
  return false;
}

OutputManifest::OutputManifest(std::string outputDir, support::Diagnostics& diags, std::vector<std::string> marks)
    : dir_(std::move(outputDir)), diags_(diags), marks_(std::move(marks)) {
  std::ifstream in(fs::path(dir_) / kFileName, std::ios::binary);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line.front() != '#' && isInsidePath(line)) listed_.insert(line);
}

bool OutputManifest::claim(const std::set<std::string>& outputs, support::FileTransaction& files) {
  if (!checkOwnership(outputs)) return false;
  std::set<std::string> both = listed_;
  both.insert(outputs.begin(), outputs.end());
  if (both == listed_) return true;
  if (!stage(both, files)) return false;
  listed_ = both;
  return true;
}

bool OutputManifest::checkOwnership(const std::set<std::string>& outputs) {
  bool ok = true;
  std::error_code ec;
  for (const std::string& rel : outputs) {
    if (listed_.count(rel) > 0) continue;
    const fs::path path = fs::path(dir_) / rel;
    if (!fs::exists(fs::symlink_status(path, ec)) || isMarkedGenerated(path.string(), marks_)) continue;
    diags_.error(support::SourceLoc{path.string()},
                 "opgen did not write this file (it is not in " + std::string(kFileName) + " and has no '" +
                     marks_.front() + "' mark): it is not overwritten; give opgen an output folder of its own");
    ok = false;
  }
  return ok;
}

void OutputManifest::removeStale(const std::set<std::string>& outputs) {
  const fs::path root = fs::path(dir_).lexically_normal();
  for (const std::string& rel : listed_) {
    if (outputs.count(rel) > 0) continue;
    const fs::path path = root / rel;
    std::error_code ec;
    if (!fs::remove(path, ec) && ec) {
      diags_.warning(support::SourceLoc{path.string()}, "cannot remove this file, which opgen no longer generates: " +
                                                            ec.message());
      continue;
    }
    // The folders the file leaves empty, up to the output folder (remove() fails on one that is not).
    for (fs::path parent = path.parent_path(); parent != root && parent.has_relative_path();
         parent = parent.parent_path())
      if (!fs::is_empty(parent, ec) || !fs::remove(parent, ec)) break;
  }
}

bool OutputManifest::finish(const std::set<std::string>& outputs) {
  if (outputs == listed_) return true;
  support::FileTransaction files(diags_);
  if (!stage(outputs, files) || !files.commit()) return false;
  listed_ = outputs;
  return true;
}

bool OutputManifest::stage(const std::set<std::string>& paths, support::FileTransaction& files) const {
  std::string text(kHeader);
  for (const std::string& p : paths) text += p + "\n";
  return files.stage((fs::path(dir_) / kFileName).string(), text) != support::FileTransaction::Result::Failed;
}

}  // namespace opgen::gen
