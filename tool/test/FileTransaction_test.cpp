// FileTransaction: a run's files change all together or not at all; temporary files of killed runs
// are cleaned up; createDirectories says what is in the way.
#include "support/FileTransaction.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "TestSupport.h"
#include "gen/FileManager.h"
#include "support/OutputSink.h"

namespace opgen::support {
namespace {

namespace fs = std::filesystem;
using List = std::vector<std::string>;
using Mode = FileTransaction::Mode;
using Result = FileTransaction::Result;

class FileTransactionTest : public ::testing::Test {
 protected:
  static void spit(const fs::path& p, const std::string& content) { test::writeFile(p, content); }
  static std::string slurp(const fs::path& p) { return test::readFile(p); }
  // Every file below `dir`, relative, sorted (directories left out).
  static List files(const fs::path& dir) {
    List names;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (!e.is_directory()) names.push_back(fs::relative(e.path(), dir).string());
    std::sort(names.begin(), names.end());
    return names;
  }
  static void age(const fs::path& p, std::chrono::seconds by) {
    fs::last_write_time(p, fs::last_write_time(p) - by);
  }
  std::string at(const std::string& rel) const { return (dir_ / rel).string(); }
  // The PID of a process that has exited (and been reaped): nobody has it for a while.
  static pid_t deadPid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
  }

  test::TempDir tmp_{"opgen-transaction"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(FileTransactionTest, NothingIsNamedBeforeTheCommit) {
  spit(dir_ / "changed.h", "old\n");
  spit(dir_ / "same.h", "same\n");
  Diagnostics diags;
  FileTransaction t(diags);
  EXPECT_EQ(t.stage(at("changed.h"), "new\n"), Result::Staged);
  EXPECT_EQ(t.stage(at("same.h"), "same\n"), Result::Unchanged);
  EXPECT_EQ(t.stage(at("sub/new.h"), "created\n"), Result::Staged);
  EXPECT_EQ(slurp(dir_ / "changed.h"), "old\n");
  EXPECT_FALSE(fs::exists(dir_ / "sub/new.h"));
  EXPECT_TRUE(t.commit());
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(slurp(dir_ / "changed.h"), "new\n");
  EXPECT_EQ(slurp(dir_ / "sub/new.h"), "created\n");
  EXPECT_EQ(files(dir_), (List{"changed.h", "same.h", "sub/new.h"}));  // no temporary file left
}

// The first failure is the only one reported; what was staged before it is removed and no file changes.
TEST_F(FileTransactionTest, AFailureChangesNothingAndIsReportedOnce) {
  spit(dir_ / "a.h", "old a\n");
  fs::create_directories(dir_ / "b.h");
  fs::create_directories(dir_ / "c.h");
  Diagnostics diags;
  {
    FileTransaction t(diags);
    EXPECT_EQ(t.stage(at("a.h"), "new a\n"), Result::Staged);
    EXPECT_EQ(t.stage(at("fresh/d.h"), "d\n"), Result::Staged);
    EXPECT_EQ(t.stage(at("b.h"), "b\n"), Result::Failed);
    EXPECT_EQ(t.stage(at("c.h"), "c\n"), Result::Failed);  // not reported: the run has failed
    EXPECT_EQ(t.stage(at("e.h"), "e\n"), Result::Failed);  // nor attempted
    EXPECT_TRUE(t.stopped());
    EXPECT_FALSE(t.commit());
  }
  EXPECT_EQ(diags.str(), at("b.h") + ": error: cannot write: Is a directory\n");
  EXPECT_EQ(slurp(dir_ / "a.h"), "old a\n");
  EXPECT_EQ(files(dir_), List{"a.h"});
  EXPECT_FALSE(fs::exists(dir_ / "fresh"));  // the directory made for d.h went with it
}

// Another part of the run reported an error: staging stops and the commit discards.
TEST_F(FileTransactionTest, AnyErrorOfTheRunDiscards) {
  spit(dir_ / "a.h", "old\n");
  Diagnostics diags;
  FileTransaction t(diags);
  EXPECT_EQ(t.stage(at("a.h"), "new\n"), Result::Staged);
  diags.error({"ops.yaml", 3, 1}, "something else went wrong");
  EXPECT_EQ(t.stage(at("b.h"), "b\n"), Result::Failed);
  EXPECT_FALSE(t.commit());
  EXPECT_EQ(diags.errorCount(), 1);
  EXPECT_EQ(files(dir_), List{"a.h"});
  EXPECT_EQ(slurp(dir_ / "a.h"), "old\n");
}

TEST_F(FileTransactionTest, DestructionWithoutCommitDiscards) {
  Diagnostics diags;
  {
    FileTransaction t(diags);
    EXPECT_EQ(t.stage(at("a.h"), "a\n"), Result::Staged);
    fs::create_directories(dir_ / "made");
    EXPECT_EQ(t.stage(at("made/b.h"), "b\n", Mode::InNewDirectory), Result::Staged);
    EXPECT_EQ(slurp(dir_ / "made/b.h"), "b\n");  // in place
  }
  EXPECT_FALSE(diags.hasErrors());
  EXPECT_EQ(files(dir_), List{});
}

TEST_F(FileTransactionTest, AlwaysReplacesEvenTheSameContent) {
  spit(dir_ / "stamp", "");
  struct stat before {};
  ASSERT_EQ(::stat((dir_ / "stamp").c_str(), &before), 0);
  Diagnostics diags;
  FileTransaction t(diags);
  EXPECT_EQ(t.stage(at("stamp"), "", Mode::Always), Result::Staged);
  EXPECT_TRUE(t.commit());
  struct stat after {};
  ASSERT_EQ(::stat((dir_ / "stamp").c_str(), &after), 0);
  EXPECT_NE(after.st_ino, before.st_ino);
}

// Renamed in the order staged: a stamp staged last is renamed last.
TEST_F(FileTransactionTest, RenamesInStagingOrder) {
  Diagnostics diags;
  FileTransaction t(diags);
  EXPECT_EQ(t.stage(at("out.h"), "out\n"), Result::Staged);
  EXPECT_EQ(t.stage(at("stamp"), "", Mode::Always), Result::Staged);
  EXPECT_TRUE(t.commit());
  struct stat out {}, stamp {};
  ASSERT_EQ(::stat((dir_ / "out.h").c_str(), &out), 0);
  ASSERT_EQ(::stat((dir_ / "stamp").c_str(), &stamp), 0);
  EXPECT_LE(out.st_ctim.tv_sec * 1000000000L + out.st_ctim.tv_nsec, stamp.st_ctim.tv_sec * 1000000000L + stamp.st_ctim.tv_nsec);
}

// A killed run's temporary files are removed by the next run that writes (or compares) a file in
// their directory: those of processes that are gone, and this process's own older ones (an earlier
// process had its PID); a live process's, and files newer than the run, stay.
TEST_F(FileTransactionTest, RemovesTheTemporaryFilesOfKilledRuns) {
  const std::string dead = ".opgen." + std::to_string(deadPid()) + ".0.tmp";
  const std::string self = ".opgen." + std::to_string(::getpid()) + ".7.tmp";
  const std::string live = ".opgen." + std::to_string(::getppid()) + ".0.tmp";
  const std::string newer = ".opgen." + std::to_string(deadPid()) + ".1.tmp";
  for (const std::string& name : {dead, self, live}) {
    spit(dir_ / "sub" / name, "half");
    age(dir_ / "sub" / name, std::chrono::seconds(60));
  }
  spit(dir_ / "sub" / newer, "half");
  fs::last_write_time(dir_ / "sub" / newer, fs::file_time_type::clock::now() + std::chrono::hours(1));
  spit(dir_ / "sub/.opgen.x.tmp", "not ours");
  spit(dir_ / "sub/same.h", "same\n");
  spit(dir_ / "elsewhere" / dead, "half");  // not a directory of this run
  Diagnostics diags;
  FileTransaction t(diags);
  EXPECT_EQ(t.stage(at("sub/same.h"), "same\n"), Result::Unchanged);
  EXPECT_TRUE(t.commit());
  List kept = {".opgen.x.tmp", live, newer, "same.h"};
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(files(dir_ / "sub"), kept);
  EXPECT_EQ(files(dir_ / "elsewhere"), List{dead});
}

// A run killed while its parent has not reaped it yet (a zombie: Ninja starts commands through
// `sh -c`) is gone too: its temporary files are removed (before, kill(pid, 0) still found it).
TEST_F(FileTransactionTest, RemovesTheTemporaryFilesOfAZombieRun) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  // Until the child has exited (it stays a zombie: nobody waits for it yet).
  for (int i = 0; i < 500; ++i) {
    const std::string stat = test::readFile("/proc/" + std::to_string(child) + "/stat");
    if (stat.find(") Z ") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::string zombie = ".opgen." + std::to_string(child) + ".0.tmp";
  spit(dir_ / "sub" / zombie, "half");
  age(dir_ / "sub" / zombie, std::chrono::seconds(60));
  Diagnostics diags;
  FileTransaction t(diags);
  EXPECT_EQ(t.stage(at("sub/a.h"), "a\n"), Result::Staged);
  EXPECT_TRUE(t.commit());
  EXPECT_EQ(files(dir_ / "sub"), List{"a.h"});
  int status = 0;
  ::waitpid(child, &status, 0);
}

TEST_F(FileTransactionTest, TemporaryNames) {
  long pid = 0;
  EXPECT_TRUE(FileTransaction::isTemporaryName(".opgen.123.4.tmp", &pid));
  EXPECT_EQ(pid, 123);
  for (const char* name : {".opgen..4.tmp", ".opgen.123..tmp", ".opgen.123.tmp", ".opgen.1a.4.tmp", "opgen.1.2.tmp",
                           ".opgen.1.2.tmpx", ".opgen.-1.2.tmp", ".opgen.12345678901.2.tmp"})
    EXPECT_FALSE(FileTransaction::isTemporaryName(name)) << name;
}

TEST_F(FileTransactionTest, CreateDirectoriesSaysWhatIsInTheWay) {
  std::vector<std::string> made;
  EXPECT_EQ(createDirectories(at("a/b/c"), &made), std::nullopt);
  EXPECT_EQ(made, (List{at("a"), at("a/b"), at("a/b/c")}));
  EXPECT_TRUE(fs::is_directory(dir_ / "a/b/c"));
  fs::create_symlink("missing", dir_ / "dangling");
  EXPECT_EQ(createDirectories(at("dangling")), "cannot create directory: it is a symbolic link to 'missing', which does not exist");
  EXPECT_EQ(createDirectories(at("dangling/sub")),
            "cannot create directory: '" + at("dangling") + "' is a symbolic link to 'missing', which does not exist");
  spit(dir_ / "file", "x");
  fs::create_symlink("file", dir_ / "tofile");
  EXPECT_EQ(createDirectories(at("tofile/")), "cannot create directory: it is a symbolic link to 'file', which is not a directory");
  EXPECT_EQ(createDirectories(at("file/sub")), "cannot create directory: '" + at("file") + "' is not a directory");
  fs::create_symlink("a/b", dir_ / "tob");
  EXPECT_EQ(createDirectories(at("tob/c/d")), std::nullopt);
  EXPECT_TRUE(fs::is_directory(dir_ / "a/b/c/d"));
}

// Several threads staging at once, several hitting the same failure: one line.
TEST_F(FileTransactionTest, ConcurrentFailuresAreReportedOnce) {
  fs::create_directories(dir_ / "out");
  for (int i = 0; i < 64; ++i) fs::create_directories(dir_ / "out" / ("f" + std::to_string(i)));
  Diagnostics diags;
  FileTransaction t(diags);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int i = k; i < 64; i += 4) t.stage(at("out/f" + std::to_string(i)), "x");
    });
  for (std::thread& th : threads) th.join();
  EXPECT_FALSE(t.commit());
  EXPECT_EQ(diags.errorCount(), 1) << diags.str();
}

TEST_F(FileTransactionTest, SameFileByIdentity) {
  spit(dir_ / "a.yaml", "x");
  fs::create_symlink("a.yaml", dir_ / "link.yaml");
  fs::create_hard_link(dir_ / "a.yaml", dir_ / "hard.yaml");
  spit(dir_ / "b.yaml", "x");
  EXPECT_TRUE(isSameFile(at("a.yaml"), at("./a.yaml")));
  EXPECT_TRUE(isSameFile(at("a.yaml"), at("link.yaml")));
  EXPECT_TRUE(isSameFile(at("hard.yaml"), at("a.yaml")));
  EXPECT_FALSE(isSameFile(at("a.yaml"), at("b.yaml")));
  EXPECT_FALSE(isSameFile(at("a.yaml"), at("missing.yaml")));
}

}  // namespace
}  // namespace opgen::support
