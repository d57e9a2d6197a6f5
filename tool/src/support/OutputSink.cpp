#include "support/OutputSink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace opgen::support {

namespace {

std::string errnoMessage(int err) { return std::generic_category().message(err); }

// Reads what is left of `fd` into `out`, expecting `sizeHint` bytes (one read() in the common case,
// plus the one that sees the end). Returns 0 or an errno value.
int readAll(int fd, size_t sizeHint, std::string& out) {
  out.resize(sizeHint + 1);
  size_t used = 0;
  for (;;) {
    if (used == out.size()) out.resize(out.size() * 2);
    ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  out.resize(used);
  return 0;
}

// Reads the whole file at `path` into `out`. Returns 0 or an errno value.
int readWholeFile(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  struct stat st {};
  int err = ::fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
  if (err == 0) err = readAll(fd, st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0, out);
  ::close(fd);
  return err;
}

// Relative, '/'-separated, every component a real name (not "", "." or "..").
bool isValidRelPath(std::string_view path) {
  if (path.empty() || path.find('\0') != std::string_view::npos) return false;
  size_t start = 0;
  for (;;) {
    size_t slash = path.find('/', start);
    std::string_view part = path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

// A path as a depfile names it: see makeDepfile.
void appendDepfilePath(std::string& out, std::string_view path) {
  size_t backslashes = 0;  // how many end `out` so far, from this path
  for (char c : path) {
    if (c == ' ') {
      out.append(backslashes, '\\');  // 2N+1 backslashes and a space read back as N and a space
      out += "\\ ";
    } else if (c == '#') {
      out += "\\#";
    } else if (c == '$') {
      out += "$$";
    } else {
      out += c;
    }
    backslashes = c == '\\' ? backslashes + 1 : 0;
  }
}

}  // namespace

// --- OutputSink ------------------------------------------------------------------------------

bool OutputSink::write(std::string_view relPath, std::string_view content) {
  if (!isValidRelPath(relPath)) {
    diags_.error(SourceLoc{std::string(relPath)},
                 "invalid output path: it must be relative, without empty, '.' or '..' components");
    return false;
  }
  std::string path(relPath);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!written_.insert(path).second) {
      diags_.error(SourceLoc{path}, "output file written twice");
      return false;
    }
  }
  if (store(path, content)) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  written_.erase(path);
  return false;
}

std::vector<std::string> OutputSink::writtenPaths() const {
  std::vector<std::string> paths;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    paths.assign(written_.begin(), written_.end());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// --- MemorySink ------------------------------------------------------------------------------

const std::string* MemorySink::find(std::string_view relPath) const {
  auto it = files_.find(std::string(relPath));
  return it == files_.end() ? nullptr : &it->second;
}

bool MemorySink::store(const std::string& relPath, std::string_view content) {
  std::lock_guard<std::mutex> lock(filesMutex_);
  files_[relPath] = content;
  return true;
}

// --- DirectorySink ---------------------------------------------------------------------------

DirectorySink::DirectorySink(std::filesystem::path root, FileTransaction& files)
    : OutputSink(files.diags()), root_(std::move(root)), files_(files), rootPrefix_(root_.string()) {
  // operator/ adds a separator after a root with a file name, as here.
  if (!rootPrefix_.empty() && rootPrefix_.back() != '/') rootPrefix_ += '/';
}

bool DirectorySink::store(const std::string& relPath, std::string_view content) {
  using Mode = FileTransaction::Mode;
  switch (files_.stage(rootPrefix_ + relPath, content, newDirectory_ ? Mode::InNewDirectory : Mode::IfChanged)) {
    case FileTransaction::Result::Unchanged: ++unchangedCount_; return true;
    case FileTransaction::Result::Staged: ++writtenCount_; return true;
    case FileTransaction::Result::Failed: break;
  }
  return false;
}

// --- InputFiles ------------------------------------------------------------------------------

std::optional<std::string> InputFiles::read(const std::string& path, std::string_view what) {
  std::string content;
  if (int err = readWholeFile(path, content)) {
    std::string message = "cannot read";
    if (!what.empty()) message.append(" ").append(what);
    diags_.error(SourceLoc{path}, message + ": " + errnoMessage(err));
    return std::nullopt;
  }
  if (seen_.insert(path).second) paths_.push_back(path);
  return content;
}

bool isSameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// --- Depfile and manifest --------------------------------------------------------------------

std::string makeDepfile(const std::vector<std::string>& targets, const std::vector<std::string>& deps) {
  std::string out;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (i > 0) out += ' ';
    appendDepfilePath(out, targets[i]);
  }
  out += ':';
  for (size_t i = 0; i < deps.size(); ++i) {
    out += i == 0 ? " " : " \\\n  ";
    appendDepfilePath(out, deps[i]);
  }
  out += '\n';
  return out;
}

std::string makeManifest(const std::vector<std::string>& paths) {
  std::vector<std::string> sorted = paths;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (const std::string& path : sorted) out.append(path).append("\n");
  return out;
}

}  // namespace opgen::support
