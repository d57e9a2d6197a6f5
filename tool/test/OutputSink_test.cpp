// OutputSink (memory and directory), InputFiles, depfile and manifest.
#include "support/OutputSink.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "TestSupport.h"
#include "gen/FileManager.h"

namespace opgen::support {
namespace {

namespace fs = std::filesystem;
using List = std::vector<std::string>;

// A fresh directory per test, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  static void spit(const fs::path& p, const std::string& content) { test::writeFile(p, content); }
  // Writes a file dated two days back; returns that time.
  static fs::file_time_type spitOld(const fs::path& p, const std::string& content) {
    spit(p, content);
    const fs::file_time_type old = fs::last_write_time(p) - std::chrono::hours(48);
    fs::last_write_time(p, old);
    return old;
  }
  static std::string slurp(const fs::path& p) { return test::readFile(p); }
  static List entries(const fs::path& dir) {
    List names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  static ino_t inode(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0);
    return st.st_ino;
  }

  test::TempDir tmp_{"opgen-output"};
  const fs::path dir_ = tmp_.path();
};

// --- MemorySink ------------------------------------------------------------------------------

TEST(OutputMemorySink, StoresFilesAndListsPathsSorted) {
  Diagnostics diags;
  MemorySink sink(diags);
  EXPECT_TRUE(sink.write("b/Ops.h", "ops"));
  EXPECT_TRUE(sink.write("a.cpp", "a"));
  EXPECT_TRUE(sink.write("b/Empty.h", ""));
  EXPECT_FALSE(diags.hasErrors());
  EXPECT_EQ(sink.writtenPaths(), (List{"a.cpp", "b/Empty.h", "b/Ops.h"}));
  ASSERT_NE(sink.find("b/Ops.h"), nullptr);
  EXPECT_EQ(*sink.find("b/Ops.h"), "ops");
  EXPECT_EQ(*sink.find("b/Empty.h"), "");
  EXPECT_EQ(sink.find("missing.h"), nullptr);
  EXPECT_EQ(sink.files().size(), 3u);
}

TEST(OutputMemorySink, SecondWriteOfAPathIsError) {
  Diagnostics diags;
  MemorySink sink(diags);
  EXPECT_TRUE(sink.write("x.h", "one"));
  EXPECT_FALSE(sink.write("x.h", "two"));
  EXPECT_EQ(diags.str(), "x.h: error: output file written twice\n");
  EXPECT_EQ(*sink.find("x.h"), "one");
}

TEST(OutputMemorySink, InvalidPathsAreErrors) {
  for (const char* bad : {"", "/abs.h", "a/../b.h", "./a.h", "a//b.h", "dir/", "..", "a/./b"}) {
    Diagnostics diags;
    MemorySink sink(diags);
    EXPECT_FALSE(sink.write(bad, "x")) << bad;
    ASSERT_EQ(diags.errorCount(), 1) << bad;
    EXPECT_NE(diags.all()[0].message.find("invalid output path"), std::string::npos);
    EXPECT_TRUE(sink.writtenPaths().empty());
  }
  Diagnostics diags;
  MemorySink sink(diags);
  EXPECT_TRUE(sink.write("..a/b..c/.h", "names that merely contain dots are fine"));
}

// --- DirectorySink ---------------------------------------------------------------------------

using OutputDirectorySink = TempDirTest;

TEST_F(OutputDirectorySink, WritesFilesAndCreatesParentDirectories) {
  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink sink(dir_ / "out", files);
  EXPECT_TRUE(sink.write("ops/deep/add.h", "int add;\n"));
  EXPECT_TRUE(sink.write("top.cpp", ""));
  EXPECT_FALSE(fs::exists(dir_ / "out/ops/deep/add.h"));  // staged, not yet named
  EXPECT_TRUE(files.commit());
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(slurp(dir_ / "out/ops/deep/add.h"), "int add;\n");
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out/top.cpp"));
  EXPECT_EQ(fs::file_size(dir_ / "out/top.cpp"), 0u);
  EXPECT_EQ(sink.writtenCount(), 2);
  EXPECT_EQ(sink.unchangedCount(), 0);
  EXPECT_EQ(sink.writtenPaths(), (List{"ops/deep/add.h", "top.cpp"}));
  EXPECT_EQ(entries(dir_ / "out/ops/deep"), List{"add.h"});  // no temporary file left
}

// The root is joined to a file's path as std::filesystem's operator/ joins them, whichever way the
// root is spelled; a relative root is relative to the current directory.
TEST_F(OutputDirectorySink, RootsWithAndWithoutATrailingSlash) {
  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink slash(dir_.string() + "/a/", files), plain(dir_ / "b", files), dotted(dir_ / "c" / ".", files);
  EXPECT_TRUE(slash.write("x/1.h", "1"));
  EXPECT_TRUE(plain.write("2.h", "2"));
  EXPECT_TRUE(dotted.write("3.h", "3"));
  EXPECT_TRUE(files.commit());
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(slurp(dir_ / "a/x/1.h"), "1");
  EXPECT_EQ(slurp(dir_ / "b/2.h"), "2");
  EXPECT_EQ(slurp(dir_ / "c/3.h"), "3");
  const fs::path saved = fs::current_path();
  fs::current_path(dir_);
  FileTransaction more(diags);
  DirectorySink relative("d", more);
  EXPECT_TRUE(relative.write("4.h", "4"));
  EXPECT_TRUE(more.commit());
  fs::current_path(saved);
  EXPECT_EQ(slurp(dir_ / "d/4.h"), "4");
}

TEST_F(OutputDirectorySink, NewFilesHaveTheUmasksPermissions) {
  const mode_t saved = ::umask(027);
  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink sink(dir_, files);
  EXPECT_TRUE(sink.write("new.h", "new\n"));
  EXPECT_TRUE(files.commit());
  ::umask(saved);
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(fs::status(dir_ / "new.h").permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(slurp(dir_ / "new.h"), "new\n");
  EXPECT_EQ(entries(dir_), List{"new.h"});
}

TEST_F(OutputDirectorySink, UnchangedContentIsNotTouched) {
  const fs::path file = dir_ / "gen/Same.h";
  const fs::file_time_type old = spitOld(file, "same\n");
  const ino_t before = inode(file);

  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink sink(dir_ / "gen", files);
  EXPECT_TRUE(sink.write("Same.h", "same\n"));
  EXPECT_TRUE(files.commit());
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(sink.unchangedCount(), 1);
  EXPECT_EQ(sink.writtenCount(), 0);
  EXPECT_EQ(fs::last_write_time(file), old);
  EXPECT_EQ(inode(file), before);
  EXPECT_EQ(sink.writtenPaths(), List{"Same.h"});  // still part of the output
}

TEST_F(OutputDirectorySink, ChangedContentIsReplacedByRename) {
  const fs::path file = dir_ / "Changed.h";
  const fs::file_time_type old = spitOld(file, "old content\n");
  const ino_t before = inode(file);

  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink sink(dir_, files);
  EXPECT_TRUE(sink.write("Changed.h", "new content\n"));  // same size, other bytes
  EXPECT_EQ(slurp(file), "old content\n");                // until the commit
  EXPECT_TRUE(files.commit());
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(slurp(file), "new content\n");
  EXPECT_EQ(sink.writtenCount(), 1);
  EXPECT_NE(fs::last_write_time(file), old);
  EXPECT_NE(inode(file), before);  // a new file renamed over the old one, not rewritten in place
  EXPECT_EQ(entries(dir_), List{"Changed.h"});
}

TEST_F(OutputDirectorySink, ShorterAndLongerContentReplaced) {
  Diagnostics diags;
  spit(dir_ / "a.h", "0123456789");
  spit(dir_ / "b.h", "0");
  FileTransaction files(diags);
  DirectorySink sink(dir_, files);
  EXPECT_TRUE(sink.write("a.h", "012"));
  EXPECT_TRUE(sink.write("b.h", std::string(100000, 'x')));
  EXPECT_TRUE(files.commit());
  EXPECT_EQ(slurp(dir_ / "a.h"), "012");
  EXPECT_EQ(slurp(dir_ / "b.h"), std::string(100000, 'x'));
  EXPECT_EQ(sink.writtenCount(), 2);
}

TEST_F(OutputDirectorySink, RootThatIsAFileIsError) {
  spit(dir_ / "file", "not a directory");
  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink sink(dir_ / "file", files);
  EXPECT_FALSE(sink.write("sub/x.h", "x"));
  ASSERT_EQ(diags.errorCount(), 1);
  EXPECT_EQ(diags.all()[0].loc.file, (dir_ / "file/sub").string());
  EXPECT_EQ(diags.all()[0].message, "cannot create directory: '" + (dir_ / "file").string() + "' is not a directory");
  EXPECT_TRUE(sink.writtenPaths().empty());
  EXPECT_EQ(sink.writtenCount(), 0);
}

TEST_F(OutputDirectorySink, TargetThatIsADirectoryIsErrorAndLeavesNoTemporary) {
  fs::create_directories(dir_ / "x.h");
  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink sink(dir_, files);
  EXPECT_FALSE(sink.write("x.h", "x"));
  ASSERT_EQ(diags.errorCount(), 1);
  EXPECT_EQ(diags.all()[0].loc.file, (dir_ / "x.h").string());
  EXPECT_EQ(diags.all()[0].message.rfind("cannot write: ", 0), 0u) << diags.str();
  EXPECT_EQ(entries(dir_), List{"x.h"});
}

TEST_F(OutputDirectorySink, UnwritableDirectoryIsError) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: directory permissions are not enforced";
  fs::create_directories(dir_ / "ro");
  fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink sink(dir_ / "ro", files);
  EXPECT_FALSE(sink.write("x.h", "x"));
  fs::permissions(dir_ / "ro", fs::perms::owner_all);
  EXPECT_EQ(diags.str(), (dir_ / "ro/x.h").string() + ": error: cannot write: Permission denied\n");
  EXPECT_TRUE(entries(dir_ / "ro").empty());
}

TEST_F(OutputDirectorySink, NewDirectoryStillReplacesAFileThatIsThere) {
  // assumeNewDirectory skips looking for old files; one that is there anyway is replaced whole.
  spit(dir_ / "there.h", "old, longer content\n");
  Diagnostics diags;
  FileTransaction files(diags);
  DirectorySink sink(dir_, files);
  sink.assumeNewDirectory();
  EXPECT_TRUE(sink.write("there.h", "new\n"));
  EXPECT_TRUE(sink.write("new.h", "created\n"));
  EXPECT_TRUE(sink.write("sub/deeper.h", "in a subdirectory\n"));
  EXPECT_EQ(slurp(dir_ / "new.h"), "created\n");                // written in place
  EXPECT_EQ(slurp(dir_ / "there.h"), "old, longer content\n");  // someone's file: replaced at the commit
  EXPECT_TRUE(files.commit());
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(slurp(dir_ / "there.h"), "new\n");
  EXPECT_EQ(slurp(dir_ / "new.h"), "created\n");
  EXPECT_EQ(slurp(dir_ / "sub/deeper.h"), "in a subdirectory\n");
  EXPECT_EQ(sink.writtenCount(), 3);
  EXPECT_EQ(entries(dir_), (List{"new.h", "sub", "there.h"}));  // no temporary file left
}

TEST_F(OutputDirectorySink, DiskOutputDirsKnowWhichDirectoriesTheyCreated) {
  // A directory that existed keeps write-if-unchanged; files in one the run created (and in its
  // new parents) are written without looking: the same content is then written again.
  spitOld(dir_ / "old/Same.h", "same\n");
  const ino_t before = inode(dir_ / "old/Same.h");
  Diagnostics diags;
  gen::DiskOutputDirs dirs(diags);
  dirs.makeDirectory((dir_ / "old/core").string());
  dirs.makeDirectory((dir_ / "new/core/").string());
  EXPECT_TRUE(dirs.sinkFor((dir_ / "old").string()).write("Same.h", "same\n"));
  spit(dir_ / "new/Planted.h", "planted\n");  // as if another writer had been there first
  const ino_t planted = inode(dir_ / "new/Planted.h");
  EXPECT_TRUE(dirs.sinkFor((dir_ / "new").string()).write("Planted.h", "planted\n"));
  EXPECT_TRUE(dirs.sinkFor((dir_ / "new/core").string()).write("B.h", "b\n"));
  EXPECT_TRUE(dirs.commit());
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(inode(dir_ / "old/Same.h"), before);
  EXPECT_NE(inode(dir_ / "new/Planted.h"), planted);
  EXPECT_EQ(dirs.unchangedCount(), 1);
  EXPECT_EQ(dirs.writtenCount(), 2);
  EXPECT_EQ(slurp(dir_ / "new/Planted.h"), "planted\n");
  EXPECT_EQ(slurp(dir_ / "new/core/B.h"), "b\n");
}

// --- InputFiles ------------------------------------------------------------------------------

using OutputInputFiles = TempDirTest;

TEST_F(OutputInputFiles, ReadsWholeFilesAndRecordsThemOnce) {
  const std::string binary("a\0b\r\n\xff", 6);
  const std::string big(300000, 'q');
  spit(dir_ / "bin", binary);
  spit(dir_ / "big", big);
  spit(dir_ / "empty", "");
  Diagnostics diags;
  InputFiles inputs(diags);
  EXPECT_EQ(inputs.read((dir_ / "bin").string()), binary);
  EXPECT_EQ(inputs.read((dir_ / "big").string()), big);
  EXPECT_EQ(inputs.read((dir_ / "empty").string()), "");
  EXPECT_EQ(inputs.read((dir_ / "bin").string()), binary);
  EXPECT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(inputs.paths(), (List{(dir_ / "bin").string(), (dir_ / "big").string(), (dir_ / "empty").string()}));
}

TEST_F(OutputInputFiles, UnreadableFilesAreErrors) {
  Diagnostics diags;
  InputFiles inputs(diags);
  const std::string missing = (dir_ / "missing.yaml").string();
  EXPECT_EQ(inputs.read(missing), std::nullopt);
  EXPECT_EQ(inputs.read(dir_.string(), "template"), std::nullopt);
  EXPECT_EQ(diags.str(), missing + ": error: cannot read: No such file or directory\n" + dir_.string() +
                             ": error: cannot read template: Is a directory\n");
  EXPECT_TRUE(inputs.paths().empty());
}

// --- Depfile and manifest --------------------------------------------------------------------

TEST(Depfile, TargetsThenContinuedDependencies) {
  EXPECT_EQ(makeDepfile({"out/a.h", "out/b.cpp"}, {"native_functions.yaml", "templates/A.h", "tags.yaml"}),
            "out/a.h out/b.cpp: native_functions.yaml \\\n  templates/A.h \\\n  tags.yaml\n");
}

TEST(Depfile, NoDependencies) { EXPECT_EQ(makeDepfile({"stamp"}, {}), "stamp:\n"); }

TEST(Depfile, EscapesSpaceHashAndDollar) {
  EXPECT_EQ(makeDepfile({"my out/a$b.h"}, {"dir with space/x#1.yaml", "$$"}),
            "my\\ out/a$$b.h: dir\\ with\\ space/x\\#1.yaml \\\n  $$$$\n");
}

TEST(Depfile, BackslashesBeforeSpaceAreDoubled) {
  // Make and ninja read 2N+1 backslashes and a space as N backslashes and a space.
  EXPECT_EQ(makeDepfile({"t"}, {"a\\ b", "c\\d"}), "t: a\\\\\\ b \\\n  c\\d\n");
}

TEST(OutputManifest, SortedUniqueOnePerLine) {
  EXPECT_EQ(makeManifest({"b.h", "a/z.cpp", "b.h", "a.h"}), "a.h\na/z.cpp\nb.h\n");
  EXPECT_EQ(makeManifest({}), "");
}

}  // namespace
}  // namespace opgen::support
