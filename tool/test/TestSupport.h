// Header-only helpers for opgen's tests: run a subprocess and capture its output, locate the reference
// generator (torchgen-ref) and opgen's binary, temporary directories, small file helpers.
//
// Nothing here depends on GoogleTest, so any test (or a small test tool) may include it.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace opgen::test {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------------
// Subprocesses

struct ProcessResult {
  int exitCode = -1;     // the exit status; 128 + N when killed by signal N; 127 when exec failed
  int signal = 0;        // the signal that killed the process, 0 when it exited
  std::string out;       // everything the process wrote to stdout
  std::string err;       // everything the process wrote to stderr
  std::string command;   // the command line, shell-quoted, for messages

  bool ok() const { return exitCode == 0; }

  // "`cmd` exited with 2; stderr: ..." (stderr shortened to maxErr characters), for assertion messages.
  std::string describe(std::size_t maxErr = 4000) const {
    std::ostringstream s;
    s << "`" << command << "` ";
    if (signal != 0) {
      s << "was killed by signal " << signal << " (" << strsignal(signal) << ")";
    } else {
      s << "exited with " << exitCode;
    }
    if (!err.empty()) {
      s << "; stderr:\n" << (err.size() > maxErr ? "..." + err.substr(err.size() - maxErr) : err);
    }
    return s.str();
  }
};

// (Each member has "= {}" so that a designated initializer may leave it out without GCC 12's
// -Wmissing-field-initializers warning.)
struct ProcessOptions {
  fs::path cwd = {};                                          // empty: the current directory
  std::vector<std::pair<std::string, std::string>> env = {};  // variables set (added or replaced) in the child
  std::vector<std::string> unsetEnv = {};                     // variables removed in the child
  std::optional<std::string> input = {};                      // written to the child's stdin (else /dev/null)
};

inline std::string shellQuote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-+=/.,:@%") == std::string::npos) {
    return arg;
  }
  std::string q = "'";
  for (char c : arg) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

inline std::string commandLine(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += shellQuote(a);
  }
  return s;
}

// Runs argv[0] (looked up in PATH when it has no '/') with the arguments argv[1..], waits for it and
// returns its exit code, stdout and stderr. Never throws for a failing child; throws std::runtime_error
// only when the process cannot be created at all.
inline ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {}) {
  ProcessResult result;
  result.command = commandLine(argv);
  if (argv.empty()) throw std::runtime_error("runProcess: empty command");

  int outPipe[2], errPipe[2], inPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0 || pipe2(inPipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("runProcess: pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> args = argv;  // keep storage alive for execvp
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("runProcess: fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls would be strictly correct here; tests are single-threaded.
    dup2(outPipe[1], STDOUT_FILENO);
    dup2(errPipe[1], STDERR_FILENO);
    if (options.input) {
      dup2(inPipe[0], STDIN_FILENO);
    } else {
      int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    }
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) {
      std::string msg = "runProcess: cannot enter " + options.cwd.string() + ": " + std::strerror(errno) + "\n";
      (void)!write(STDERR_FILENO, msg.data(), msg.size());
      _exit(127);
    }
    for (const auto& name : options.unsetEnv) unsetenv(name.c_str());
    for (const auto& [name, value] : options.env) setenv(name.c_str(), value.c_str(), 1);
    execvp(cargs[0], cargs.data());
    std::string msg = "runProcess: cannot run " + args[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }

  close(outPipe[1]);
  close(errPipe[1]);
  close(inPipe[0]);
  std::string input = options.input.value_or("");
  std::size_t written = 0;
  int inFd = inPipe[1];
  if (input.empty()) {
    close(inFd);
    inFd = -1;
  } else {
    fcntl(inFd, F_SETFL, fcntl(inFd, F_GETFL) | O_NONBLOCK);
  }

  int fds[2] = {outPipe[0], errPipe[0]};
  std::string* sinks[2] = {&result.out, &result.err};
  char buffer[1 << 16];
  while (fds[0] >= 0 || fds[1] >= 0 || inFd >= 0) {
    pollfd p[3];
    int n = 0;
    int which[3];
    for (int i = 0; i < 2; ++i) {
      if (fds[i] >= 0) {
        p[n] = {fds[i], POLLIN, 0};
        which[n++] = i;
      }
    }
    if (inFd >= 0) {
      p[n] = {inFd, POLLOUT, 0};
      which[n++] = 2;
    }
    if (poll(p, n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < n; ++k) {
      if (p[k].revents == 0) continue;
      if (which[k] == 2) {
        ssize_t w = write(inFd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // child closed stdin
        if (written >= input.size()) {
          close(inFd);
          inFd = -1;
        }
        continue;
      }
      int i = which[k];
      ssize_t r = read(fds[i], buffer, sizeof buffer);
      if (r > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(r));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fds[i]);
        fds[i] = -1;
      }
    }
  }
  if (inFd >= 0) close(inFd);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exitCode = 128 + result.signal;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------
// Files and directories

inline std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void writeFile(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

inline bool isExecutableFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

// A fresh directory under the system's temporary directory (or under `parent`), removed with its
// contents when the object goes away, unless the environment variable OPGEN_KEEP_TEMP is set (handy when
// a test fails and the generated files are wanted).
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "opgen-test", fs::path parent = {}) {
    if (parent.empty()) parent = fs::temp_directory_path();
    fs::create_directories(parent);
    std::string pattern = (parent / (prefix + "-XXXXXX")).string();
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary directory " + pattern + ": " + std::strerror(errno));
    }
    path_ = buf.data();
  }
  ~TempDir() { remove(); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  TempDir& operator=(TempDir&& other) noexcept {
    if (this != &other) {
      remove();
      path_ = std::exchange(other.path_, {});
    }
    return *this;
  }

  const fs::path& path() const { return path_; }
  fs::path operator/(const fs::path& sub) const { return path_ / sub; }

 private:
  void remove() {
    if (!path_.empty() && std::getenv("OPGEN_KEEP_TEMP") == nullptr) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
    path_.clear();
  }

  fs::path path_;
};

// ---------------------------------------------------------------------------------------------------
// Comparing generated files

// The lines of a text (without their line breaks).
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// "path: differs at line N" with a few lines of both files around the first difference.
inline std::string describeDifference(const std::string& path, const std::string& expected, const std::string& actual) {
  std::vector<std::string> a = lines(expected), b = lines(actual);
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  std::ostringstream s;
  s << path << ": differs from torchgen's (" << expected.size() << " bytes, " << a.size() << " lines) in opgen's ("
    << actual.size() << " bytes, " << b.size() << " lines) at line " << i + 1 << "\n";
  const size_t from = i >= 2 ? i - 2 : 0;
  auto show = [&](const char* who, const std::vector<std::string>& v) {
    s << "  " << who << ":\n";
    for (size_t k = from; k < std::min(v.size(), i + 3); ++k) s << "    " << k + 1 << (k == i ? " > " : " | ") << v[k] << "\n";
    if (i >= v.size()) s << "    (end of file" << (expected.size() != actual.size() || a.size() != b.size() ? "" : "; the files differ only in line endings") << ")\n";
  };
  show("torchgen", a);
  show("opgen", b);
  return s.str();
}

// ---------------------------------------------------------------------------------------------------
// The tools under test and the reference

// opgen's executable: $OPGEN_BINARY when set, else the compile-time OPGEN_BINARY.
inline fs::path opgenBinary() {
  if (const char* env = std::getenv("OPGEN_BINARY"); env != nullptr && *env != '\0') return env;
#ifdef OPGEN_BINARY
  return OPGEN_BINARY;
#else
  return "opgen";
#endif
}

// Where the reference runner (shared/reference/torchgen-ref) is looked for, and whether it works.
struct Reference {
  fs::path runner;        // the torchgen-ref script
  fs::path root;          // `torchgen-ref root`: the folder holding the extracted torchgen/ package
  bool available = false;
  // The runner is there (configured and executable) whether or not it works: a reference that is
  // there but cannot run is broken, and the tests that need it fail instead of skipping
  // (OPGEN_REQUIRE_REFERENCE).
  bool present = false;
  std::string problem;    // why it is not available, in one line, with a hint on how to point to it

  // torchgen's packaged ATen inputs.
  fs::path atenNativeFunctions() const { return root / "torchgen/packaged/ATen/native/native_functions.yaml"; }
  fs::path atenTags() const { return root / "torchgen/packaged/ATen/native/tags.yaml"; }
  fs::path atenTemplates() const { return root / "torchgen/packaged/ATen/templates"; }

  // `torchgen-ref python ARGS...`: python3 with the reference torchgen importable.
  ProcessResult python(const std::vector<std::string>& args, const ProcessOptions& options = {}) const {
    std::vector<std::string> argv = {runner.string(), "python"};
    argv.insert(argv.end(), args.begin(), args.end());
    return runProcess(argv, options);
  }
  // `torchgen-ref SUBCOMMAND ARGS...` (aten, gen, python-bindings, backend-stubs, ...).
  ProcessResult run(const std::vector<std::string>& args, const ProcessOptions& options = {}) const {
    std::vector<std::string> argv = {runner.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return runProcess(argv, options);
  }
};

// The last `n` non-empty lines of `text` joined with " | ", at most 400 characters: a process's error
// output as one line.
inline std::string lastLines(const std::string& text, size_t n) {
  std::vector<std::string> kept;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) kept.push_back(line);
  }
  std::string out;
  for (size_t i = kept.size() > n ? kept.size() - n : 0; i < kept.size(); ++i) out += (out.empty() ? "" : " | ") + kept[i];
  return out.size() > 400 ? "..." + out.substr(out.size() - 400) : out;
}

// Finds the reference: $OPGEN_TORCHGEN_REF, else the compile-time OPGEN_TORCHGEN_REF_DEFAULT; checks it
// by running `torchgen-ref root` (which also extracts the package on first use). The result is computed
// once per process.
inline const Reference& reference() {
  static const Reference ref = [] {
    Reference r;
    const char* env = std::getenv("OPGEN_TORCHGEN_REF");
    std::string hint =
        "; set the environment variable OPGEN_TORCHGEN_REF to the path of shared/reference/torchgen-ref "
        "(or configure with -DOPGEN_TORCHGEN_REF=PATH)";
    if (env != nullptr && *env != '\0') {
      r.runner = env;
    } else {
#ifdef OPGEN_TORCHGEN_REF_DEFAULT
      r.runner = OPGEN_TORCHGEN_REF_DEFAULT;
#endif
    }
    if (r.runner.empty()) {
      r.problem = "the reference generator torchgen-ref is not configured" + hint;
      return r;
    }
    std::error_code ec;
    if (auto canonical = fs::weakly_canonical(r.runner, ec); !ec) r.runner = canonical;
    if (!isExecutableFile(r.runner)) {
      r.problem = "the reference generator torchgen-ref was not found at " + r.runner.string() + hint;
      return r;
    }
    r.present = true;
    ProcessResult root = runProcess({r.runner.string(), "root"});
    std::string rootText = root.out;
    while (!rootText.empty() && (rootText.back() == '\n' || rootText.back() == '\r')) rootText.pop_back();
    if (!root.ok() || rootText.empty()) {
      r.problem = "the reference generator at " + r.runner.string() + " is there but does not run: `" +
                  root.command + "` " + (root.signal != 0 ? "was killed by a signal" : "exited with " + std::to_string(root.exitCode)) +
                  (root.err.empty() ? std::string() : ": " + lastLines(root.err, 3));
      return r;
    }
    r.root = rootText;
    r.available = true;
    return r;
  }();
  return ref;
}

}  // namespace opgen::test

// In a test that needs the reference: skips it when the reference is absent, fails it when the
// reference is there but does not run (a missing xz or PyYAML must not turn the conformance suites
// into a green run of skips).
#define OPGEN_REQUIRE_REFERENCE()                                                   \
  do {                                                                              \
    const ::opgen::test::Reference& opgen_ref_ = ::opgen::test::reference();        \
    if (!opgen_ref_.available) {                                                    \
      if (opgen_ref_.present) FAIL() << opgen_ref_.problem;                         \
      GTEST_SKIP() << opgen_ref_.problem;                                           \
    }                                                                               \
  } while (0)
