// The link-time kernel check (`opgen library --check-kernels`, dest/library/KernelCheck.h) and what
// it reads (support/ObjectSymbols.h), on objects this machine's C++ compiler makes: what an object
// defines, references and keeps to itself, archives and shared libraries, LTO objects; demangled
// names taken apart; and the check's lines for a library whose "registration" (a stand-in object
// that calls the kernels, without libtorch) meets missing, misdeclared, local and elsewhere-defined
// kernels.
#include <gtest/gtest.h>

#include <algorithm>

#include "TestSupport.h"
#include "support/ObjectSymbols.h"
#include "support/Strings.h"

namespace {

using namespace opgen::test;
using opgen::support::ObjectSymbols;

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Compiles `source` (C++) into DIR/NAME.o with `flags`; the path.
fs::path compile(const TempDir& dir, const std::string& name, const std::string& source,
                 std::vector<std::string> flags = {}) {
  const fs::path cpp = dir / (name + ".cpp"), object = dir / (name + ".o");
  writeFile(cpp, source);
  std::vector<std::string> argv = {OPGEN_TEST_CXX, "-std=c++17", "-O0", "-fPIC", "-c", cpp.string(), "-o", object.string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  ProcessResult r = runProcess(argv);
  EXPECT_TRUE(r.ok()) << r.describe();
  return object;
}

ObjectSymbols read(const fs::path& path) {
  opgen::support::Expected<ObjectSymbols> s = opgen::support::readObjectSymbols(path.string());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? s.take() : ObjectSymbols{};
}

constexpr const char* kObject = R"(namespace ns::native {
double used(double);
static int hidden(int x) { return x + 1; }
namespace { int anon(int x) { return x * 2; } }
int defined(long x) { return hidden(static_cast<int>(x)) + anon(static_cast<int>(x)) + static_cast<int>(used(1.0)); }
int data = 3;
}
)";

TEST(ObjectSymbols, AnObjectsDefinitionsReferencesAndLocalFunctions) {
  TempDir dir;
  const ObjectSymbols s = read(compile(dir, "a", kObject));
  EXPECT_FALSE(s.unreadable);
  EXPECT_TRUE(has(s.defined, "_ZN2ns6native7definedEl"));
  EXPECT_TRUE(has(s.defined, "_ZN2ns6native4dataE"));
  EXPECT_TRUE(has(s.undefined, "_ZN2ns6native4usedEd"));
  EXPECT_FALSE(has(s.defined, "_ZN2ns6native4usedEd"));
  std::vector<std::string> locals;
  for (const ObjectSymbols::Local& l : s.localFunctions) {
    locals.push_back(l.name);
    EXPECT_EQ(l.object, (dir / "a.o").string());
  }
  EXPECT_TRUE(has(locals, "_ZN2ns6nativeL6hiddenEi")) << opgen::support::join(locals, " ");
  EXPECT_TRUE(has(locals, "_ZN2ns6native12_GLOBAL__N_14anonEi")) << opgen::support::join(locals, " ");
}

TEST(ObjectSymbols, ArchiveMembersAndSharedLibraryExports) {
  TempDir dir;
  compile(dir, "a", kObject);
  compile(dir, "a_member_with_a_long_name", "namespace ns { void other() {} }\n");
  const fs::path archive = dir / "libk.a";
  ProcessResult ar = runProcess({OPGEN_TEST_AR, "qc", archive.string(), (dir / "a.o").string(),
                                 (dir / "a_member_with_a_long_name.o").string()});
  ASSERT_TRUE(ar.ok()) << ar.describe();
  const ObjectSymbols a = read(archive);
  EXPECT_TRUE(has(a.defined, "_ZN2ns6native7definedEl"));
  EXPECT_TRUE(has(a.defined, "_ZN2ns5otherEv"));
  EXPECT_TRUE(has(a.undefined, "_ZN2ns6native4usedEd"));
  ASSERT_FALSE(a.localFunctions.empty());
  EXPECT_EQ(a.localFunctions.front().object, archive.string() + "(a.o)");

  const fs::path so = dir / "libk.so";
  ProcessResult link = runProcess({OPGEN_TEST_CXX, "-shared", "-o", so.string(), (dir / "a_member_with_a_long_name.o").string()});
  ASSERT_TRUE(link.ok()) << link.describe();
  const ObjectSymbols s = read(so);
  EXPECT_TRUE(has(s.defined, "_ZN2ns5otherEv"));
  EXPECT_TRUE(s.undefined.empty());  // a shared object's references are not the check's business
  EXPECT_TRUE(s.localFunctions.empty());
}

TEST(ObjectSymbols, OtherFormatsAreUnreadableAndBrokenFilesAreErrors) {
  TempDir dir;
  writeFile(dir / "script.so", "/* GNU ld script */\nGROUP ( libc.so.6 )\n");
  const ObjectSymbols text = read(dir / "script.so");
  ASSERT_TRUE(text.unreadable);
  EXPECT_EQ(*text.unreadable, (dir / "script.so").string() + " is not an ELF file");

  writeFile(dir / "thin.a", "!<thin>\n");
  ASSERT_TRUE(read(dir / "thin.a").unreadable);

  opgen::support::Expected<ObjectSymbols> missing = opgen::support::readObjectSymbols((dir / "nope.o").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "No such file or directory");

  const std::string object = readFile(compile(dir, "a", kObject));
  writeFile(dir / "cut.o", object.substr(0, 80));
  opgen::support::Expected<ObjectSymbols> cut = opgen::support::readObjectSymbols((dir / "cut.o").string());
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "truncated ELF file (section headers)");
}


// Hostile headers: every count is bounded by the file's size. Before, a 128-byte ELF64 object
// with e_shnum = 0 and e_shentsize = 0 (extended numbering, whose section 0 then claims 2^64
// sections, all read at the same offset) made the reader loop for ever.
TEST(ObjectSymbols, CountsInHeadersAreBoundedByTheFileSize) {
  auto elf64 = [](std::uint16_t shentsize, std::uint16_t shnum, std::uint64_t shoff) {
    std::string b(128, '\0');
    b.replace(0, 4, "\x7f" "ELF");
    b[4] = 2;  // ELFCLASS64
    b[5] = 1;  // little-endian
    b[6] = 1;
    b[16] = 1;  // ET_REL
    auto put = [&b](std::size_t at, std::uint64_t v, int n) {
      for (int i = 0; i < n; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
    };
    put(0x28, shoff, 8);
    put(0x3A, shentsize, 2);
    put(0x3C, shnum, 2);
    put(shoff + 32 < 120 ? shoff + 32 : 120, ~std::uint64_t{0}, 8);  // section 0's size: 2^64 - 1
    return b;
  };
  auto error = [](const std::string& bytes) {
    opgen::support::Expected<ObjectSymbols> s = opgen::support::readObjectSymbols(bytes, "hostile.o");
    return s.ok() ? std::string("accepted") : s.error().message;
  };
  EXPECT_EQ(error(elf64(0, 0, 64)), "malformed ELF file (section header size 0)");
  EXPECT_EQ(error(elf64(64, 0, 64)), "truncated ELF file (section headers)");      // 2^64 - 1 sections
  EXPECT_EQ(error(elf64(64, 65535, 64)), "truncated ELF file (section headers)");  // 65535 * 64 bytes
  EXPECT_EQ(error(elf64(64, 1, 1ull << 40)), "truncated ELF file (section headers)");
  EXPECT_EQ(error(elf64(64, 1, 64)), "accepted");  // one (null) section, no symbols
}
TEST(ObjectSymbols, GccLtoObjectsAreUnreadable) {
  TempDir dir;
  const ObjectSymbols s = read(compile(dir, "lto", kObject, {"-flto", "-fno-fat-lto-objects"}));
  ASSERT_TRUE(s.unreadable);
  EXPECT_EQ(*s.unreadable, (dir / "lto.o").string() +
                               " is a GCC LTO object (compiled with -flto): its symbols are known to the linker plugin only");
}

TEST(DemangledFunction, NamesAndParameters) {
  using opgen::support::parseDemangledFunction;
  auto parse = [](std::string_view text) {
    auto f = parseDemangledFunction(text);
    return f ? f->qualified + " | " + f->base + " | " + opgen::support::join(f->parameterTypes, "; ") + " | " + f->parameters
             : "none";
  };
  EXPECT_EQ(parse("vision::native::nms_cpu(at::Tensor const&, at::Tensor const&, double)"),
            "vision::native::nms_cpu | nms_cpu | at::Tensor const&; at::Tensor const&; double | (at::Tensor const&, at::Tensor const&, double)");
  EXPECT_EQ(parse("vision::native::stack(c10::ArrayRef<at::Tensor>, std::optional<at::Tensor> const&)"),
            "vision::native::stack | stack | c10::ArrayRef<at::Tensor>; std::optional<at::Tensor> const& | "
            "(c10::ArrayRef<at::Tensor>, std::optional<at::Tensor> const&)");
  EXPECT_EQ(parse("f()"), "f | f |  | ()");
  EXPECT_EQ(parse("vision::native::(anonymous namespace)::nms_cpu(double) [clone .isra.0]"),
            "vision::native::(anonymous namespace)::nms_cpu | nms_cpu | double | (double)");
  EXPECT_EQ(parse("std::tuple<at::Tensor, at::Tensor> vision::native::pool<float>(std::map<int, int>, void (*)(int, int))"),
            "vision::native::pool | pool | std::map<int, int>; void (*)(int, int) | (std::map<int, int>, void (*)(int, int))");
  EXPECT_EQ(parse("vision::native::structured_add_out::impl(at::Tensor const&) const"),
            "vision::native::structured_add_out::impl | impl | at::Tensor const& | (at::Tensor const&)");
  EXPECT_EQ(parse("vtable for vision::Node"), "none");
  EXPECT_EQ(parse("vision::native::data"), "none");
  EXPECT_EQ(opgen::support::demangle("_ZN2ns6native7definedEl").value_or("none"), "ns::native::defined(long)");
  EXPECT_FALSE(opgen::support::demangle("opgen_link_vision"));
}

// ---------------------------------------------------------------------------------------------------
// The check, through `opgen library --check-kernels`.

constexpr const char* kOps = R"(- func: demo::scale(Tensor self, float factor=2.0, *, int? limit=None) -> Tensor
  dispatch:
    CPU: scale_cpu

- func: demo::twice(Tensor self) -> Tensor

- func: demo::shift(Tensor self, int[] dims) -> Tensor
  dispatch:
    CPU, Meta: shift_kernel

- func: demo::add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: add_out

- func: demo::add(Tensor self, Tensor other) -> Tensor
  structured_delegate: add.out

- func: demo::aten_alias(Tensor self) -> Tensor
  dispatch:
    CPU: at::native::alias_kernel
)";

// What the registration calls, declared as opgen declares the kernels (the types stand in for
// libtorch's: only the names count).
constexpr const char* kRegistration = R"(#include <cstdint>
#include <optional>
#include <vector>
namespace at { struct Tensor {}; struct IntArrayRef { std::vector<int64_t> v; }; }
namespace demo::meta { struct structured_add { void meta(const at::Tensor&, const at::Tensor&); }; }
namespace demo::native {
at::Tensor scale_cpu(const at::Tensor&, double, std::optional<int64_t>);
at::Tensor twice(const at::Tensor&);
at::Tensor shift_kernel(const at::Tensor&, at::IntArrayRef);
struct structured_add_out : demo::meta::structured_add { void impl(const at::Tensor&, const at::Tensor&, const at::Tensor&); };
}
namespace at::native { at::Tensor alias_kernel(const at::Tensor&); }
void registerAll() {
  at::Tensor t;
  demo::native::scale_cpu(t, 1.0, {});
  demo::native::twice(t);
  demo::native::shift_kernel(t, {});
  demo::native::structured_add_out op;
  op.meta(t, t);
  op.impl(t, t, t);
  at::native::alias_kernel(t);
}
)";

struct Check {
  TempDir dir;
  fs::path yaml = dir / "ops.yaml";
  std::string declarations;  // the registration's text before registerAll()
  fs::path registration;

  explicit Check(const std::string& ops = kOps, const std::string& calls = kRegistration) {
    writeFile(yaml, ops);
    declarations = calls.substr(0, calls.find("void registerAll"));
    registration = compile(dir, "register", calls);
  }
  fs::path kernels(const std::string& name, const std::string& definitions, std::vector<std::string> flags = {}) {
    return compile(dir, name, declarations + definitions, std::move(flags));
  }
  ProcessResult run(const std::vector<fs::path>& files, int torch = 2) {
    std::vector<std::string> argv = {opgenBinary().string(), "library", yaml.string(), "-o", (dir / "out").string(),
                                     "--backend", "CPU", "--backend", "Meta", "--torch-version", std::to_string(torch),
                                     "--check-kernels"};
    for (const fs::path& f : files) argv.push_back(f.string());
    return runProcess(argv);
  }
};

constexpr const char* kAllDefined = R"(
at::Tensor demo::native::scale_cpu(const at::Tensor& t, double, std::optional<int64_t>) { return t; }
at::Tensor demo::native::twice(const at::Tensor& t) { return t; }
at::Tensor demo::native::shift_kernel(const at::Tensor& t, at::IntArrayRef) { return t; }
void demo::native::structured_add_out::impl(const at::Tensor&, const at::Tensor&, const at::Tensor&) {}
void demo::meta::structured_add::meta(const at::Tensor&, const at::Tensor&) {}
)";

TEST(KernelCheck, EveryKernelDefinedPasses) {
  Check c;
  ProcessResult r = c.run({c.registration, c.kernels("kernels", kAllDefined)});
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.err, "");
  EXPECT_FALSE(fs::exists(c.dir / "out"));  // a check writes nothing
}

TEST(KernelCheck, MissingAndMisdeclaredKernelsAreErrorsAtTheirEntries) {
  Check c;
  // scale_cpu with int instead of int64_t, twice in an anonymous namespace, shift_kernel, impl and
  // meta not at all. alias_kernel (at::native, libtorch's) is not the library's to define.
  const fs::path kernels = c.kernels("kernels", R"(
namespace demo::native {
at::Tensor scale_cpu(const at::Tensor& t, double, std::optional<int>) { return t; }
namespace { at::Tensor twice(const at::Tensor& t) { return t; } }
}
at::Tensor use(const at::Tensor& t) { return demo::native::twice(t); }
)");
  ProcessResult r = c.run({c.registration, kernels});
  EXPECT_EQ(r.exitCode, 1) << r.describe();
  const std::string y = c.yaml.string();
  EXPECT_EQ(lines(r.err), (std::vector<std::string>{
      y + ":1:3: error: in 'scale': kernel 'scale_cpu' (CPU) is declared but not defined; expected: at::Tensor "
          "demo::native::scale_cpu(const at::Tensor & self, double factor, ::std::optional<int64_t> limit); found "
          "instead: demo::native::scale_cpu(at::Tensor const&, double, std::optional<int>)",
      y + ":5:3: error: in 'twice': kernel 'twice' (CompositeImplicitAutograd) is declared but not defined; expected: "
          "at::Tensor demo::native::twice(const at::Tensor & self); found instead: demo::native::(anonymous "
          "namespace)::twice(at::Tensor const&) (local to " + (c.dir / "kernels.o").string() + ")",
      y + ":7:3: error: in 'shift': kernel 'shift_kernel' (CPU, Meta) is declared but not defined; expected: "
          "at::Tensor demo::native::shift_kernel(const at::Tensor & self, at::IntArrayRef dims)",
      y + ":11:3: error: in 'add.out': meta function 'add' is declared but not defined; expected: "
          "TORCH_META_FUNC(add)(const at::Tensor & self, const at::Tensor & other) in namespace demo::meta",
      y + ":11:3: error: in 'add.out': structured kernel 'add_out' (CPU) is declared but not defined; expected: "
          "TORCH_IMPL_FUNC(add_out)(const at::Tensor & self, const at::Tensor & other, const at::Tensor & out) in "
          "namespace demo::native",
      y + ": note: opgen looked for the kernels in 2 files (the library's objects and the libraries of its project "
          "that it links); kernels defined elsewhere: set the library's target property OPGEN_CHECK_KERNELS to OFF",
  })) << r.describe();
}

TEST(KernelCheck, OverloadedKernelsAreToldApartByTheirParameters) {
  // Three operators, one kernel name: C++ overloads, told apart by the kinds of their parameters
  // (int64_t/long against double), then by their number.
  Check c(R"(- func: demo::pick.int(Tensor self, int n) -> Tensor
  dispatch:
    CPU: pick_cpu
- func: demo::pick.float(Tensor self, float x) -> Tensor
  dispatch:
    CPU: pick_cpu
- func: demo::pick.one(Tensor self) -> Tensor
  dispatch:
    CPU: pick_cpu
)",
          R"(#include <cstdint>
namespace at { struct Tensor {}; }
namespace demo::native {
at::Tensor pick_cpu(const at::Tensor&, int64_t);
at::Tensor pick_cpu(const at::Tensor&, double);
at::Tensor pick_cpu(const at::Tensor&);
}
void registerAll() {
  at::Tensor t;
  demo::native::pick_cpu(t, int64_t{1});
  demo::native::pick_cpu(t, 1.0);
  demo::native::pick_cpu(t);
}
)");
  ProcessResult r = c.run({c.registration, c.kernels("kernels", R"(
at::Tensor demo::native::pick_cpu(const at::Tensor& t, int64_t) { return t; }
)")});
  EXPECT_EQ(r.exitCode, 1) << r.describe();
  const std::string y = c.yaml.string();
  EXPECT_EQ(lines(r.err), (std::vector<std::string>{
      y + ":4:3: error: in 'pick.float': kernel 'pick_cpu' (CPU) is declared but not defined; expected: at::Tensor "
          "demo::native::pick_cpu(const at::Tensor & self, double x)",
      y + ":7:3: error: in 'pick.one': kernel 'pick_cpu' (CPU) is declared but not defined; expected: at::Tensor "
          "demo::native::pick_cpu(const at::Tensor & self)",
      y + ": note: opgen looked for the kernels in 2 files (the library's objects and the libraries of its project "
          "that it links); kernels defined elsewhere: set the library's target property OPGEN_CHECK_KERNELS to OFF",
  })) << r.describe();
}

TEST(KernelCheck, TheExpectationIsSpelledForTheLibtorch) {
  Check c;
  ProcessResult r = c.run({c.registration}, /*torch=*/1);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("expected: at::Tensor demo::native::scale_cpu(const at::Tensor & self, double factor, "
                       "c10::optional<int64_t> limit)\n"),
            std::string::npos)
      << r.err;
}

// The kernels of autogen's variants are opgen's (src/AutogenKernels.cpp), not the user's: only the
// in-place operator's kernel is reported.
TEST(KernelCheck, AutogenVariantsKernelsAreNotTheUsers) {
  Check c(R"(- func: demo::scale_(Tensor(a!) self, float f) -> Tensor(a!)
  dispatch:
    CPU: scale_cpu_
  autogen: scale, scale.out
)",
          R"(namespace at { struct Tensor {}; }
namespace demo::native {
at::Tensor& scale_cpu_(at::Tensor&, double);
at::Tensor scale(const at::Tensor&, double);
at::Tensor& scale_out(const at::Tensor&, double, at::Tensor&);
}
void registerAll() {
  at::Tensor t;
  demo::native::scale_cpu_(t, 1.0);
  demo::native::scale(t, 1.0);
  demo::native::scale_out(t, 1.0, t);
}
)");
  ProcessResult r = c.run({c.registration, c.kernels("none", "")});
  EXPECT_EQ(r.exitCode, 1);
  const std::string y = c.yaml.string();
  EXPECT_EQ(lines(r.err), (std::vector<std::string>{
      y + ":1:3: error: in 'scale_': kernel 'scale_cpu_' (CPU) is declared but not defined; expected: at::Tensor & "
          "demo::native::scale_cpu_(at::Tensor & self, double f)",
      y + ": note: opgen looked for the kernels in 2 files (the library's objects and the libraries of its project "
          "that it links); kernels defined elsewhere: set the library's target property OPGEN_CHECK_KERNELS to OFF",
  })) << r.describe();
  r = c.run({c.registration, c.kernels("kernels", "at::Tensor& demo::native::scale_cpu_(at::Tensor& t, double) { return t; }\n")});
  EXPECT_TRUE(r.ok()) << r.describe();
}

TEST(KernelCheck, KernelsInALinkedArchiveOrSharedLibraryCount) {
  Check c;
  const fs::path kernels = c.kernels("kernels", kAllDefined);
  const fs::path archive = c.dir / "libkernels.a";
  ASSERT_TRUE(runProcess({OPGEN_TEST_AR, "qc", archive.string(), kernels.string()}).ok());
  ProcessResult r = c.run({c.registration, archive});
  EXPECT_TRUE(r.ok()) << r.describe();
  const fs::path so = c.dir / "libkernels.so";
  ASSERT_TRUE(runProcess({OPGEN_TEST_CXX, "-shared", "-o", so.string(), kernels.string()}).ok());
  r = c.run({c.registration, so});
  EXPECT_TRUE(r.ok()) << r.describe();
}

TEST(KernelCheck, LtoObjectsAreNotCheckedWithAWarning) {
  Check c;
  const fs::path lto = c.kernels("lto", "", {"-flto", "-fno-fat-lto-objects"});
  ProcessResult r = c.run({c.registration, lto});
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.err, c.yaml.string() + ": warning: the kernels are not checked: " + lto.string() +
                       " is a GCC LTO object (compiled with -flto): its symbols are known to the linker plugin only\n");
}

TEST(KernelCheck, UnreadableFilesAndBadCommandLines) {
  Check c;
  ProcessResult r = c.run({c.registration, c.dir / "nope.o"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, (c.dir / "nope.o").string() + ": error: cannot read its symbols: No such file or directory\n");
  r = c.run({});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--check-kernels needs the files to check"), std::string::npos) << r.err;
}

}  // namespace
