#include "support/FileTransaction.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <system_error>

namespace opgen::support {

namespace {

std::string errnoMessage(int err) { return std::generic_category().message(err); }

// Temporary files get process-wide unique names, whichever transaction makes them.
std::atomic<unsigned long> temporaryCounter{0};

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

enum class OnDisk { Same, Different, Directory };

// Whether `path` is a regular file holding exactly `content`, a directory, or anything else
// (nothing at all included).
OnDisk compareWithDisk(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OnDisk::Different;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return OnDisk::Directory;
  }
  bool same = S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) == content.size();
  if (same) same = readsAs(fd, content);
  ::close(fd);
  return same ? OnDisk::Same : OnDisk::Different;
}

// Writes all of `content` to `fd` and closes it. Returns 0 or an errno value (a failed close counts:
// some file systems report a full disk only there).
int writeAllAndClose(int fd, std::string_view content) {
  int err = 0;
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

// The directory part of `path` ("." for a bare name).
std::string_view parentOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool olderThan(const timespec& a, const timespec& b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

timespec now() {
  // The clock the kernel stamps files with, so that a file made after this moment is not older.
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &t);
  return t;
}

}  // namespace

// --- Directories -----------------------------------------------------------------------------

std::optional<std::string> createDirectories(const std::string& dir, std::vector<std::string>* created) {
  struct stat st {};
  if (dir.empty() || (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) return std::nullopt;
  std::string_view whole = dir;
  while (whole.size() > 1 && whole.back() == '/') whole.remove_suffix(1);
  // Names the component at fault unless it is `dir` itself.
  auto problem = [&](const std::string& at, const std::string& what) -> std::string {
    if (at == whole) return "cannot create directory: it " + what;
    return "cannot create directory: '" + at + "' " + what;
  };
  auto systemProblem = [&](const std::string& at, int err) -> std::string {
    if (at == whole) return "cannot create directory: " + errnoMessage(err);
    return "cannot create directory: '" + at + "': " + errnoMessage(err);
  };
  for (size_t pos = 0; pos <= whole.size();) {
    size_t slash = whole.find('/', pos);
    if (slash == std::string_view::npos) slash = whole.size();
    const std::string_view name = whole.substr(pos, slash - pos);
    pos = slash + 1;
    if (name.empty() || name == ".") continue;
    const std::string prefix(whole.substr(0, slash));
    if (::lstat(prefix.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) continue;
      if (!S_ISLNK(st.st_mode)) return problem(prefix, "is not a directory");
      struct stat to {};
      const bool resolves = ::stat(prefix.c_str(), &to) == 0;
      const int err = errno;
      if (resolves && S_ISDIR(to.st_mode)) continue;
      char target[PATH_MAX];
      const ssize_t n = ::readlink(prefix.c_str(), target, sizeof target - 1);
      const std::string link = n < 0 ? std::string("?") : std::string(target, static_cast<size_t>(n));
      if (resolves) return problem(prefix, "is a symbolic link to '" + link + "', which is not a directory");
      if (err == ENOENT) return problem(prefix, "is a symbolic link to '" + link + "', which does not exist");
      return systemProblem(prefix, err);
    }
    if (errno != ENOENT) return systemProblem(prefix, errno);
    if (::mkdir(prefix.c_str(), 0777) == 0) {  // 0777 & ~umask
      if (created != nullptr) created->push_back(prefix);
      continue;
    }
    const int err = errno;
    if (err == EEXIST && ::stat(prefix.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // made meanwhile
    return systemProblem(prefix, err);
  }
  return std::nullopt;
}

// --- FileTransaction -------------------------------------------------------------------------

FileTransaction::FileTransaction(Diagnostics& diags) : diags_(diags), start_(now()) {}

FileTransaction::~FileTransaction() {
  bool finished = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished = finished_;
  }
  if (!finished) discard();
}

bool FileTransaction::isTemporaryName(std::string_view name, long* pid) {
  constexpr std::string_view prefix = ".opgen.", suffix = ".tmp";
  if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix)
    return false;
  const std::string_view middle = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  const size_t dot = middle.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == middle.size()) return false;
  auto digits = [](std::string_view s) { return s.find_first_not_of("0123456789") == std::string_view::npos; };
  const std::string_view pidText = middle.substr(0, dot);
  if (!digits(pidText) || !digits(middle.substr(dot + 1)) || pidText.size() > 9) return false;
  if (pid != nullptr) *pid = std::stol(std::string(pidText));
  return true;
}

void FileTransaction::fail(const std::string& path, std::string message) {
  if (!failed_.exchange(true)) diags_.error(SourceLoc{path}, std::move(message));
}

void FileTransaction::noteDirectory(std::string_view dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (dirs_.find(dir) == dirs_.end()) dirs_.emplace(dir);
}

bool FileTransaction::makeParent(const std::string& dir) {
  std::vector<std::string> made;
  std::optional<std::string> problem = createDirectories(dir, &made);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    createdDirs_.insert(createdDirs_.end(), made.begin(), made.end());
  }
  if (!problem) return true;
  fail(dir, std::move(*problem));
  return false;
}

std::optional<std::string> FileTransaction::writeTemporary(const std::string& dir, const std::string& target,
                                                           std::string_view content) {
  const std::string prefix = (dir == "." ? std::string() : dir + "/") + ".opgen." + std::to_string(::getpid()) + ".";
  bool madeParent = false;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = prefix + std::to_string(temporaryCounter++) + ".tmp";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // 0666 & ~umask
    if (fd < 0) {
      const int err = errno;
      if (err == EEXIST) continue;  // left by an earlier process with this PID
      if ((err == ENOENT || err == ENOTDIR) && !madeParent) {
        if (!makeParent(dir)) return std::nullopt;
        madeParent = true;
        continue;
      }
      fail(target, "cannot write: " + errnoMessage(err));
      return std::nullopt;
    }
    if (const int err = writeAllAndClose(fd, content)) {
      ::unlink(temp.c_str());
      fail(target, "cannot write: " + errnoMessage(err));
      return std::nullopt;
    }
    return temp;
  }
  fail(target, "cannot write: no free temporary file name");
  return std::nullopt;
}

FileTransaction::Result FileTransaction::stage(const std::string& path, std::string_view content, Mode mode) {
  if (stopped()) return Result::Failed;
  const std::string dir(parentOf(path));
  if (mode == Mode::InNewDirectory) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // 0666 & ~umask
      if (fd >= 0) {
        if (const int err = writeAllAndClose(fd, content)) {
          ::unlink(path.c_str());
          fail(path, "cannot write: " + errnoMessage(err));
          return Result::Failed;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        created_.push_back(path);
        return Result::Staged;
      }
      const int err = errno;
      if (err == EEXIST) break;  // someone else's file after all: replaced whole, below
      if (err == ENOENT && attempt == 0) {
        if (!makeParent(dir)) return Result::Failed;
        continue;
      }
      fail(path, "cannot write: " + errnoMessage(err));
      return Result::Failed;
    }
  } else {
    noteDirectory(dir);
  }
  if (mode == Mode::IfChanged) {
    switch (compareWithDisk(path, content)) {
      case OnDisk::Same: return Result::Unchanged;
      case OnDisk::Directory: fail(path, "cannot write: " + errnoMessage(EISDIR)); return Result::Failed;
      case OnDisk::Different: break;
    }
  }
  std::optional<std::string> temp = writeTemporary(dir, path, content);
  if (!temp) return Result::Failed;
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.push_back({std::move(*temp), path});
  return Result::Staged;
}

bool FileTransaction::commit() {
  if (stopped()) {
    discard();
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  finished_ = true;
  bool ok = true;
  size_t i = 0;
  for (; i < pending_.size(); ++i) {
    if (::rename(pending_[i].temp.c_str(), pending_[i].target.c_str()) != 0) {
      fail(pending_[i].target, "cannot write: " + errnoMessage(errno));
      ok = false;
      break;
    }
  }
  for (; i < pending_.size(); ++i) ::unlink(pending_[i].temp.c_str());
  pending_.clear();
  created_.clear();
  createdDirs_.clear();
  removeStaleTemporaries();
  return ok;
}

void FileTransaction::discard() {
  std::lock_guard<std::mutex> lock(mutex_);
  finished_ = true;
  for (const Pending& p : pending_) ::unlink(p.temp.c_str());
  for (const std::string& file : created_) ::unlink(file.c_str());
  for (auto it = createdDirs_.rbegin(); it != createdDirs_.rend(); ++it) ::rmdir(it->c_str());  // if empty
  pending_.clear();
  created_.clear();
  createdDirs_.clear();
  removeStaleTemporaries();
}

namespace {

// Whether process `pid` has exited and waits to be reaped (state Z in /proc/PID/stat, after the
// command name in parentheses, which may itself hold ") ").
bool isZombie(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[512];
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0) return false;
  const std::string_view stat(buffer, static_cast<std::size_t>(n));
  const std::size_t close = stat.rfind(") ");
  return close != std::string_view::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

}  // namespace

void FileTransaction::removeStaleTemporaries() {
  const long self = ::getpid();
  for (const std::string& dir : dirs_) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) continue;
    const int fd = ::dirfd(d);
    while (const dirent* e = ::readdir(d)) {
      long pid = 0;
      if (e->d_name[0] != '.' || !isTemporaryName(e->d_name, &pid) || pid <= 0 || pid > INT_MAX) continue;
      struct stat st {};
      if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
          !olderThan(st.st_mtim, start_))
        continue;
      // kill(pid, 0) fails with ESRCH only when there is no such process (EPERM: there is one); a
      // zombie (killed, not yet reaped by its parent: `sh -c` as Ninja starts commands) is gone too.
      const bool gone = pid == self || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) ||
                        isZombie(static_cast<pid_t>(pid));
      if (gone) ::unlinkat(fd, e->d_name, 0);
    }
    ::closedir(d);
  }
}

}  // namespace opgen::support
