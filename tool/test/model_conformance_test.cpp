// Conformance of opgen's operator model with torchgen's (the reference, torchgen 2.14.1).
//
// For every input, `opgen parse YAML --tags TAGS` prints the parsed model as JSON and
// tool/test/reference/dump_model.py prints the same JSON from torchgen's objects
// (parse_native_yaml, get_grouped_native_functions, get_grouped_by_view_native_functions); the test
// compares the two field by field: the functions in order, every field of each function, the groups, the
// view groups, the counts and the size of each backend index.
//
// Inputs:
//   aten                 torchgen's packaged native_functions.yaml / tags.yaml (PyTorch 2.14.1)
//   <stem>               every tool/test/data/conformance/<stem>.yaml, parsed with tags_<stem>.yaml there
//                        when it exists, else with tags.yaml (files named tags*.yaml are not inputs)
//   subset_<name>        subsets of the packaged ATen yaml, cut at test time into a temporary directory by
//                        `dump_model.py subset` (operators matching some name prefixes plus what they
//                        depend on)
//
// The reference is the runner shared/reference/torchgen-ref: $OPGEN_TORCHGEN_REF, else the path
// configured in CMake (OPGEN_TORCHGEN_REF). Without it the comparisons are skipped, saying so; the
// OpgenParse tests of the fixtures still run. OPGEN_KEEP_TEMP=1 keeps the generated subsets.
//
// Run:  ctest --test-dir build -R ModelConformance --output-on-failure
//   or  build/tool/test/opgen_tests --gtest_filter='*ModelConformance*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "TestSupport.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using opgen::test::ProcessResult;
using opgen::test::reference;
using opgen::test::TempDir;

constexpr std::size_t kMaxShown = 10;  // differences listed per aspect

// ---------------------------------------------------------------------------------------------------
// Inputs

struct Input {
  enum class Kind { Aten, Fixture, Subset };
  std::string name;  // the test name suffix
  Kind kind = Kind::Fixture;
  fs::path yaml, tags;                // Fixture
  std::vector<std::string> prefixes;  // Subset
};

// How GoogleTest names a parameter in its messages.
void PrintTo(const Input& input, std::ostream* os) { *os << input.name; }

// Subsets of the packaged ATen yaml: operator name prefixes (see dump_model.py subset).
const std::vector<std::pair<std::string, std::vector<std::string>>>& atenSubsets() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> subsets = {
      // arithmetic, reductions, structured kernels with ufunc loops, out=/in-place groups
      {"arith", {"add", "sub", "mul", "div", "abs", "relu", "sum", "mean", "max", "min", "clamp", "where",
                 "pow", "exp", "log"}},
      // view operators, their view_copy variants, inplace views
      {"views", {"view", "transpose", "as_strided", "select", "slice", "unbind", "split", "squeeze",
                 "unsqueeze", "expand", "narrow", "diagonal", "permute", "alias", "t", "detach", "unfold",
                 "chunk", "reshape"}},
      // mutable ops with generated functional variants, factories, foreach, random, resize_/set_
      {"misc", {"native_batch_norm", "_foreach_add", "empty", "zeros", "randn", "rand", "conv", "index",
                "copy", "resize", "_fused", "fill", "normal", "bernoulli", "_amp", "set_", "lift"}},
  };
  return subsets;
}

std::vector<Input> allInputs() {
  std::vector<Input> inputs;
  inputs.push_back(Input{"aten", Input::Kind::Aten, {}, {}, {}});

  fs::path dir = fs::path(OPGEN_TEST_DATA) / "conformance";
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".yaml" && p.stem().string().rfind("tags", 0) != 0) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    fs::path tags = dir / ("tags_" + p.stem().string() + ".yaml");
    if (!fs::exists(tags)) tags = dir / "tags.yaml";
    std::string name = p.stem().string();
    std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                    '_');
    inputs.push_back(Input{name, Input::Kind::Fixture, p, tags, {}});
  }

  for (const auto& [name, prefixes] : atenSubsets()) {
    inputs.push_back(Input{"subset_" + name, Input::Kind::Subset, {}, {}, prefixes});
  }
  return inputs;
}

fs::path dumpModelScript() { return fs::path(OPGEN_TEST_SCRIPTS) / "dump_model.py"; }

// An input made concrete: the files to parse (generated for subsets), or why that is not possible.
struct Resolved {
  fs::path yaml, tags;
  std::string skip;   // non-empty: the test cannot run here (no reference), say why
  std::string error;  // non-empty: preparing the input failed
  std::string name;
  std::string describe() const { return "[" + name + "] " + yaml.string() + " (tags " + tags.string() + ")"; }
};

const Resolved& resolve(const Input& input) {
  static std::map<std::string, Resolved> cache;
  static std::unique_ptr<TempDir> tempDir;  // lives until the end of the process
  if (auto it = cache.find(input.name); it != cache.end()) return it->second;

  Resolved r;
  r.name = input.name;
  const auto& ref = reference();
  switch (input.kind) {
    case Input::Kind::Fixture:
      r.yaml = input.yaml;
      r.tags = input.tags;
      break;
    case Input::Kind::Aten:
      if (!ref.available) {  // absent: skipped; there but broken: failed
        (ref.present ? r.error : r.skip) = ref.problem;
        break;
      }
      r.yaml = ref.atenNativeFunctions();
      r.tags = ref.atenTags();
      break;
    case Input::Kind::Subset: {
      if (!ref.available) {  // absent: skipped; there but broken: failed
        (ref.present ? r.error : r.skip) = ref.problem;
        break;
      }
      if (!tempDir) tempDir = std::make_unique<TempDir>("opgen-conformance");
      r.yaml = tempDir->path() / (input.name + ".yaml");
      r.tags = ref.atenTags();
      std::vector<std::string> args = {dumpModelScript().string(), "subset", ref.atenNativeFunctions().string(),
                                       r.yaml.string()};
      args.insert(args.end(), input.prefixes.begin(), input.prefixes.end());
      ProcessResult p = ref.python(args);
      if (!p.ok()) r.error = "cannot generate the ATen subset " + input.name + ": " + p.describe();
      break;
    }
  }
  return cache.emplace(input.name, std::move(r)).first->second;
}

// ---------------------------------------------------------------------------------------------------
// Running the two tools (once per input and process)

struct Model {
  json value;         // the parsed JSON when ok
  ProcessResult run;  // the process that printed it
  std::string error;  // non-empty: the run failed or did not print JSON
};

std::string head(const std::string& text, std::size_t n = 1500) {
  return text.size() > n ? text.substr(0, n) + "\n..." : text;
}

Model parseJsonOutput(ProcessResult run) {
  Model m;
  m.run = std::move(run);
  if (!m.run.ok()) {
    m.error = m.run.describe();
    return m;
  }
  try {
    m.value = json::parse(m.run.out);
  } catch (const json::parse_error& e) {
    m.error = "`" + m.run.command + "` did not print valid JSON (" + e.what() + "); its output begins:\n" +
              head(m.run.out) + (m.run.err.empty() ? "" : "\nstderr:\n" + head(m.run.err));
  }
  return m;
}

const Model& referenceModel(const Input& input, const Resolved& r) {
  static std::map<std::string, Model> cache;
  if (auto it = cache.find(input.name); it != cache.end()) return it->second;
  Model m = parseJsonOutput(reference().python({dumpModelScript().string(), r.yaml.string(), r.tags.string()}));
  return cache.emplace(input.name, std::move(m)).first->second;
}

const Model& opgenModel(const Input& input, const Resolved& r) {
  static std::map<std::string, Model> cache;
  if (auto it = cache.find(input.name); it != cache.end()) return it->second;
  Model m = parseJsonOutput(opgen::test::runProcess(
      {opgen::test::opgenBinary().string(), "parse", r.yaml.string(), "--tags", r.tags.string()}));
  return cache.emplace(input.name, std::move(m)).first->second;
}

// ---------------------------------------------------------------------------------------------------
// Readable differences

// A compact, readable rendering: strings quoted at the top level, bare inside lists and maps.
std::string show(const json& v, bool top = true) {
  if (v.is_string()) return top ? v.dump() : v.get<std::string>();
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + show(v[i], false);
    return s + "]";
  }
  if (v.is_object()) {
    std::string s = "{";
    bool first = true;
    for (const auto& [k, x] : v.items()) {
      s += (first ? "" : ", ") + k + ": " + show(x, false);
      first = false;
    }
    return s + "}";
  }
  return v.dump();
}

// What differs between two values: per key for maps, missing/extra elements for lists of strings
// (with both lists when only the order differs), both values otherwise.
std::string describeDiff(const json& ref, const json& got) {
  std::ostringstream s;
  if (ref.is_object() && got.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : ref.items()) keys.insert(k);
    for (const auto& [k, v] : got.items()) keys.insert(k);
    bool first = true;
    for (const auto& k : keys) {
      bool inRef = ref.contains(k), inGot = got.contains(k);
      if (inRef && inGot && ref[k] == got[k]) continue;
      s << (first ? "" : "; ") << k << ": ";
      first = false;
      if (!inGot) {
        s << "torchgen " << show(ref[k]) << ", opgen has none";
      } else if (!inRef) {
        s << "torchgen has none, opgen " << show(got[k]);
      } else {
        s << "torchgen " << show(ref[k]) << ", opgen " << show(got[k]);
      }
    }
    return s.str();
  }
  auto isStringList = [](const json& v) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_string(); });
  };
  if (isStringList(ref) && isStringList(got)) {
    std::set<std::string> a, b;
    for (const auto& x : ref) a.insert(x.get<std::string>());
    for (const auto& x : got) b.insert(x.get<std::string>());
    std::vector<std::string> missing, extra;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(missing));
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(extra));
    s << "torchgen " << show(ref) << ", opgen " << show(got);
    if (!missing.empty()) s << " (opgen lacks " << show(json(missing)) << ")";
    if (!extra.empty()) s << " (opgen adds " << show(json(extra)) << ")";
    if (missing.empty() && extra.empty()) s << " (same elements, different order or repeats)";
    return s.str();
  }
  s << "torchgen " << show(ref) << ", opgen " << show(got);
  return s.str();
}

// Collects the differences of one aspect (a field, the groups, ...) and reports them as one failure.
class Differences {
 public:
  Differences(std::string input, std::string aspect) : input_(std::move(input)), aspect_(std::move(aspect)) {}
  void add(const std::string& line) {
    if (count_++ < kMaxShown) lines_ << "\n  " << line;
  }
  void note(const std::string& line) { notes_ << "\n" << line; }
  std::size_t count() const { return count_; }
  // Adds a non-fatal failure when there were differences.
  void report() const {
    if (count_ == 0 && notes_.str().empty()) return;
    std::ostringstream s;
    s << input_ << ":\n" << aspect_;
    if (count_ > 0) {
      s << " -- " << count_ << " difference" << (count_ == 1 ? "" : "s");
      if (count_ > kMaxShown) s << " (first " << kMaxShown << " shown)";
      s << ":" << lines_.str();
    }
    s << notes_.str();
    ADD_FAILURE() << s.str();
  }

 private:
  std::string input_, aspect_;
  std::size_t count_ = 0;
  std::ostringstream lines_, notes_;
};

std::string nameOf(const json& f) { return f.contains("name") && f["name"].is_string() ? f["name"].get<std::string>() : "?"; }
// "native_functions.yaml:123": the file name only (the message names the input's full path once).
std::string locationOf(const json& f) {
  if (!f.contains("location") || !f["location"].is_string()) return "";
  std::string loc = f["location"].get<std::string>();
  auto slash = loc.rfind('/');
  return slash == std::string::npos ? loc : loc.substr(slash + 1);
}

// The functions: their names in order, then every field of the functions both have.
void compareFunctions(const std::string& input, const json& ref, const json& got) {
  const json& rf = ref.at("native_functions");
  const json& gf = got.at("native_functions");
  std::vector<std::string> rn, gn;
  std::map<std::string, const json*> rByName, gByName;
  for (const auto& f : rf) {
    rn.push_back(nameOf(f));
    rByName.emplace(rn.back(), &f);
  }
  for (const auto& f : gf) {
    gn.push_back(nameOf(f));
    gByName.emplace(gn.back(), &f);
  }

  if (rn != gn) {
    Differences d(input, "native_functions: the list of names differs (torchgen " + std::to_string(rn.size()) +
                             ", opgen " + std::to_string(gn.size()) + " functions)");
    std::set<std::string> rs(rn.begin(), rn.end()), gs(gn.begin(), gn.end());
    for (const auto& n : rn) {
      if (!gs.count(n)) d.add("missing in opgen: " + n + " (" + locationOf(*rByName[n]) + ")");
    }
    for (const auto& n : gn) {
      if (!rs.count(n)) d.add("only in opgen: " + n + " (" + locationOf(*gByName[n]) + ")");
    }
    if (gs.size() != gn.size()) d.note("opgen lists some names more than once");
    // The first place where the common names come in a different order.
    std::vector<std::string> rc, gc;
    for (const auto& n : rn) if (gs.count(n)) rc.push_back(n);
    for (const auto& n : gn) if (rs.count(n)) gc.push_back(n);
    for (std::size_t i = 0; i < std::min(rc.size(), gc.size()); ++i) {
      if (rc[i] != gc[i]) {
        std::ostringstream s;
        s << "order: among the names both list, #" << i << " is " << rc[i] << " in torchgen but " << gc[i]
          << " in opgen; torchgen continues";
        for (std::size_t j = i; j < std::min(rc.size(), i + 5); ++j) s << " " << rc[j];
        s << " ...; opgen continues";
        for (std::size_t j = i; j < std::min(gc.size(), i + 5); ++j) s << " " << gc[j];
        s << " ...";
        d.note(s.str());
        break;
      }
    }
    d.report();
  }

  // Every field, in the order of the reference's keys; one failure per field.
  std::vector<std::string> fields;
  if (!rf.empty()) {
    for (const auto& [k, v] : rf[0].items()) fields.push_back(k);
  }
  std::map<std::string, std::unique_ptr<Differences>> perField;
  auto diffs = [&](const std::string& field) -> Differences& {
    auto& slot = perField[field];
    if (!slot) slot = std::make_unique<Differences>(input, "native_functions: field \"" + field + "\"");
    return *slot;
  };
  Differences extraFields(input, "native_functions: fields opgen prints that are not in the contract");
  for (const auto& f : rf) {
    const std::string n = nameOf(f);
    auto it = gByName.find(n);
    if (it == gByName.end()) continue;
    const json& g = *it->second;
    for (const auto& [k, v] : f.items()) {
      if (!g.contains(k)) {
        diffs(k).add(n + " (" + locationOf(f) + "): opgen has no field \"" + k + "\" (torchgen " + show(v) + ")");
      } else if (g[k] != v) {
        diffs(k).add(n + " (" + locationOf(f) + "): " + describeDiff(v, g[k]));
      }
    }
    for (const auto& [k, v] : g.items()) {
      if (!f.contains(k)) extraFields.add(n + ": \"" + k + "\": " + show(v));
    }
  }
  for (const auto& field : fields) {
    if (auto it = perField.find(field); it != perField.end()) it->second->report();
  }
  for (const auto& [field, d] : perField) {
    if (std::find(fields.begin(), fields.end(), field) == fields.end()) d->report();
  }
  extraFields.report();
}

// An ordered list of objects identified by one of their keys (groups by "functional", view groups by
// "view"): which are missing, which are extra, which differ, and where the order departs.
void compareKeyedList(const std::string& input, const std::string& what, const std::string& key, const json& ref,
                      const json& got) {
  if (ref == got) return;
  Differences d(input, what + " (torchgen " + std::to_string(ref.size()) + ", opgen " + std::to_string(got.size()) +
                           ")");
  auto keyOf = [&](const json& x) {
    return x.is_object() && x.contains(key) && x[key].is_string() ? x[key].get<std::string>() : x.dump();
  };
  std::map<std::string, const json*> rBy, gBy;
  std::vector<std::string> rk, gk;
  for (const auto& x : ref) {
    rk.push_back(keyOf(x));
    rBy.emplace(rk.back(), &x);
  }
  for (const auto& x : got) {
    gk.push_back(keyOf(x));
    gBy.emplace(gk.back(), &x);
  }
  for (const auto& k : rk) {
    auto it = gBy.find(k);
    if (it == gBy.end()) {
      d.add("missing in opgen: " + show(*rBy[k]));
    } else if (*it->second != *rBy[k]) {
      d.add(key + " " + k + ": " + describeDiff(*rBy[k], *it->second));
    }
  }
  for (const auto& k : gk) {
    if (!rBy.count(k)) d.add("only in opgen: " + show(*gBy[k]));
  }
  std::vector<std::string> rc, gc;
  for (const auto& k : rk) if (gBy.count(k)) rc.push_back(k);
  for (const auto& k : gk) if (rBy.count(k)) gc.push_back(k);
  for (std::size_t i = 0; i < std::min(rc.size(), gc.size()); ++i) {
    if (rc[i] != gc[i]) {
      d.note("order: among the entries both list, #" + std::to_string(i) + " is " + key + " " + rc[i] +
             " in torchgen but " + gc[i] + " in opgen");
      break;
    }
  }
  if (d.count() == 0) d.note("(the lists differ, e.g. by repeated entries)");
  d.report();
}

void compareMap(const std::string& input, const std::string& what, const json& ref, const json& got) {
  if (ref == got) return;
  Differences d(input, what);
  std::set<std::string> keys;
  for (const auto& [k, v] : ref.items()) keys.insert(k);
  for (const auto& [k, v] : got.items()) keys.insert(k);
  for (const auto& k : keys) {
    bool inRef = ref.contains(k), inGot = got.contains(k);
    if (inRef && inGot && ref[k] == got[k]) continue;
    d.add(k + ": torchgen " + (inRef ? show(ref[k]) : "(none)") + ", opgen " + (inGot ? show(got[k]) : "(none)"));
  }
  d.report();
}

// The shape of the contract, checked on opgen's output before comparing (so that the comparison can
// index freely). Returns the problems found.
std::vector<std::string> shapeProblems(const json& m) {
  std::vector<std::string> p;
  if (!m.is_object()) return {"the output is not a JSON object"};
  auto need = [&](const char* k, bool (json::*is)() const noexcept, const char* type) {
    if (!m.contains(k)) {
      p.push_back(std::string("no \"") + k + "\"");
    } else if (!(m[k].*is)()) {
      p.push_back(std::string("\"") + k + "\" is not " + type);
    }
  };
  need("native_functions", &json::is_array, "an array");
  need("groups", &json::is_array, "an array");
  need("view_groups", &json::is_array, "an array");
  need("counts", &json::is_object, "an object");
  need("backend_indices", &json::is_object, "an object");
  if (!p.empty()) return p;

  const std::vector<std::pair<const char*, const char*>> fields = {
      {"name", "string"},    {"namespace", "string"}, {"func", "string"},       {"location", "string"},
      {"generated", "bool"}, {"kind", "string"},      {"dispatch", "object"},   {"structured", "bool"},
      {"structured_delegate", "string|null"},         {"tags", "array"},        {"variants", "array"}};
  std::size_t bad = 0;
  for (const auto& f : m["native_functions"]) {
    std::string why;
    if (!f.is_object()) {
      why = "not an object";
    } else {
      for (const auto& [k, type] : fields) {
        if (!f.contains(k)) {
          why += std::string(" no \"") + k + "\";";
          continue;
        }
        const json& v = f[k];
        std::string t = type;
        bool ok = (t == "string" && v.is_string()) || (t == "bool" && v.is_boolean()) ||
                  (t == "object" && v.is_object()) || (t == "array" && v.is_array()) ||
                  (t == "string|null" && (v.is_string() || v.is_null()));
        if (!ok) why += std::string(" \"") + k + "\" is not " + t + ";";
      }
    }
    if (!why.empty() && bad++ < kMaxShown) p.push_back("native function " + nameOf(f) + ":" + why);
  }
  if (bad > kMaxShown) p.push_back("... " + std::to_string(bad - kMaxShown) + " more functions with problems");
  for (const char* k : {"native_functions", "groups", "view_groups"}) {
    const json& c = m["counts"];
    if (!c.contains(k) || !c[k].is_number_integer() || c[k].get<std::size_t>() != m[k].size()) {
      p.push_back(std::string("counts.") + k + " is " + (c.contains(k) ? c[k].dump() : "missing") + " but \"" + k +
                  "\" has " + std::to_string(m[k].size()) + " entries");
    }
  }
  return p;
}

// ---------------------------------------------------------------------------------------------------
// The tests

class ModelConformance : public ::testing::TestWithParam<Input> {};

// `opgen parse` accepts the input: exits 0 and prints JSON in the shape of the contract.
TEST_P(ModelConformance, OpgenParse) {
  const Input& input = GetParam();
  const Resolved& r = resolve(input);
  if (!r.skip.empty()) GTEST_SKIP() << r.skip;
  ASSERT_TRUE(r.error.empty()) << r.error;
  const Model& got = opgenModel(input, r);
  ASSERT_TRUE(got.error.empty()) << r.describe() << ":\n" << got.error;
  auto problems = shapeProblems(got.value);
  std::string all;
  for (const auto& p : problems) all += "\n  " + p;
  EXPECT_TRUE(problems.empty()) << r.describe() << ": `" << got.run.command
                                << "` printed JSON not in the shape of the contract:" << all;
}

// opgen's model equals torchgen's on the input.
TEST_P(ModelConformance, MatchesTorchgen) {
  const Input& input = GetParam();
  const Resolved& r = resolve(input);
  if (!r.skip.empty()) GTEST_SKIP() << r.skip;
  OPGEN_REQUIRE_REFERENCE();
  ASSERT_TRUE(r.error.empty()) << r.error;

  const Model& ref = referenceModel(input, r);
  ASSERT_TRUE(ref.error.empty()) << "the reference failed on " << r.describe() << " (a broken fixture?):\n"
                                 << ref.error;
  const Model& got = opgenModel(input, r);
  ASSERT_TRUE(got.error.empty()) << r.describe() << ":\n" << got.error;
  auto problems = shapeProblems(got.value);
  if (!problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += "\n  " + p;
    FAIL() << r.describe() << ": opgen's JSON is not in the shape of the contract; not comparing:" << all;
  }

  const std::string where = r.describe();
  compareFunctions(where, ref.value, got.value);
  compareKeyedList(where, "groups", "functional", ref.value.at("groups"), got.value.at("groups"));
  compareKeyedList(where, "view_groups", "view", ref.value.at("view_groups"), got.value.at("view_groups"));
  compareMap(where, "counts", ref.value.at("counts"), got.value.at("counts"));
  compareMap(where, "backend_indices (dispatch key -> number of operators)", ref.value.at("backend_indices"),
             got.value.at("backend_indices"));
  // Top-level keys beyond the contract.
  for (const auto& [k, v] : got.value.items()) {
    EXPECT_TRUE(ref.value.contains(k)) << where << ": opgen prints a top-level \"" << k
                                       << "\" that is not in the contract";
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, ModelConformance, ::testing::ValuesIn(allInputs()),
                         [](const ::testing::TestParamInfo<Input>& info) { return info.param.name; });

// The inputs are there: the fixtures folder is not empty and the reference script exists.
TEST(ModelConformanceInputs, FixturesAndScriptExist) {
  std::size_t fixtures = 0;
  for (const auto& in : allInputs()) fixtures += in.kind == Input::Kind::Fixture;
  EXPECT_GE(fixtures, 1u) << "no fixtures in " << fs::path(OPGEN_TEST_DATA) / "conformance";
  EXPECT_TRUE(fs::exists(dumpModelScript())) << dumpModelScript();
}

}  // namespace
