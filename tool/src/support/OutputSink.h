// Where generated files go (OutputSink: in memory for tests, or a directory with write-if-changed,
// staged in a FileTransaction), what was read (InputFiles), and the files that describe a run for the
// build system (depfile, manifest).
#pragma once

#include <filesystem>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "support/Diagnostics.h"
#include "support/FileTransaction.h"

namespace opgen::support {

// Receives generated files. Paths are relative to the sink's root and '/'-separated. Several
// threads may write to one sink (different files).
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;

  // Writes one file. Reports an error and returns false when `relPath` is empty, absolute, has an
  // empty, "." or ".." component, was already written by this sink, or cannot be stored.
  // The sink does not keep `content` (a MemorySink keeps a copy).
  bool write(std::string_view relPath, std::string_view content);

  // Every path written so far (stored or unchanged), sorted.
  std::vector<std::string> writtenPaths() const;

 protected:
  explicit OutputSink(Diagnostics& diags) : diags_(diags) {}
  // Stores a validated, new path; reports its own errors.
  virtual bool store(const std::string& relPath, std::string_view content) = 0;

  Diagnostics& diags_;

 private:
  mutable std::mutex mutex_;
  std::unordered_set<std::string> written_;  // (sorted when listed)
};

// Keeps the files in memory.
class MemorySink final : public OutputSink {
 public:
  explicit MemorySink(Diagnostics& diags) : OutputSink(diags) {}

  const std::map<std::string, std::string>& files() const { return files_; }
  // The content written at `relPath`, or nullptr.
  const std::string* find(std::string_view relPath) const;

 private:
  bool store(const std::string& relPath, std::string_view content) override;

  std::mutex filesMutex_;
  std::map<std::string, std::string> files_;
};

// Writes below a directory, through a FileTransaction (support/FileTransaction.h): a file whose
// content is already on disk is not touched (it keeps its modification time, so the build system
// sees no change); a new or changed one is staged beside its destination and gets its name when the
// transaction commits, so that a failed run changes no file and a killed one never leaves a
// half-written file where a reader may look. Below a directory the run created
// (assumeNewDirectory), which nobody else knows yet, files are written in place instead: that is
// one directory operation fewer per file (ATen: 233 ms of system time instead of 277); a failed run
// removes them, a killed one leaves an incomplete directory that the next run completes. Parent
// directories are created as needed. Several sinks may share one transaction.
class DirectorySink final : public OutputSink {
 public:
  DirectorySink(std::filesystem::path root, FileTransaction& files);

  const std::filesystem::path& root() const { return root_; }
  // The root was created by this run, so nothing below it exists but what the run writes: files
  // are created in place without first looking for an old version (one directory lookup fewer per
  // file; a file that turns out to exist is still replaced safely).
  void assumeNewDirectory() { newDirectory_ = true; }
  // Files staged (new or changed; written when the transaction commits) and files left alone
  // because their content was already there.
  int writtenCount() const { return writtenCount_.load(); }
  int unchangedCount() const { return unchangedCount_.load(); }

 private:
  bool store(const std::string& relPath, std::string_view content) override;

  std::filesystem::path root_;
  FileTransaction& files_;
  // root_ / relPath is rootPrefix_ + relPath (joined as text: std::filesystem splits both paths
  // into components, thousands of instructions per file).
  std::string rootPrefix_;
  std::atomic<int> writtenCount_{0};
  std::atomic<int> unchangedCount_{0};
  std::atomic<bool> newDirectory_{false};
};

// Reads input files whole and remembers them (for depfiles).
class InputFiles {
 public:
  explicit InputFiles(Diagnostics& diags) : diags_(diags) {}

  // The file's bytes, or nullopt after reporting "PATH: error: cannot read: REASON" (with `what`,
  // e.g. "template": "cannot read template: REASON").
  std::optional<std::string> read(const std::string& path, std::string_view what = {});

  // Every path read successfully, in the order first read, without repeats.
  const std::vector<std::string>& paths() const { return paths_; }

 private:
  Diagnostics& diags_;
  std::vector<std::string> paths_;
  std::set<std::string, std::less<>> seen_;
};

// Whether `a` and `b` name one existing file (the same device and inode: through another spelling, a
// symbolic or a hard link too).
bool isSameFile(const std::string& a, const std::string& b);

// A Makefile-style depfile: "t1 t2: d1 \<newline>  d2<newline>", in the order given. In paths, a space
// becomes "\ " (backslashes right before it doubled), '#' becomes "\#" and '$' becomes "$$".
std::string makeDepfile(const std::vector<std::string>& targets, const std::vector<std::string>& deps);

// One path per line, sorted, without repeats.
std::string makeManifest(const std::vector<std::string>& paths);

}  // namespace opgen::support
