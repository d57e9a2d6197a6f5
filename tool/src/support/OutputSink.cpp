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

// True when `fd`'s first content.size() bytes are `content` (the caller has compared the sizes, so
// no read is spent on finding the end). Reads through a fixed buffer: comparing thousands of files
// must not allocate (and zero) a copy of each.
bool readsAs(int fd, std::string_view content) {
  char buffer[64 * 1024];
  for (;;) {
    if (content.empty()) return true;
    ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, content.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return content.empty();
    const auto got = static_cast<size_t>(n);
    if (got > content.size() || std::memcmp(buffer, content.data(), got) != 0) return false;
    content.remove_prefix(got);
  }
}

enum class OnDisk { Same, Different, Missing };

// Whether `path` is a regular file holding exactly `content`, another file, or nothing.
OnDisk compareWithDisk(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? OnDisk::Missing : OnDisk::Different;
  struct stat st {};
  bool same = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) == content.size();
  if (same) same = readsAs(fd, content);
  ::close(fd);
  return same ? OnDisk::Same : OnDisk::Different;
}


// Writes all of `content` to `fd`. Returns 0 or an errno value.
int writeAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

// Creates `target`, which does not exist, complete or not at all: the content goes to an unnamed
// file in the target's directory (O_TMPFILE), which then gets its name (linkat, which never
// replaces a file). Cheaper than a named temporary file and a rename: one directory entry is
// written instead of three. Returns 0, or an errno value when the caller should use the
// temporary-file way instead (the file system has no O_TMPFILE, the directory is missing, the
// target appeared meanwhile, ...); a failed write is reported as such (its errno, with
// `writeFailed` set), and leaves nothing behind.
int createComplete(const std::filesystem::path& target, std::string_view content, bool& writeFailed) {
  writeFailed = false;
  int fd = ::open(target.parent_path().c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);  // 0666 & ~umask
  if (fd < 0) return errno;
  int err = writeAll(fd, content);
  if (err != 0) {
    writeFailed = true;
  } else if (::linkat(fd, "", AT_FDCWD, target.c_str(), AT_EMPTY_PATH) != 0) {
    err = errno;
    // Linking by descriptor needs CAP_DAC_READ_SEARCH before Linux 6.10; /proc/self/fd does not.
    if (err == ENOENT || err == EPERM) {
      const std::string self = "/proc/self/fd/" + std::to_string(fd);
      err = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, target.c_str(), AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
    }
  }
  if (::close(fd) != 0 && err == 0) {  // the file has its name: a failed close is a failed write
    err = errno;
    writeFailed = true;
    ::unlink(target.c_str());
  }
  return err;
}

// Creates `target`, which does not exist, and writes it in place. Returns 0, or an errno value when
// the caller should use the temporary-file way instead (the directory is missing, the target
// appeared meanwhile, ...); a failed write is reported as such (its errno, with `writeFailed` set),
// and leaves nothing behind.
int createInPlace(const std::string& target, std::string_view content, bool& writeFailed) {
  writeFailed = false;
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // 0666 & ~umask
  if (fd < 0) return errno;
  int err = writeAll(fd, content);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    writeFailed = true;
    ::unlink(target.c_str());
  }
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

DirectorySink::DirectorySink(std::filesystem::path root, Diagnostics& diags)
    : OutputSink(diags), root_(std::move(root)), rootPrefix_(root_.string()) {
  // operator/ adds a separator after a root with a file name, as here.
  if (!rootPrefix_.empty() && rootPrefix_.back() != '/') rootPrefix_ += '/';
}

bool DirectorySink::store(const std::string& relPath, std::string_view content) {
  const std::string target = rootPrefix_ + relPath;  // root_ / relPath
  const OnDisk onDisk = newDirectory_ ? OnDisk::Missing : compareWithDisk(target, content);
  if (onDisk == OnDisk::Same) {
    ++unchangedCount_;
    return true;
  }
  if (onDisk == OnDisk::Missing) {
    bool writeFailed = false;
    const int err = newDirectory_ ? createInPlace(target, content, writeFailed)
                                  : createComplete(std::filesystem::path(target), content, writeFailed);
    if (err == 0) {
      ++writtenCount_;
      return true;
    }
    if (writeFailed) {
      diags_.error(SourceLoc{target}, "cannot write: " + errnoMessage(err));
      return false;
    }
  }
  const std::filesystem::path targetPath(target);
  std::error_code ec;
  std::filesystem::create_directories(targetPath.parent_path(), ec);
  if (ec) {
    diags_.error(SourceLoc{targetPath.parent_path().string()}, "cannot create directory: " + ec.message());
    return false;
  }
  if (!replaceFile(targetPath, content)) return false;
  ++writtenCount_;
  return true;
}

// Writes a new temporary file beside `target` and renames it over `target`.
bool DirectorySink::replaceFile(const std::filesystem::path& target, std::string_view content) {
  std::string temp;
  int fd = -1;
  int err = EEXIST;
  for (int attempt = 0; attempt < 100 && err == EEXIST; ++attempt) {
    std::string name = ".opgen." + std::to_string(::getpid()) + "." + std::to_string(tempCounter_++) + ".tmp";
    temp = (target.parent_path() / name).string();
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // 0666 & ~umask
    err = fd < 0 ? errno : 0;
  }
  if (fd >= 0) {
    err = writeAll(fd, content);
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && ::rename(temp.c_str(), target.c_str()) != 0) err = errno;
    if (err != 0) ::unlink(temp.c_str());
  }
  if (err != 0) {
    diags_.error(SourceLoc{target.string()}, "cannot write: " + errnoMessage(err));
    return false;
  }
  return true;
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
