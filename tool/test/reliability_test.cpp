// Small defects of the commands' edges, through the binary: what they refuse, and how they say it
// (one line, located where a file applies). The output files under faults (a full disk, a
// read-only folder, kill -9) are tested by faults/output_faults.sh; FileTransaction_test.cpp tests
// the mechanism.
#include <gtest/gtest.h>

#include <algorithm>

#include "TestSupport.h"
#include "support/Diagnostics.h"

namespace {

using namespace opgen::test;

constexpr const char* kTags = "- tag: core\n  desc: core operators\n";

ProcessResult opgen(std::vector<std::string> args) {
  args.insert(args.begin(), opgenBinary().string());
  return runProcess(args);
}

// Files below `dir` (none when it does not exist).
std::vector<std::string> filesBelow(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); ++it)
    if (!it->is_directory()) out.push_back(it->path().string());
  return out;
}

// torchgen refuses a native_functions.yaml without entries (parse_native_yaml_struct: "Expected 'es'
// to be a list, but got <class 'NoneType'>"); so do `opgen gen` and `opgen parse`, at the file's
// first line, before anything is written.
TEST(Reliability, EmptyNativeFunctionsYamlIsALocatedError) {
  for (const std::string& content : {std::string(), std::string("# only a comment\n\n")}) {
    TempDir dir;
    const fs::path yaml = dir / "src/native/native_functions.yaml";
    writeFile(yaml, content);
    writeFile(dir / "src/native/tags.yaml", kTags);
    const std::string expected =
        yaml.string() + ":1:1: error: native_functions.yaml must be a list of entries, but the file is empty\n";
    ProcessResult gen = opgen({"gen", "-s", (dir / "src").string(), "-d", (dir / "out").string(), "--aoti-install-dir",
                               (dir / "aoti").string()});
    EXPECT_EQ(gen.exitCode, 1) << gen.describe();
    EXPECT_EQ(gen.err, expected);
    EXPECT_EQ(filesBelow(dir / "out"), std::vector<std::string>{});
    ProcessResult parse = opgen({"parse", yaml.string()});
    EXPECT_EQ(parse.exitCode, 1) << parse.describe();
    EXPECT_EQ(parse.err, expected);
  }
  // An empty list is a list: torchgen accepts it, and so does opgen.
  TempDir dir;
  writeFile(dir / "native_functions.yaml", "[]\n");
  writeFile(dir / "tags.yaml", kTags);
  ProcessResult parse = opgen({"parse", (dir / "native_functions.yaml").string()});
  EXPECT_TRUE(parse.ok()) << parse.describe();
}

// A depfile names the stamp as its target: without --stamp there is nothing to name. It used to be
// skipped without a word.
TEST(Reliability, DepfileWithoutStampIsRefused) {
  TempDir dir;
  writeFile(dir / "ops.yaml", "- func: demo::twice(Tensor self) -> Tensor\n");
  ProcessResult library = opgen({"library", (dir / "ops.yaml").string(), "-o", (dir / "out").string(), "--depfile",
                                 (dir / "ops.d").string()});
  EXPECT_EQ(library.exitCode, 2) << library.describe();
  EXPECT_EQ(library.err, "opgen library: error: --depfile needs --stamp FILE (the depfile's target) (see 'opgen library --help')\n");
  EXPECT_FALSE(fs::exists(dir / "out"));
  ProcessResult backend = opgen({"backend", "-s", (dir / "backend.yaml").string(), "-o", (dir / "out").string(),
                                 "--depfile", (dir / "ops.d").string()});
  EXPECT_EQ(backend.exitCode, 2) << backend.describe();
  EXPECT_EQ(backend.err, "opgen backend: error: --depfile needs --stamp FILE (the depfile's target) (see 'opgen backend --help')\n");
  // With both, both are written.
  ProcessResult both = opgen({"library", (dir / "ops.yaml").string(), "-o", (dir / "out").string(), "--depfile",
                              (dir / "ops.d").string(), "--stamp", (dir / "ops.stamp").string()});
  ASSERT_TRUE(both.ok()) << both.describe();
  EXPECT_EQ(readFile(dir / "ops.d").rfind((dir / "ops.stamp").string() + ": " + (dir / "ops.yaml").string(), 0), 0u);
  EXPECT_TRUE(fs::exists(dir / "ops.stamp"));
}

// `opgen parse X -o X` would replace the input with its model: refused, however the output is
// spelled (another path, a symbolic link, a hard link), and the tags file likewise.
TEST(Reliability, ParseRefusesToOverwriteItsInput) {
  TempDir dir;
  const std::string ops = "- func: foo(Tensor self) -> Tensor\n";
  writeFile(dir / "a/ops.yaml", ops);
  writeFile(dir / "a/tags.yaml", kTags);
  fs::create_symlink("a/ops.yaml", dir / "link.yaml");
  fs::create_hard_link(dir / "a/ops.yaml", dir / "hard.yaml");
  const std::string input = (dir / "a/ops.yaml").string();
  for (const std::string& out : {input, (dir / "a/../a/./ops.yaml").string(), (dir / "link.yaml").string(),
                                 (dir / "hard.yaml").string(), (dir / "a/tags.yaml").string()}) {
    ProcessResult parse = opgen({"parse", input, "-o", out});
    EXPECT_EQ(parse.exitCode, 2) << parse.describe();
    EXPECT_NE(parse.err.find("opgen parse: error: -o " + out + " is the input file "), std::string::npos) << parse.err;
    EXPECT_EQ(std::count(parse.err.begin(), parse.err.end(), '\n'), 1) << parse.err;
  }
  EXPECT_EQ(readFile(dir / "a/ops.yaml"), ops);
  EXPECT_EQ(readFile(dir / "a/tags.yaml"), kTags);
  ProcessResult other = opgen({"parse", input, "-o", (dir / "model.json").string()});
  ASSERT_TRUE(other.ok()) << other.describe();
  EXPECT_NE(readFile(dir / "model.json").find("\"name\": \"foo\""), std::string::npos);
}

// An output folder that is a symbolic link to nothing: one line that says so (it used to be
// "File exists", once per directory opgen gen makes).
TEST(Reliability, DanglingSymlinkAsOutputFolderIsNamed) {
  TempDir dir;
  writeFile(dir / "src/native/native_functions.yaml", "- func: foo(Tensor self) -> Tensor\n");
  writeFile(dir / "src/native/tags.yaml", kTags);
  fs::create_symlink("missing", dir / "out");
  const std::string link = (dir / "out").string();
  writeFile(dir / "ops.yaml", "- func: demo::twice(Tensor self) -> Tensor\n");
  ProcessResult library = opgen({"library", (dir / "ops.yaml").string(), "-o", link});
  EXPECT_EQ(library.exitCode, 1) << library.describe();
  EXPECT_EQ(std::count(library.err.begin(), library.err.end(), '\n'), 1) << library.err;
  // (the first file opgen library stages is its list of outputs, right in the folder: the link is
  // the path the error is at)
  EXPECT_EQ(library.err, link + ": error: cannot create directory: it is a symbolic link to 'missing', which does not exist\n");
  ProcessResult gen = opgen({"gen", "-s", (dir / "src").string(), "-d", link + "/aten", "--aoti-install-dir", link + "/aoti"});
  EXPECT_EQ(gen.exitCode, 1) << gen.describe();
  EXPECT_EQ(std::count(gen.err.begin(), gen.err.end(), '\n'), 1) << gen.err;
  EXPECT_NE(gen.err.find("is a symbolic link to 'missing', which does not exist"), std::string::npos) << gen.err;
  EXPECT_TRUE(fs::is_symlink(dir / "out"));
  EXPECT_FALSE(fs::exists(dir / "missing"));
}

// One mistake, one line: a diagnostic found again (by another thread, or by a second emitter of the
// same operator) is not reported twice; different ones all are.
TEST(Reliability, ADiagnosticIsReportedOnce) {
  opgen::support::Diagnostics diags;
  const opgen::support::SourceLoc at{.file = "ops.yaml", .line = 3, .column = 5};
  diags.errorAbout(at, "f", "unrecognized type 'Tensr'");
  diags.errorAbout(at, "f", "unrecognized type 'Tensr'");
  diags.errorAbout(at, "g", "unrecognized type 'Tensr'");
  diags.warning(at, "unrecognized type 'Tensr'");
  EXPECT_EQ(diags.errorCount(), 2);
  EXPECT_EQ(diags.str(),
            "ops.yaml:3:5: error: in 'f': unrecognized type 'Tensr'\n"
            "ops.yaml:3:5: error: in 'g': unrecognized type 'Tensr'\n"
            "ops.yaml:3:5: warning: unrecognized type 'Tensr'\n");
}

// An error that quotes the input stays one line when the input holds a newline (a double-quoted YAML
// scalar may hold any character): control characters are escaped. Found by the fuzz target
// native_functions (tool/fuzz/corpus/native_functions/newline_in_error.yaml).
TEST(Reliability, ErrorQuotingANewlineIsOneLine) {
  TempDir dir;
  const fs::path yaml = dir / "native_functions.yaml";
  writeFile(yaml, "- func: myop(Tensor x) -> Tensor\n  dispatch:\n    \"CP\\r\\nU\\x01\": k\n");
  writeFile(dir / "tags.yaml", kTags);
  ProcessResult parse = opgen({"parse", yaml.string()});
  EXPECT_EQ(parse.exitCode, 1) << parse.describe();
  EXPECT_EQ(parse.err, yaml.string() + ":3:5: error: in 'myop': unknown dispatch key 'CP\\r\\nU\\x01'\n");
}

// An empty tags.yaml is refused at its first line, as torchgen refuses it (its tags must be a list).
TEST(Reliability, EmptyTagsYamlIsAnError) {
  TempDir dir;
  const fs::path yaml = dir / "native_functions.yaml";
  writeFile(yaml, "- func: myop(Tensor x) -> Tensor\n");
  writeFile(dir / "tags.yaml", "# no tags\n");
  ProcessResult parse = opgen({"parse", yaml.string()});
  EXPECT_EQ(parse.exitCode, 1) << parse.describe();
  EXPECT_EQ(parse.err, (dir / "tags.yaml").string() +
                           ":1:1: error: tags.yaml must be a list of '- tag: NAME' entries, but the file is empty\n");
}

// Outputs any compiler or build cache can share (issue 25): `opgen library` writes the same bytes
// whatever the output folder's path and however many threads may run (OPGEN_JOBS), and no absolute
// path into any file it generates (the Python package finds the library relative to itself).
TEST(Reliability, OutputsAreTheSameInEveryFolderAndWithAnyThreadCount) {
  TempDir dir;
  const fs::path projects = fs::path(OPGEN_TEST_DATA) / "../../../test_projects";
  for (const std::string project : {"vision", "autograd"}) {
    const fs::path source = projects / project;
    auto generate = [&](const fs::path& out, const std::string& jobs) {
      std::vector<std::string> argv = {opgenBinary().string(), "library", (source / "ops.yaml").string(), "-o",
                                       out.string(), "--tags", (source / "tags.yaml").string(), "--backend", "CPU",
                                       "--python-module", "--per-operator-headers", "--python-library-path",
                                       (out / "../lib.so").string(), "--stamp", (out / "opgen.stamp").string(),
                                       "--depfile", (out / "opgen.d").string()};
      if (fs::exists(source / "derivatives.yaml"))
        argv.insert(argv.end(), {"--derivatives", (source / "derivatives.yaml").string()});
      if (fs::exists(source / "fake.py")) argv.insert(argv.end(), {"--python-fakes", (source / "fake.py").string()});
      ProcessOptions options;
      options.env = {{"OPGEN_JOBS", jobs}};
      const ProcessResult r = runProcess(argv, options);
      EXPECT_TRUE(r.ok()) << r.describe();
    };
    const fs::path a = dir / project / "a/out", b = dir / project / "b/deeper/folder/out";
    generate(a, "1");
    generate(b, "8");
    std::vector<std::string> files;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(a))
      if (e.is_regular_file()) files.push_back(e.path().lexically_relative(a).string());
    std::sort(files.begin(), files.end());
    ASSERT_GT(files.size(), 10u) << project;
    for (const std::string& f : files) {
      if (f == "opgen.stamp" || f == "opgen.d") continue;  // the build tool's files, which name it
      const std::string text = readFile(a / f);
      EXPECT_EQ(text, readFile(b / f)) << project << ": " << f;
      EXPECT_EQ(text.find(dir.path().string()), std::string::npos) << project << ": " << f << " names its folder";
    }
    std::vector<std::string> other;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(b))
      if (e.is_regular_file()) other.push_back(e.path().lexically_relative(b).string());
    std::sort(other.begin(), other.end());
    EXPECT_EQ(other, files) << project;
  }
}

}  // namespace
