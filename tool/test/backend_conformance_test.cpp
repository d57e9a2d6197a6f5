// Conformance of `opgen backend` with `python -m torchgen.gen_backend_stubs` (the reference,
// torchgen 2.14.1), at test time.
//
// Every case runs both tools, each in its own empty folder, as `-s YAML -o out ARGS...` (opgen with
// `--source-path` the reference's packaged ATen, which is what torchgen reads), and compares:
//   - the exit status: both succeed, or both fail;
//   - when both succeed, the files: the same names, equal byte for byte;
//   - when both fail, opgen's refusal: exit status 1 (2 for a command line), every line of standard
//     error a `FILE:LINE:COL: error: ...` line naming the backend YAML or native_functions.yaml, and no
//     file written.
// Inputs:
//   Real/*      every backend YAML in shared/reference/backends/ as it is (both must agree);
//   Adapted/*   real files adapted at test time to what torchgen 2.14.1 accepts (XLA's without qr and
//               cholesky; Intel's and Ascend's on PrivateUse1); the reference must accept them. The
//               *_skip cases give opgen the unadapted operator list with --skip-missing-operators and
//               torchgen the list without the entries opgen skipped (with a warning each);
//   Fixture/*   tool/test/data/backend_conformance/*.yaml (every key, out= kernels as primary, empty
//               lists, autograd only, the --impl-path check, --dry-run);
//   Rejected/*  tool/test/data/backend_conformance/rejects/*.yaml: inputs both must refuse;
//   CommandLine/* refused command lines.
// Without the reference every case is skipped, saying why. OPGEN_KEEP_TEMP=1 keeps the folders.
//
// Run:  build/tool/test/opgen_tests --gtest_filter='*BackendConformance*'
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "TestSupport.h"

namespace {

namespace fs = std::filesystem;
using opgen::test::ProcessResult;
using opgen::test::readFile;
using opgen::test::reference;
using opgen::test::TempDir;
using opgen::test::writeFile;

fs::path dataDir() { return fs::path(OPGEN_TEST_DATA) / "backend_conformance"; }
fs::path backendsDir() { return reference().runner.parent_path() / "backends"; }
fs::path atenDir() { return reference().root / "torchgen/packaged/ATen"; }

// ---------------------------------------------------------------------------------------------------
// Adapting a YAML's text

std::string replaceLine(const std::string& text, const std::string& from, const std::string& to) {
  std::string out;
  for (const std::string& line : opgen::test::lines(text)) out += (line == from ? to : line) + "\n";
  return out;
}

// Drops the list entries `- NAME` (with any indentation) of the given names.
std::string dropEntries(const std::string& text, const std::set<std::string>& names) {
  static const std::regex entry(R"(^\s*-\s*([^\s#]+)\s*(#.*)?$)");
  std::string out;
  for (const std::string& line : opgen::test::lines(text)) {
    std::smatch m;
    if (std::regex_match(line, m, entry) && names.count(m[1].str()) != 0) continue;
    out += line + "\n";
  }
  return out;
}

// Drops a top-level key with its block (the lines up to the next top-level key).
std::string dropTopLevelKey(const std::string& text, const std::string& key) {
  std::string out;
  bool dropping = false;
  for (const std::string& line : opgen::test::lines(text)) {
    const bool topLevel = !line.empty() && line[0] != ' ' && line[0] != '#' && line[0] != '-';
    if (topLevel) dropping = line.rfind(key + ":", 0) == 0;
    if (!dropping) out += line + "\n";
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Cases

// Agree: both accept (and write the same files) or both refuse. BeyondTorchgen: torchgen refuses or
// crashes, opgen accepts (per-operator options, namespaces of more than two levels).
enum class Expect { Agree, BothAccept, BothRefuse, BeyondTorchgen };

struct Case {
  std::string name;
  // The YAML both tools read (torchgen's, when `opgenYaml` gives opgen another), written into
  // `scratch` when adapted; empty with `skip` set when the input is not there.
  // (Members left out of a designated initializer are given "= {}", so GCC 12's
  // -Wmissing-field-initializers does not warn about them.)
  std::function<fs::path(const fs::path& scratch, std::string& skip)> yaml = {};
  Expect expect = Expect::Agree;
  std::vector<std::string> args = {};       // for both, after -s YAML -o out
  std::vector<std::string> opgenArgs = {};  // for opgen only
  // opgen reads this YAML with --skip-missing-operators; torchgen the same without the skipped entries.
  std::function<fs::path(const fs::path& scratch, std::string& skip)> opgenYaml = {};
  bool commandLineOnly = false;  // args are the whole command line (no -s/-o)
};

std::function<fs::path(const fs::path&, std::string&)> real(const std::string& file) {
  return [file](const fs::path&, std::string& skip) {
    const fs::path p = backendsDir() / file;
    if (!fs::exists(p)) skip = "the real backend YAML " + p.string() + " is not there";
    return p;
  };
}

std::function<fs::path(const fs::path&, std::string&)> adapted(const std::string& file,
                                                               std::function<std::string(std::string)> adapt) {
  return [file, adapt](const fs::path& scratch, std::string& skip) {
    const fs::path p = backendsDir() / file;
    if (!fs::exists(p)) {
      skip = "the real backend YAML " + p.string() + " is not there";
      return p;
    }
    const fs::path out = scratch / ("adapted_" + file);
    writeFile(out, adapt(readFile(p)));
    return out;
  };
}

std::function<fs::path(const fs::path&, std::string&)> fixture(const std::string& file) {
  return [file](const fs::path&, std::string&) { return dataDir() / file; };
}

// Ascend's `- func: NAME` entries with their own keys (op_api: ...) become `- NAME` (torchgen crashes
// on a mapping in the list).
std::string plainEntries(const std::string& text) {
  static const std::regex func(R"(^(\s*)- func: (\S+)\s*$)");
  std::string out;
  size_t optionIndent = std::string::npos;  // the indentation of the dropped option lines
  for (const std::string& line : opgen::test::lines(text)) {
    const size_t indent = line.find_first_not_of(' ');
    if (optionIndent != std::string::npos && indent != std::string::npos && indent >= optionIndent) continue;
    optionIndent = std::string::npos;
    std::smatch m;
    if (std::regex_match(line, m, func)) {
      out += m[1].str() + "- " + m[2].str() + "\n";
      optionIndent = m[1].length() + 2;
      continue;
    }
    out += line + "\n";
  }
  return out;
}

std::string onPrivateUse1(const std::string& text, const std::string& key) {
  return replaceLine(text, "backend: " + key, "backend: PrivateUse1");
}

std::vector<Case> cases() {
  std::vector<Case> out;
  // Every real file as it is.
  if (fs::is_directory(backendsDir())) {
    std::set<std::string> files;
    for (const auto& e : fs::directory_iterator(backendsDir()))
      if (e.path().extension() == ".yaml") files.insert(e.path().filename().string());
    for (const std::string& f : files) {
      std::string name = "Real_" + f.substr(0, f.size() - 5);
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      // openreg's per-operator `{structured: true}` crash torchgen 2.14.1 (pytorch/pytorch PR 172539).
      const bool beyond = f == "pytorch-openreg_openreg_native_functions.yaml";
      out.push_back({.name = name, .yaml = real(f), .expect = beyond ? Expect::BeyondTorchgen : Expect::Agree});
    }
  } else {
    out.push_back({.name = "Real_missing", .yaml = real("pytorch-xla_xla_native_functions.yaml")});
  }
  const std::string xla = "pytorch-xla_xla_native_functions.yaml";
  out.push_back({.name = "Adapted_xla_without_qr_cholesky",
                 .yaml = adapted(xla, [](std::string t) { return dropEntries(t, {"qr", "cholesky"}); }),
                 .expect = Expect::BothAccept});
  out.push_back({.name = "Adapted_xla_skip", .yaml = {}, .expect = Expect::BothAccept, .opgenYaml = real(xla)});
  out.push_back({.name = "Adapted_xla_dry_run",
                 .yaml = adapted(xla, [](std::string t) { return dropEntries(t, {"qr", "cholesky"}); }),
                 .expect = Expect::BothAccept,
                 .args = {"--dry-run", "1"}});
  out.push_back({.name = "Adapted_xpu_ops_on_PrivateUse1",
                 .yaml = adapted("torch-xpu-ops_xpu_functions.yaml", [](std::string t) { return onPrivateUse1(t, "XPU"); }),
                 .expect = Expect::BothAccept});
  out.push_back({.name = "Adapted_ipex_xpu_on_PrivateUse1",
                 .yaml = adapted("ipex_xpu_functions.yaml", [](std::string t) { return onPrivateUse1(t, "XPU"); }),
                 .expect = Expect::BothAccept});
  out.push_back({.name = "Adapted_ipex_all_on_PrivateUse1_skip",
                 .yaml = {},
                 .expect = Expect::BothAccept,
                 // Without autograd: (it lists cdist under supported: too, which both refuse).
                 .opgenYaml = adapted("ipex_all_functions.yaml", [](std::string t) {
                   return onPrivateUse1(dropTopLevelKey(t, "autograd"), "XPU");
                 })});
  out.push_back({.name = "Adapted_npu_on_PrivateUse1_skip",
                 .yaml = {},
                 .expect = Expect::BothAccept,
                 .opgenYaml = adapted("torch-npu_npu_native_functions.yaml", [](std::string t) {
                   return onPrivateUse1(plainEntries(dropTopLevelKey(t, "custom")), "NPU");
                 })});
  // Fixtures.
  for (const char* f : {"keys", "out_primary", "empty", "autograd_only", "impl"})
    out.push_back({.name = std::string("Fixture_") + f, .yaml = fixture(std::string(f) + ".yaml"), .expect = Expect::BothAccept});
  out.push_back({.name = "Fixture_keys_dry_run", .yaml = fixture("keys.yaml"), .expect = Expect::BothAccept,
                 .args = {"--dry_run=yes"}});
  out.push_back({.name = "Fixture_impl_ok", .yaml = fixture("impl.yaml"), .expect = Expect::BothAccept,
                 .args = {"--impl-path", (dataDir() / "impl_ok.cpp").string()}});
  // argparse: an unambiguous abbreviation with an attached value.
  out.push_back({.name = "Fixture_impl_ok_abbreviated", .yaml = fixture("impl.yaml"), .expect = Expect::BothAccept,
                 .args = {"--impl_p=" + (dataDir() / "impl_ok.cpp").string()}});
  out.push_back({.name = "Fixture_impl_missing", .yaml = fixture("impl.yaml"), .expect = Expect::BothRefuse,
                 .args = {"--impl_path", (dataDir() / "impl_missing.cpp").string()}});
  out.push_back({.name = "Fixture_impl_unreadable", .yaml = fixture("impl.yaml"), .expect = Expect::BothRefuse,
                 .args = {"--impl-path", (dataDir() / "no_such_file.cpp").string()}});
  // Rejections.
  std::set<std::string> rejects;
  for (const auto& e : fs::directory_iterator(dataDir() / "rejects")) rejects.insert(e.path().stem().string());
  for (const std::string& r : rejects)
    out.push_back({.name = "Rejected_" + r, .yaml = fixture("rejects/" + r + ".yaml"), .expect = Expect::BothRefuse});
  // Command lines.
  const std::string keys = (dataDir() / "keys.yaml").string();
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"unknown_option", {"-s", keys, "-o", "out", "--bogus"}},
           {"ambiguous_abbreviation", {"--source", keys, "-o", "out"}},
           {"missing_value", {"-s", keys, "-o"}},
           {"no_source_yaml", {"-o", "out"}},
       })
    out.push_back({.name = "CommandLine_" + name, .yaml = {}, .expect = Expect::BothRefuse, .args = args, .commandLineOnly = true});
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Running and comparing

// Every file below `dir`, by its path relative to it.
std::map<std::string, std::string> filesBelow(const fs::path& dir) {
  std::map<std::string, std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = readFile(e.path());
  return files;
}

// The operators opgen skipped, from its warnings "FILE:L:C: warning: skipping 'NAME': ...".
std::set<std::string> skippedOperators(const std::string& err) {
  static const std::regex warning(R"(: warning: skipping '([^']+)')");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(err.begin(), err.end(), warning); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}

// Checks a refusal: status, one error line per problem naming a file and position, no file written.
void expectCleanRefusal(const ProcessResult& r, const fs::path& dir, bool commandLine) {
  EXPECT_EQ(r.exitCode, commandLine ? 2 : 1) << r.describe();
  if (commandLine) {
    EXPECT_NE(r.err.find("opgen backend: error: "), std::string::npos) << r.err;
  } else {
    // FILE:LINE:COL, or FILE alone for a file that cannot be read.
    static const std::regex line(R"(^[^:\s][^:]*(:\d+:\d+)?: error: .+$)");
    const std::vector<std::string> lines = opgen::test::lines(r.err);
    EXPECT_FALSE(lines.empty()) << r.describe();
    for (const std::string& l : lines) EXPECT_TRUE(std::regex_match(l, line)) << "not a FILE:LINE:COL error line: " << l;
  }
  EXPECT_TRUE(filesBelow(dir / "out").empty()) << "a refused run wrote files";
}

class BackendConformance : public testing::TestWithParam<Case> {};

// gtest prints a failing case's parameter: its name, not its bytes (found by argument lookup).
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

TEST_P(BackendConformance, MatchesTorchgen) {
  const Case& c = GetParam();
  OPGEN_REQUIRE_REFERENCE();
  TempDir tmp("opgen-backend-conformance");
  fs::create_directories(tmp / "ref");
  fs::create_directories(tmp / "opg");
  std::string skip;
  fs::path refYaml, opgYaml;
  std::vector<std::string> opgenExtra = c.opgenArgs;
  opgen::test::ProcessOptions inOpgen{.cwd = tmp / "opg"};
  const std::string opgen = opgen::test::opgenBinary().string();
  const std::vector<std::string> source = {"--source-path", atenDir().string()};
  if (!c.commandLineOnly) {
    if (c.opgenYaml) {
      // opgen skips what the native functions lack; torchgen gets the list without those entries.
      opgYaml = c.opgenYaml(tmp.path(), skip);
      if (!skip.empty()) GTEST_SKIP() << skip;
      std::vector<std::string> probe = {opgen, "backend", "-s", opgYaml.string(), "--list-outputs",
                                        "--skip-missing-operators"};
      probe.insert(probe.end(), source.begin(), source.end());
      const ProcessResult listed = opgen::test::runProcess(probe, inOpgen);
      ASSERT_TRUE(listed.ok()) << listed.describe();
      const std::set<std::string> skipped = skippedOperators(listed.err);
      ASSERT_FALSE(skipped.empty()) << "expected operators to skip: " << listed.err;
      refYaml = tmp / "ref_input.yaml";
      writeFile(refYaml, dropEntries(readFile(opgYaml), skipped));
      opgenExtra.push_back("--skip-missing-operators");
    } else {
      refYaml = opgYaml = c.yaml(tmp.path(), skip);
      if (!skip.empty()) GTEST_SKIP() << skip;
    }
  }
  auto argsFor = [&](const fs::path& yaml) {
    std::vector<std::string> a;
    if (!c.commandLineOnly) a = {"-s", yaml.string(), "-o", "out"};
    a.insert(a.end(), c.args.begin(), c.args.end());
    return a;
  };
  std::vector<std::string> refArgs = {"backend-stubs"};
  for (const std::string& a : argsFor(refYaml)) refArgs.push_back(a);
  const ProcessResult ref = reference().run(refArgs, {.cwd = tmp / "ref"});
  std::vector<std::string> opgArgs = {opgen, "backend"};
  for (const std::string& a : argsFor(opgYaml)) opgArgs.push_back(a);
  if (!c.commandLineOnly) opgArgs.insert(opgArgs.end(), source.begin(), source.end());
  opgArgs.insert(opgArgs.end(), opgenExtra.begin(), opgenExtra.end());
  const ProcessResult opg = opgen::test::runProcess(opgArgs, inOpgen);

  ASSERT_EQ(opg.signal, 0) << opg.describe();  // never a crash
  if (c.expect == Expect::BothAccept) {
    ASSERT_TRUE(ref.ok()) << "the reference refuses this input: " << ref.describe();
  }
  if (c.expect == Expect::BothRefuse) {
    ASSERT_FALSE(ref.ok()) << "the reference accepts this input";
  }
  if (c.expect == Expect::BeyondTorchgen) {
    EXPECT_FALSE(ref.ok()) << "the reference accepts this input now: compare the files";
    EXPECT_TRUE(opg.ok()) << opg.describe();
    EXPECT_FALSE(filesBelow(tmp / "opg" / "out").empty());
    return;
  }
  if (!ref.ok()) {
    ASSERT_FALSE(opg.ok()) << "torchgen refuses this input, opgen accepts it; torchgen: " << ref.describe();
    expectCleanRefusal(opg, tmp / "opg", c.commandLineOnly);
    return;
  }
  ASSERT_TRUE(opg.ok()) << "torchgen accepts this input, opgen refuses it: " << opg.describe();
  const std::map<std::string, std::string> expected = filesBelow(tmp / "ref" / "out");
  const std::map<std::string, std::string> actual = filesBelow(tmp / "opg" / "out");
  std::set<std::string> names;
  for (const auto& [n, t] : expected) names.insert(n);
  for (const auto& [n, t] : actual) names.insert(n);
  for (const std::string& n : names) {
    auto e = expected.find(n);
    auto a = actual.find(n);
    if (e == expected.end()) {
      ADD_FAILURE() << n << ": written by opgen only";
    } else if (a == actual.end()) {
      ADD_FAILURE() << n << ": written by torchgen only";
    } else if (e->second != a->second) {
      ADD_FAILURE() << opgen::test::describeDifference(n, e->second, a->second);
    }
  }
  RecordProperty("files", static_cast<int>(expected.size()));
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendConformance, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
