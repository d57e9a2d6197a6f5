// A run's output files, changed all together or not at all.
//
// stage() puts one file's content where no reader looks yet: a new or changed file is written to a
// temporary file beside its destination (".opgen.PID.N.tmp", so that the rename is atomic), and a
// file whose content is already on disk is left alone (it keeps its modification time). commit()
// renames the temporary files into place, in the order they were staged, once every file is written
// and closed; discard() removes them, and the destructor discards what was not committed. A failed
// write (a full disk: ENOSPC from write() or close(), a read-only file system, ...) therefore changes
// no output, and a killed run leaves every output either old or new, never half-written.
//
// Only the first failure is reported (one line, however many files and threads hit it); staging
// then stops: later calls return Failed without a word. It also stops once the diagnostics hold any
// error, and commit() then discards: a run with an error changes nothing.
//
// In a directory that the run itself created (Mode::InNewDirectory) there is no earlier file to
// protect and nobody looks yet: files are written in place (one directory operation per file
// instead of two), and discard() removes them; a killed run leaves that directory incomplete, and
// the next run completes it.
//
// Temporary files that a killed run left behind are removed by commit() and discard(), in every
// directory this transaction staged or compared a file in: a file named like ours whose process no
// longer exists (or is this one) and that is older than this transaction. The age matters only for
// a process this one cannot see (another PID namespace sharing the folder): its files are newer.
#pragma once

#include <time.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "support/Diagnostics.h"

namespace opgen::support {

class FileTransaction {
 public:
  explicit FileTransaction(Diagnostics& diags);
  ~FileTransaction();
  FileTransaction(const FileTransaction&) = delete;
  FileTransaction& operator=(const FileTransaction&) = delete;

  enum class Mode {
    IfChanged,       // leave the file alone when it already holds `content`
    Always,          // replace it even then (a stamp file: its time is what counts)
    InNewDirectory,  // the run created the file's directory: write in place without looking first
  };
  enum class Result { Unchanged, Staged, Failed };

  // Stages `content` for `path` (missing parent directories are created). Thread-safe. Failed after
  // reporting the first failure as "PATH: error: cannot write: REASON" (or "cannot create
  // directory: ..."), and without a report once the run has failed.
  Result stage(const std::string& path, std::string_view content, Mode mode = Mode::IfChanged);

  // Renames every staged file into place (or, when the diagnostics hold an error, discards). False
  // when nothing was committed; a rename that fails (rare: the destination became a directory
  // meanwhile) is reported, the files not yet renamed are removed, and the ones before stay renamed.
  bool commit();
  // Removes the staged temporary files and the files written in place.
  void discard();

  Diagnostics& diags() const { return diags_; }
  // Whether staging has stopped (a failure, or an error reported by anyone).
  bool stopped() const { return failed_.load() || diags_.hasErrors(); }

  // The name of this process's temporary files ("."-prefixed, hidden from ls and globs).
  static bool isTemporaryName(std::string_view name, long* pid = nullptr);

 private:
  struct Pending {
    std::string temp, target;
  };
  void fail(const std::string& path, std::string message);
  // Writes `content` to a new temporary file in `dir`; its path, or nullopt after failing.
  std::optional<std::string> writeTemporary(const std::string& dir, const std::string& target, std::string_view content);
  bool makeParent(const std::string& dir);
  void noteDirectory(std::string_view dir);
  void removeStaleTemporaries();

  Diagnostics& diags_;
  const timespec start_;
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  bool finished_ = false;
  std::vector<Pending> pending_;             // temporary files, in staging order
  std::vector<std::string> created_;         // files written in place
  std::vector<std::string> createdDirs_;     // directories made for staged files, parents first
  std::set<std::string, std::less<>> dirs_;  // where stale temporary files are looked for
};

// Creates `dir` and its missing parents (and appends the ones it made to `created`, parents
// first). On failure, the message to report at `dir`: "cannot create directory: REASON", where
// REASON says which existing component is in the way (a file, a dangling symbolic link) or what
// the system said.
std::optional<std::string> createDirectories(const std::string& dir, std::vector<std::string>* created = nullptr);

}  // namespace opgen::support
