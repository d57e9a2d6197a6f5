#include "model/Loader.h"

#include <algorithm>
#include <atomic>
#include <array>
#include <map>
#include <memory>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "model/Autogen.h"
#include "support/Strings.h"
#include "support/Yaml.h"

namespace opgen::model {

using support::Diagnostics;
using support::ScalarKind;
using support::SourceLoc;
using support::YamlNode;

namespace {

constexpr std::array<std::string_view, 19> kEntryKeys = {
    "func", "variants", "dispatch", "structured", "structured_delegate", "structured_inherits", "precomputed",
    "device_guard", "device_check", "manual_kernel_registration", "manual_cpp_binding", "python_module",
    "category_override", "autogen", "tags", "ufunc_inner_loop", "cpp_no_default_args",
    "use_const_ref_for_mutable_tensors", "fake"};

constexpr std::array<std::string_view, 35> kPythonKeywords = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
    "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
static_assert(std::is_sorted(kPythonKeywords.begin(), kPythonKeywords.end()), "looked up by binary search");

// Operators that predate the reserved-keyword rule (torchgen's exclusion list).
bool reservedKeywordExcluded(const std::string& op, const std::string& arg) {
  return arg == "from" && (op == "_has_compatible_shallow_copy_type" || op == "random_.from" || op == "uniform_");
}

// The dispatch table of one entry, in the order its keys were written.
using DispatchTable = std::vector<std::pair<DispatchKey, BackendMetadata>>;

// Parses one `- func: ...` entry. Reports the first problem of the entry and gives up on it.
class EntryParser {
 public:
  EntryParser(const YamlNode& entry, const std::string& path, const std::set<std::string>& validTags,
              const LoadOptions& options, Diagnostics& diags, std::vector<support::Diagnostic>& lints)
      : e_(entry), path_(path), validTags_(validTags), options_(options), diags_(diags), lints_(lints) {}

  bool parse(NativeFunction& f, DispatchTable& dispatch);

 private:
  // Error at a node (or at an offset inside a scalar node), naming the entry.
  bool fail(const YamlNode& at, const std::string& message, int offset = 0) {
    SourceLoc loc = support::locOf(at, path_).shifted(offset);
    if (entryName_.empty()) diags_.error(loc, message);
    else diags_.errorAbout(loc, entryName_, message);
    return false;
  }

  // A rule that older files may break: decided later whether it is an error or a warning.
  void lint(const YamlNode& at, const std::string& message) {
    lints_.push_back({support::Severity::Error, support::locOf(at, path_), support::aboutOperator(entryName_, message)});
  }

  // The value of the entry's first `key`, or an undefined node.
  const YamlNode& get(std::string_view key) const { return e_[key]; }

  bool getBool(std::string_view key, bool def, bool& out) {
    const YamlNode& n = get(key);
    if (!n.isDefined()) {
      out = def;
      return true;
    }
    if (support::scalarKind(n) != ScalarKind::Bool)
      return fail(n, "'" + std::string(key) + "' must be a bool (True or False), not " + support::describeNode(n));
    out = support::scalarBool(n);
    return true;
  }

  // A string-valued key; absent or null gives nullopt.
  bool getString(std::string_view key, std::optional<std::string>& out) {
    const YamlNode& n = get(key);
    if (!n.isDefined() || support::scalarKind(n) == ScalarKind::Null) return true;
    if (support::scalarKind(n) != ScalarKind::String)
      return fail(n, "'" + std::string(key) + "' must be a string, not " + support::describeNode(n));
    out = n.text();
    return true;
  }

  bool checkKeys();
  bool parseFunc(NativeFunction& f, const YamlNode*& funcNode);
  bool parseVariants(NativeFunction& f);
  bool parseTags(NativeFunction& f);
  bool parseDispatch(NativeFunction& f, DispatchTable& dispatch);
  bool parseUfunc(NativeFunction& f, DispatchTable& dispatch);
  bool parsePrecomputed(NativeFunction& f);
  bool parseAutogen(NativeFunction& f);
  bool parseFake(NativeFunction& f);
  bool checkInvariants(const NativeFunction& f, const YamlNode& funcNode);

  const YamlNode& e_;
  const std::string& path_;
  const std::set<std::string>& validTags_;
  const LoadOptions& options_;
  // The namespace of f's kernels named without one.
  std::string kernelNamespace(const NativeFunction& f) const {
    return options_.defaultKernelNamespace.empty() ? f.ns : options_.defaultKernelNamespace;
  }
  Diagnostics& diags_;
  std::vector<support::Diagnostic>& lints_;
  std::string entryName_;
};

bool EntryParser::checkKeys() {
  std::set<std::string> seen;
  for (const auto& kv : e_.entries()) {
    if (!kv.key.isScalar()) return fail(kv.key, "keys of an entry must be strings");
    const std::string& key = kv.key.text();
    if (std::find(kEntryKeys.begin(), kEntryKeys.end(), key) == kEntryKeys.end() ||
        (key == "fake" && !options_.fakeKey))  // (not torchgen's: operator libraries only)
      return fail(kv.key, "unknown key '" + key + "'");
    if (!seen.insert(key).second) return fail(kv.key, "duplicate key '" + key + "'");
    if (const auto refused = options_.refusedKeys.find(key); refused != options_.refusedKeys.end())
      return fail(kv.key, "'" + key + "' is not supported here: " + refused->second);
  }
  return true;
}

bool EntryParser::parseFunc(NativeFunction& f, const YamlNode*& funcNodeOut) {
  const YamlNode& funcNode = get("func");
  funcNodeOut = &funcNode;
  if (!funcNode.isDefined()) return fail(e_, "entry has no 'func' key");
  if (support::scalarKind(funcNode) != ScalarKind::String)
    return fail(funcNode, "'func' must be a string, not " + support::describeNode(funcNode));
  const std::string& text = funcNode.text();
  f.funcText = text;
  // At most one level of namespace: "myops::foo(...)".
  auto parts = support::split(text, "::");
  std::string_view entity = parts.back();
  int entityOffset = static_cast<int>(text.size() - entity.size());
  entryName_ = std::string(entity.substr(0, entity.find('(')));
  if (parts.size() > 2)
    return fail(funcNode, "codegen doesn't support more than 1 level(s) of custom namespace; got '" +
                              std::string(text.substr(0, text.size() - entity.size() - 2)) + "'");
  f.explicitNamespace = parts.size() == 2;
  f.ns = parts.size() == 2 ? std::string(parts[0]) : "aten";
  auto schema = FunctionSchema::parse(entity);
  if (!schema) return fail(funcNode, schema.error().message, entityOffset + std::max(0, schema.error().offset));
  f.func = schema.take();
  // A quoted scalar starts one column after its quote; a scalar on several lines has no columns.
  if (funcNode.line() >= 0 && text.find('\n') == std::string::npos) {
    const support::SourceLoc at = support::locOf(funcNode, path_).shifted(entityOffset + (funcNode.isPlain() ? 0 : 1));
    f.schemaLoc = Location{at.file, at.line, at.column};
  }
  f.schemaString = std::string(entity);  // parse() checked that the schema prints back as its text
  f.signatureString = f.func.signature().str();
  entryName_ = f.func.name.str();
  return true;
}

bool EntryParser::parseVariants(NativeFunction& f) {
  const YamlNode& n = get("variants");
  std::string text = "function";
  if (n.isDefined()) {
    if (support::scalarKind(n) != ScalarKind::String)
      return fail(n, "'variants' must be a string such as 'function, method', not " + support::describeNode(n));
    text = n.text();
  }
  int offset = 0;
  for (auto v : support::split(text, ", ")) {
    if (v == "function") f.variants.insert(Variant::Function);
    else if (v == "method" && !options_.methodVariants)
      return fail(n, "'method' variants are not supported here: operators are functions (NS::op), "
                     "not Tensor methods", offset);
    else if (v == "method") f.variants.insert(Variant::Method);
    else return fail(n, "illegal variant '" + std::string(v) + "' (expected 'function' or 'method')", offset);
    offset += static_cast<int>(v.size()) + 2;
  }
  return true;
}

// `fake: python` (operator libraries): the operator's fake kernel is a Python one.
bool EntryParser::parseFake(NativeFunction& f) {
  const YamlNode& n = get("fake");
  if (!n.isDefined()) return true;
  if (support::scalarKind(n) != ScalarKind::String || n.text() != "python")
    return fail(n, "'fake' must be `python` (its fake kernel is a Python one, in the library's PYTHON_FAKES "
                   "file), not " + support::describeNode(n) + "; a C++ fake kernel is a `Meta:` kernel in `dispatch:`");
  const SourceLoc at = support::locOf(n, path_);
  f.pythonFake = true;
  f.fakeLoc = Location{path_, at.line, at.column};
  return true;
}

bool EntryParser::parseTags(NativeFunction& f) {
  const YamlNode& n = get("tags");
  std::vector<std::pair<std::string, const YamlNode*>> tags;
  if (n.isDefined()) {
    if (n.isSequence()) {
      for (const YamlNode& t : n.items()) {
        if (support::scalarKind(t) != ScalarKind::String) return fail(t, "a tag must be a string");
        tags.emplace_back(t.text(), &t);
      }
    } else if (support::scalarKind(n) == ScalarKind::String) {
      tags.emplace_back(n.text(), &n);
    } else {
      return fail(n, "'tags' must be a string or a list of strings, not " + support::describeNode(n));
    }
  }
  // torchgen adds these when tags.yaml declares them.
  if (f.ns == "aten" && validTags_.count("pt2_compliant_tag")) tags.emplace_back("pt2_compliant_tag", &e_);
  if (f.func.isOutFn() && validTags_.count("out")) tags.emplace_back("out", &e_);
  if (f.func.name.name.inplace && validTags_.count("inplace")) tags.emplace_back("inplace", &e_);
  for (const auto& [t, node] : tags) {
    if (validTags_.empty()) return fail(*node, "tag '" + t + "' used but tags.yaml declares no tags (a tags.yaml beside the YAML, or given "
                                                    "with TAGS / --tags, declares each as `- tag: " + t + "` with a `desc:`)");
    if (!validTags_.count(t)) return fail(*node, "illegal tag '" + t + "' (not declared in tags.yaml)");
    f.tags.insert(t);
    if (node != &e_) {
      const support::SourceLoc at = support::locOf(*node, path_);
      f.tagLocs.emplace(t, Location{at.file, at.line, at.column});
    }
  }
  return true;
}

bool EntryParser::parseDispatch(NativeFunction& f, DispatchTable& dispatch) {
  const YamlNode& n = get("dispatch");
  const std::string defaultName = cppName(f.func);
  if (!n.isDefined() || support::scalarKind(n) == ScalarKind::Null) {
    if (f.structured || f.structuredDelegate) return true;
    const std::string name = f.func.name.name.str();
    if (support::startsWith(name, "new_") || support::endsWith(name, "_like") ||
        (f.func.arguments.tensorOptions && !f.func.arguments.hasTensorArg()))
      return fail(get("func"), "expected " + name + " to have a CompositeExplicitAutograd dispatch entry, but there was "
                               "no dispatch table; factory functions should not have implicit dispatch as they should "
                               "not be decomposed for __torch_dispatch__");
    dispatch.emplace_back(DispatchKey::CompositeImplicitAutograd,
                          BackendMetadata{defaultName, false, kernelNamespace(f) + "::native", false});
    return true;
  }
  if (!n.isMap()) return fail(n, "'dispatch' must be a mapping from dispatch keys to kernel names, not " + support::describeNode(n));
  if (f.manualKernelRegistration)
    return fail(n, "cannot specify both manual_kernel_registration and dispatch; with manual registration, dispatch has no effect!");
  bool redundantCompositeImplicit = false;
  int numKeys = 0;
  for (const auto& kv : n.entries()) {
    if (!kv.key.isScalar()) return fail(kv.key, "illegal dispatch key");
    if (support::scalarKind(kv.value) != ScalarKind::String)
      return fail(kv.value, "illegal dispatch value: the kernel name must be a string, not " + support::describeNode(kv.value));
    const std::string& keys = kv.key.text();
    const std::string& kernel = kv.value.text();
    int offset = 0;
    for (auto rawKey : support::split(keys, ",")) {
      int here = offset + static_cast<int>(rawKey.find_first_not_of(' ') == std::string_view::npos ? 0 : rawKey.find_first_not_of(' '));
      offset += static_cast<int>(rawKey.size()) + 1;
      std::string_view keyName = support::trim(rawKey);
      auto key = parseDispatchKey(keyName);
      if (!key) return fail(kv.key, "unknown dispatch key '" + std::string(keyName) + "'", here);
      ++numKeys;
      if (options_.ignoreKeys.count(*key)) continue;
      if (!isSupportedDispatchKey(*key))
        return fail(kv.key, "dispatch key " + std::string(keyName) + " of kernel " + kernel + " is not a supported dispatch key", here);
      auto kparts = support::split(kernel, "::");
      if (kparts.size() > 4)
        return fail(kv.value, "codegen doesn't support more than 3 level(s) of custom namespace; got '" +
                                   kernel.substr(0, kernel.rfind("::")) + "'");
      std::string kernelNs = kparts.size() > 1 ? kernel.substr(0, kernel.rfind("::")) : kernelNamespace(f);
      BackendMetadata m{std::string(kparts.back()), f.structured && isStructuredDispatchKey(*key), kernelNs + "::native", false};
      auto existing = std::find_if(dispatch.begin(), dispatch.end(), [&](const auto& p) { return p.first == *key; });
      if (existing != dispatch.end()) existing->second = std::move(m);
      else dispatch.emplace_back(*key, std::move(m));
      if (*key == DispatchKey::CompositeImplicitAutograd && kernel == defaultName) redundantCompositeImplicit = true;
    }
  }
  if (numKeys == 1 && redundantCompositeImplicit)
    return fail(n, "unnecessary dispatch table for this function; just delete the dispatch key entirely");
  if (!f.structuredDelegate && dispatch.size() == 1 && dispatch[0].first == DispatchKey::CompositeImplicitAutograd &&
      !dispatch[0].second.supportsSymInt() && numKeys == 1)
    return fail(n, "unexpected name for singleton CompositeImplicitAutograd dispatch entry: expected " + defaultName +
                       " but got " + dispatch[0].second.kernel +
                       "; rename your implementation to the expected name, then delete the dispatch table");
  return true;
}

// `Generic: add (AllAndComplex, BFloat16, Half)` or a plain string for the Generic key.
bool parseInnerLoop(const std::string& value, UfuncKey key, UfuncInnerLoop& out, std::string& error) {
  static const std::map<std::string, std::vector<ScalarType>> classes = [] {
    using S = ScalarType;
    std::map<std::string, std::vector<ScalarType>> c;
    c["Integral"] = {S::Byte, S::Char, S::Int, S::Long, S::Short};
    c["Floating"] = {S::Float, S::Double};
    c["Complex"] = {S::ComplexFloat, S::ComplexDouble};
    c["All"] = {S::Byte, S::Char, S::Int, S::Long, S::Short, S::Float, S::Double};
    c["AllAndComplex"] = {S::Byte, S::Char, S::Int, S::Long, S::Short, S::Float, S::Double, S::ComplexFloat, S::ComplexDouble};
    c["FloatingAndComplex"] = {S::Float, S::Double, S::ComplexFloat, S::ComplexDouble};
    return c;
  }();
  size_t space = value.find(' ');
  if (space == std::string::npos) {
    error = "expected 'NAME (DTYPES)', got '" + value + "'";
    return false;
  }
  std::string dtypes = value.substr(space + 1);
  if (dtypes.empty() || dtypes.front() != '(' || dtypes.back() != ')') {
    error = "expected the supported dtypes in parentheses, got '" + dtypes + "'";
    return false;
  }
  out.name = value.substr(0, space);
  out.ufuncKey = key;
  auto addDtype = [&](ScalarType t) {
    if (std::find(out.supportedDtypes.begin(), out.supportedDtypes.end(), t) == out.supportedDtypes.end())
      out.supportedDtypes.push_back(t);
  };
  for (auto d : support::split(std::string_view(dtypes).substr(1, dtypes.size() - 2), ", ")) {
    auto cls = classes.find(std::string(d));
    if (cls != classes.end()) {
      for (ScalarType t : cls->second) addDtype(t);
      continue;
    }
    bool found = false;
    for (size_t i = 0; i <= static_cast<size_t>(ScalarType::Float8_e8m0fnu); ++i)
      if (scalarTypeName(static_cast<ScalarType>(i)) == d) {
        addDtype(static_cast<ScalarType>(i));
        found = true;
      }
    if (!found) {
      error = "unknown dtype '" + std::string(d) + "'";
      return false;
    }
  }
  return true;
}

bool EntryParser::parseUfunc(NativeFunction& f, DispatchTable& dispatch) {
  const YamlNode& n = get("ufunc_inner_loop");
  if (!n.isDefined()) return true;
  std::string error;
  if (support::scalarKind(n) == ScalarKind::String) {
    UfuncInnerLoop loop;
    if (!parseInnerLoop(n.text(), UfuncKey::Generic, loop, error)) return fail(n, error);
    f.ufuncInnerLoop[UfuncKey::Generic] = std::move(loop);
  } else if (n.isMap()) {
    for (const auto& kv : n.entries()) {
      auto key = parseUfuncKey(kv.key.text());
      if (!key) return fail(kv.key, "unknown ufunc key '" + kv.key.text() + "'");
      if (support::scalarKind(kv.value) != ScalarKind::String) return fail(kv.value, "ufunc_inner_loop value is not a string");
      UfuncInnerLoop loop;
      if (!parseInnerLoop(kv.value.text(), *key, loop, error)) return fail(kv.value, error);
      f.ufuncInnerLoop[*key] = std::move(loop);
    }
  } else {
    return fail(n, "ufunc_inner_loop must be a string or a mapping, not " + support::describeNode(n));
  }
  if (f.ufuncInnerLoop.empty()) return true;
  if (!f.structured) return fail(n, "ufunc must be structured");
  for (DispatchKey key : {DispatchKey::CPU, DispatchKey::CUDA}) {
    for (const auto& [k, m] : dispatch)
      if (k == key) return fail(n, "ufunc should not have explicit dispatch entry for " + std::string(dispatchKeyName(key)));
    dispatch.emplace_back(key, BackendMetadata{"ufunc_" + f.func.name.name.str() + "_" + std::string(dispatchKeyName(key)),
                                               true, kernelNamespace(f) + "::native", false});
  }
  return true;
}

bool EntryParser::parsePrecomputed(NativeFunction& f) {
  const YamlNode& n = get("precomputed");
  if (!n.isDefined() || support::scalarKind(n) == ScalarKind::Null) return true;
  if (!f.structured) return fail(n, "precomputed requires structured: True");
  if (!n.isSequence() || n.size() == 0) return fail(n, "precomputed must be a non-empty list of strings");
  Precompute p;
  auto parseList = [&](const YamlNode& at, std::string_view list, std::vector<Argument>& out) {
    for (auto item : support::split(list, ",")) {
      auto arg = Argument::parse(support::trim(item));
      if (!arg) return fail(at, "in precomputed: " + arg.error().message);
      std::string upper = arg->name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (upper == arg->name) return fail(at, "precomputed argument name must not be all uppercase: " + arg->name);
      out.push_back(arg.take());
    }
    return true;
  };
  const size_t count = n.size();
  for (size_t i = 0; i < count; ++i) {
    const YamlNode& item = n.items()[i];
    if (support::scalarKind(item) != ScalarKind::String) return fail(item, "precomputed item must be a string");
    const std::string& s = item.text();
    size_t arrow = s.find(" -> ");
    if (arrow == std::string::npos) {
      if (i + 1 != count)
        return fail(item, "precomputed parameters without replacement are allowed only in the last line, got: " + s);
      if (!parseList(item, s, p.add)) return false;
      continue;
    }
    std::string param = s.substr(0, arrow);
    if (param.find(' ') != std::string::npos) return fail(item, "illegal kernel param name '" + param + "' in precomputed parameters");
    std::vector<Argument> with;
    if (!parseList(item, std::string_view(s).substr(arrow + 4), with)) return false;
    // Lines must print back as written: "param -> T a, T b".
    std::vector<std::string> printed;
    for (const auto& a : with) printed.push_back(a.str());
    if (param + " -> " + support::join(printed, ", ") != s)
      return fail(item, "precomputed line does not round-trip: expected '" + param + " -> " + support::join(printed, ", ") + "'");
    p.replace.emplace_back(param, std::move(with));
  }
  f.precomputed = std::move(p);
  return true;
}

bool EntryParser::parseAutogen(NativeFunction& f) {
  const YamlNode& n = get("autogen");
  if (!n.isDefined()) return true;
  if (support::scalarKind(n) != ScalarKind::String) return fail(n, "'autogen' must be a string, not " + support::describeNode(n));
  if (n.text().empty()) return true;
  const support::SourceLoc at = support::locOf(n, path_);
  f.autogenLoc = Location{at.file, at.line, at.column};
  int offset = 0;
  for (auto name : support::split(n.text(), ", ")) {
    auto op = OperatorName::parse(name);
    if (!op) return fail(n, "in autogen: " + op.error().message, offset);
    f.autogen.push_back(op.take());
    offset += static_cast<int>(name.size()) + 2;
  }
  return true;
}

// torchgen's NativeFunction.__post_init__ checks.
bool EntryParser::checkInvariants(const NativeFunction& f, const YamlNode& funcNode) {
  if (!f.func.arguments.out.empty() && f.variants != std::set<Variant>{Variant::Function})
    return fail(get("variants"), "native functions with out arguments MUST be declared with only function variant; "
                                 "e.g., variants: function");
  if (f.structured) {
    if (f.func.kind() != SchemaKind::Out)
      return fail(get("structured"), "put structured field on the out= variant of a function; did you mean structured_delegate?");
    if (!f.deviceGuard) return fail(get("device_guard"), "device_guard: False is not respected by structured kernels");
  }
  if (f.structuredDelegate) {
    if (f.func.kind() == SchemaKind::Out)
      return fail(get("structured_delegate"), "structured_delegate field not allowed on out= functions; did you mean structured?");
    if (!f.deviceGuard) return fail(get("device_guard"), "device_guard: False is not respected by structured kernels");
  }
  std::set<std::string> defaulted;
  for (const Argument* a : f.func.schemaOrderArguments())
    if (a->defaultValue) defaulted.insert(a->name);
  for (const auto& name : f.cppNoDefaultArgs)
    if (!defaulted.count(name)) return fail(get("cpp_no_default_args"), "invalid cpp_no_default_args: '" + name + "' has no default");
  if (f.structuredInherits && !f.structured)
    return fail(get("structured_inherits"), "structured_inherits must also imply structured: True");
  const std::string name = f.func.name.str();
  if (support::startsWith(name, "_foreach") && f.deviceCheck != DeviceCheckType::NoCheck)
    return fail(funcNode, "foreach kernels fall back to slow path when tensor are on different devices, device_check not "
                          "allowed to be enabled");
  bool dropoutArg = false;
  for (const Argument* a : f.func.arguments.flatAll()) dropoutArg = dropoutArg || support::contains(a->name, "dropout");
  // (torchgen 2.15 leaves out the stateless _philox_* operators, determined by their key argument:
  // 2.15's own native_functions.yaml has _philox_randint_ untagged. No file 2.14.1 accepts differs.)
  bool random = (support::contains(name, "rand") && !support::contains(name, "_philox_")) ||
                ((support::contains(name, "dropout") || dropoutArg) && !support::contains(name, "backward") &&
                 f.func.name.name.str() != "_cudnn_init_dropout_state") ||
                f.func.arguments.hasGeneratorArg();
  if (random && !f.tags.count("nondeterministic_seeded")) lint(funcNode, "nondeterministic_seeded tag missing for " + name);
  return true;
}

bool EntryParser::parse(NativeFunction& f, DispatchTable& dispatch) {
  if (!e_.isMap()) return fail(e_, "an entry must be a mapping with a 'func' key, not " + support::describeNode(e_));
  const YamlNode* funcNode = nullptr;
  if (!parseFunc(f, funcNode) || !checkKeys()) return false;
  const SourceLoc at = support::locOf(e_, path_);
  f.loc = Location{path_, at.line, at.column};

  if (const YamlNode& n = get("cpp_no_default_args"); n.isDefined()) {
    if (!n.isSequence()) return fail(n, "cpp_no_default_args must be a list of argument names");
    for (const YamlNode& a : n.items()) f.cppNoDefaultArgs.insert(a.text());
  }
  if (!getBool("use_const_ref_for_mutable_tensors", false, f.useConstRefForMutableTensors)) return false;
  if (f.useConstRefForMutableTensors && !f.func.arguments.out.empty())
    lint(get("use_const_ref_for_mutable_tensors"), "use_const_ref_for_mutable_tensors is not supported for out= functions");
  if (!parseVariants(f) || !getBool("manual_kernel_registration", false, f.manualKernelRegistration) ||
      !getBool("manual_cpp_binding", false, f.manualCppBinding) || !getBool("device_guard", true, f.deviceGuard))
    return false;
  std::optional<std::string> deviceCheck;
  if (!getString("device_check", deviceCheck)) return false;
  if (deviceCheck) {
    if (*deviceCheck == "NoCheck") f.deviceCheck = DeviceCheckType::NoCheck;
    else if (*deviceCheck == "ExactSame") f.deviceCheck = DeviceCheckType::ExactSame;
    else return fail(get("device_check"), "illegal device_check '" + *deviceCheck + "' (expected NoCheck or ExactSame)");
  }
  if (!getBool("structured", false, f.structured)) return false;
  std::optional<std::string> delegate;
  if (!getString("structured_delegate", delegate)) return false;
  if (delegate) {
    if (support::contains(*delegate, "::"))
      return fail(get("structured_delegate"), "namespace is not supported in structured delegate, using the same namespace as the native function");
    auto op = OperatorName::parse(*delegate);
    if (!op) return fail(get("structured_delegate"), op.error().message);
    f.structuredDelegate = op.take();
  }
  if (!getString("structured_inherits", f.structuredInherits)) return false;
  if (f.structuredInherits && support::contains(*f.structuredInherits, "::"))
    return fail(get("structured_inherits"), "namespace is not supported in structured inherits, using the same namespace as the native function");
  if (!getString("python_module", f.pythonModule)) return false;
  if (f.pythonModule && f.hasVariant(Variant::Method)) return fail(get("python_module"), "functions in modules cannot be methods");
  if (!getString("category_override", f.categoryOverride) || !parsePrecomputed(f) || !parseTags(f) ||
      !parseDispatch(f, dispatch) || !parseFake(f))
    return false;
  if (options_.symintKernels && f.func.hasSymInt())
    for (auto& [k, m] : dispatch)
      if (!m.structured) m.symint = true;

  int composites = 0;
  bool hasNonFunctional = false, hasImplicitNested = false;
  for (const auto& [k, m] : dispatch) {
    if (isGenericDispatchKey(k)) ++composites;
    hasNonFunctional = hasNonFunctional || k == DispatchKey::CompositeExplicitAutogradNonFunctional;
    hasImplicitNested = hasImplicitNested || k == DispatchKey::CompositeImplicitAutogradNestedTensor;
  }
  if (!(composites <= 1 || (composites == 2 && !hasNonFunctional && hasImplicitNested)))
    return fail(get("dispatch"), "cannot specify more than one of CompositeExplicitAutograd, CompositeExplicitAutogradNonFunctional, "
                                 "or CompositeImplicitAutograd on a single kernel; each strictly subsumes the other");
  if (!parseAutogen(f) || !parseUfunc(f, dispatch)) return false;

  auto has = [&](DispatchKey k) {
    return std::any_of(dispatch.begin(), dispatch.end(), [&](const auto& p) { return p.first == k; });
  };
  auto onlyKeys = [&](std::initializer_list<DispatchKey> keys) {
    if (dispatch.size() != keys.size()) return false;
    for (DispatchKey k : keys)
      if (!has(k)) return false;
    return true;
  };
  f.isAbstract = f.structuredDelegate.has_value() ||
                 !(onlyKeys({DispatchKey::CompositeImplicitAutograd}) ||
                   onlyKeys({DispatchKey::CompositeImplicitAutogradNestedTensor}) ||
                   onlyKeys({DispatchKey::CompositeImplicitAutograd, DispatchKey::CompositeImplicitAutogradNestedTensor}));
  f.hasCompositeImplicitAutogradKernel = has(DispatchKey::CompositeImplicitAutograd);
  f.hasCompositeImplicitAutogradNestedTensorKernel = has(DispatchKey::CompositeImplicitAutogradNestedTensor);
  f.hasCompositeExplicitAutogradKernel = has(DispatchKey::CompositeExplicitAutograd);
  f.hasCompositeExplicitAutogradNonFunctionalKernel = has(DispatchKey::CompositeExplicitAutogradNonFunctional);

  if (f.structuredDelegate)
    for (const auto& [k, m] : dispatch)
      if (isStructuredDispatchKey(k))
        return fail(get("dispatch"), "if structured_delegate, then must not have " + std::string(dispatchKeyName(k)) +
                                         " in dispatch dictionary (it is delegated!)");
  return checkInvariants(f, *funcNode);
}

// torchgen's error_check_native_functions: checks across entries.
void checkAcrossEntries(const std::vector<const NativeFunction*>& fs, const std::vector<const YamlNode*>& nodes,
                        const std::string& path, std::vector<support::Diagnostic>& lints, Diagnostics& diags) {
  std::vector<std::string> names;  // reserved in full: byName views its strings
  names.reserve(fs.size());
  std::unordered_map<std::string_view, const NativeFunction*> byName;
  byName.reserve(fs.size());
  std::unordered_set<std::string> baseNames;
  for (const NativeFunction* f : fs) {
    byName.insert_or_assign(names.emplace_back(f->func.name.str()), f);
    baseNames.insert(f->func.name.name.str());
  }
  for (size_t i = 0; i < fs.size(); ++i) {
    const NativeFunction& f = *fs[i];
    const std::string& name = names[i];
    auto at = [&](std::string_view key) {
      const YamlNode& n = (*nodes[i])[key];
      return support::locOf(n.isDefined() ? n : *nodes[i], path);
    };
    if (f.structuredDelegate) {
      auto it = byName.find(f.structuredDelegate->str());
      const std::string d = f.structuredDelegate->str();
      if (it == byName.end())
        diags.errorAbout(at("structured_delegate"), name,
                         "marked as a structured_delegate pointing to " + d + ", but " + d + " is missing");
      else if (!it->second->structured)
        diags.errorAbout(at("structured_delegate"), name,
                         "marked as a structured_delegate pointing to " + d + ", but " + d +
                             " is not marked as structured; consider adding 'structured: True' to the delegated operator");
    }
    for (const Argument* a : f.func.arguments.flatAll())
      if (isPythonKeyword(a->name) &&
          !reservedKeywordExcluded(name, a->name))
        lints.push_back({support::Severity::Error, at("func"),
                         support::aboutOperator(name, "argument name '" + a->name + "' is a reserved Python keyword")});
    if (f.tags.count("inplace_view") && name != "resize_" && name != "resize_as_" && f.func.name.name.str() != "set_") {
      const auto& base = f.func.name.name;
      if (!base.inplace) {
        diags.errorAbout(at("tags"), name,
                         "marked with tag inplace_view, but it doesn't follow the naming convention for inplace ops: "
                         "the base name must have a trailing underscore");
      } else {
        BaseOperatorName outOfPlace{base.base, false, base.dunderMethod, false, ""};
        if (!baseNames.count(outOfPlace.str()))
          diags.errorAbout(at("tags"), name,
                           "marked with tag inplace_view; the codegen expects a corresponding out-of-place view op "
                           "named '" + outOfPlace.str() + "' with a matching schema, but found none");
      }
    }
  }
}

// The lines of a YAML text as libyaml counts them (the entries' line numbers), so that an entry's
// leading comment is found where it is: broken at LF, CR LF, a lone CR, and NEL, LS and PS (U+0085,
// U+2028, U+2029), which YAML 1.1 also counts as line breaks.
std::vector<std::string_view> yamlLines(std::string_view content) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < content.size();) {
    std::size_t width = 0;  // of the line break at i
    if (content[i] == '\n') width = 1;
    else if (content[i] == '\r') width = i + 1 < content.size() && content[i + 1] == '\n' ? 2 : 1;
    else if (content.substr(i, 2) == "\xC2\x85") width = 2;
    else if (content.substr(i, 3) == "\xE2\x80\xA8" || content.substr(i, 3) == "\xE2\x80\xA9") width = 3;
    if (width == 0) {
      ++i;
      continue;
    }
    lines.push_back(content.substr(start, i - start));
    i += width;
    start = i;
  }
  lines.push_back(content.substr(start));
  return lines;
}

// The block of comment lines that ends on the line above `line` (1-based) of `lines`, without the
// '#' and one space after it: an entry's documentation. A blank line ends the block.
std::string leadingComment(const std::vector<std::string_view>& lines, int line) {
  std::vector<std::string_view> block;
  for (int i = line - 2; i >= 0 && i < static_cast<int>(lines.size()); --i) {
    std::string_view l = lines[i];
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    const std::size_t start = l.find_first_not_of(" \t");
    if (start == std::string_view::npos || l[start] != '#') break;
    l.remove_prefix(start + 1);
    if (!l.empty() && l.front() == ' ') l.remove_prefix(1);
    block.push_back(l);
  }
  std::string doc;
  for (auto it = block.rbegin(); it != block.rend(); ++it) {
    if (!doc.empty() || it != block.rbegin()) doc += '\n';
    doc.append(*it);
  }
  return doc;
}

// What EntryParser makes of one entry, with what it reported.
struct ParsedEntry {
  std::unique_ptr<NativeFunction> function;  // null when the entry has errors; with its doc
  DispatchTable dispatch;
  Diagnostics diags;
  std::vector<support::Diagnostic> lints;
  bool usesDimname = false;  // an argument of the function has type Dimname (or a list of them)
};

// Entries below this count are parsed on the calling thread only.
constexpr size_t kParallelEntries = 512;

// Parses every entry; entries are independent, so the second half is parsed on another thread
// when there are many. Each entry keeps its own reports, to be merged in entry order.
// `lines` are the file's lines, of which an entry's leading comment is its doc.
std::vector<ParsedEntry> parseEntries(const std::vector<YamlNode>& entries, const std::string& path,
                                      const std::vector<std::string_view>& lines, const std::set<std::string>& validTags,
                                      const LoadOptions& options) {
  std::vector<ParsedEntry> parsed(entries.size());
  auto parseRange = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      ParsedEntry& p = parsed[i];
      auto f = std::make_unique<NativeFunction>();
      if (!EntryParser(entries[i], path, validTags, options, p.diags, p.lints).parse(*f, p.dispatch)) continue;
      f->doc = leadingComment(lines, f->loc.line);
      for (const Argument* a : f->func.arguments.flatAll()) p.usesDimname = p.usesDimname || a->type.isBaseTyLike(BaseTy::Dimname);
      p.function = std::move(f);
    }
  };
  if (entries.size() < kParallelEntries) {
    parseRange(0, entries.size());
    return parsed;
  }
  const size_t half = entries.size() / 2;
  std::thread worker(parseRange, half, entries.size());
  parseRange(0, half);
  worker.join();
  return parsed;
}

}  // namespace

bool isPythonKeyword(std::string_view word) {
  return std::binary_search(kPythonKeywords.begin(), kPythonKeywords.end(), word);
}

std::optional<std::set<std::string>> loadTags(const std::string& path, std::string_view content, Diagnostics& diags) {
  auto doc = support::parseYaml(content, path, diags);
  if (!doc) return std::nullopt;
  std::set<std::string> tags;
  if (doc->isNull()) {  // torchgen: "Expected 'es' to be a list, but got <class 'NoneType'>"
    diags.error({path, 1, 1}, "tags.yaml must be a list of '- tag: NAME' entries, but the file is empty");
    return std::nullopt;
  }
  if (!doc->isSequence()) {
    diags.error(support::locOf(*doc, path), "tags.yaml must be a list of '- tag: NAME' entries, not " + support::describeNode(*doc));
    return std::nullopt;
  }
  for (const YamlNode& e : doc->items()) {
    if (!e.isMap() || !e["tag"].isDefined() || support::scalarKind(e["tag"]) != ScalarKind::String) {
      diags.error(support::locOf(e, path), "a tags.yaml entry must be a mapping with a string 'tag' key");
      continue;
    }
    const std::string name = e["tag"].text();
    const YamlNode& desc = e["desc"];
    if (!desc.isDefined() || !desc.isScalar() || desc.text().empty()) {
      diags.error(support::locOf(e, path), "tag '" + name + "' must have a non-empty description");
      continue;
    }
    tags.insert(name);
  }
  if (diags.hasErrors()) return std::nullopt;
  return tags;
}

std::optional<Operators> loadNativeFunctions(const std::string& path, std::string_view content,
                                             const std::set<std::string>& validTags, const LoadOptions& options,
                                             Diagnostics& diags) {
  const int errorsBefore = diags.errorCount();
  auto doc = support::parseYaml(content, path, diags);
  if (!doc) return std::nullopt;
  if (doc->isNull()) {  // torchgen: "Expected 'es' to be a list, but got <class 'NoneType'>"
    diags.error({path, 1, 1}, "native_functions.yaml must be a list of entries, but the file is empty");
    return std::nullopt;
  }
  if (!doc->isSequence()) {
    diags.error(support::locOf(*doc, path), "native_functions.yaml must be a list of entries, not " + support::describeNode(*doc));
    return std::nullopt;
  }
  const std::vector<YamlNode>& entries = doc->items();
  const std::vector<std::string_view> lines = yamlLines(content);
  std::vector<ParsedEntry> parsed = parseEntries(entries, path, lines, validTags, options);
  std::vector<const NativeFunction*> parsedFunctions;  // listed now: the generation adds to `functions`
  parsedFunctions.reserve(parsed.size());
  for (const ParsedEntry& p : parsed)
    if (p.function) parsedFunctions.push_back(p.function.get());

  // The steps that follow, and what runs beside them on a large file:
  //   this thread:   collect the entries | generate and group functions
  //   another one:   visit (alongside)   | check across entries, free the YAML tree, visit
  // The checks only report (with the lints, errors or warnings by `legacy`), and the generation
  // does not depend on them; its reports count only when the checks find no error, as in a
  // sequential run. Visiting stops when this thread is done.
  enum Stage : int { Collecting, Collected, CollectFailed, Generated };
  std::atomic<int> stage{Collecting};
  std::vector<std::unique_ptr<const NativeFunction>> functions;
  std::vector<const YamlNode*> nodes;
  BackendIndices indices;
  std::vector<support::Diagnostic> lints;
  bool legacy = false;
  Diagnostics checkDiags;
  auto check = [&] {
    checkAcrossEntries(parsedFunctions, nodes, path, lints, checkDiags);
    for (auto& d : lints) {
      if (legacy) checkDiags.warning(d.loc, d.message + " (accepted in an older file that uses Dimname; torchgen 2.14.1 rejects it)");
      else checkDiags.error(d.loc, d.message);
    }
  };
  std::thread side;
  if (entries.size() >= kParallelEntries) {
    side = std::thread([&] {
      size_t visited = 0;
      auto visitUntil = [&](int until) {
        if (!options.alongside) return;
        while (visited < parsedFunctions.size() && stage.load(std::memory_order_acquire) < until)
          options.alongside(*parsedFunctions[visited++]);
      };
      visitUntil(Collected);
      stage.wait(Collecting, std::memory_order_acquire);
      if (stage.load(std::memory_order_acquire) == CollectFailed) return;
      check();
      doc.reset();  // the tree is freed here, not on the generating thread
      visitUntil(Generated);
    });
  }
  // Stops the side thread (if any) at `to`, and waits for it.
  auto finish = [&](Stage to) {
    stage.store(to, std::memory_order_release);
    stage.notify_one();
    if (side.joinable()) side.join();
  };

  bool usesDimname = false;
  for (size_t i = 0; i < entries.size(); ++i) {
    ParsedEntry& p = parsed[i];
    diags.append(p.diags);
    lints.insert(lints.end(), std::make_move_iterator(p.lints.begin()), std::make_move_iterator(p.lints.end()));
    if (!p.function) continue;
    const YamlNode& entry = entries[i];
    std::unique_ptr<NativeFunction>& f = p.function;
    usesDimname = usesDimname || p.usesDimname;
    for (auto& [key, m] : p.dispatch)
      if (!indices.add(key, f->func.name, std::move(m)))
        diags.error(support::locOf(entry, path), "duplicate operator " + f->func.name.str() + " for dispatch key " +
                                                     std::string(dispatchKeyName(key)));
    nodes.push_back(&entry);
    functions.push_back(std::move(f));
  }
  if (diags.errorCount() > errorsBefore) {
    finish(CollectFailed);
    return std::nullopt;
  }
  legacy = options.edition == LoadOptions::Edition::Legacy ||
           (options.edition == LoadOptions::Edition::Auto && usesDimname);
  Diagnostics generateDiags;
  std::optional<Operators> ops;
  const MissingOutVariant missingOut = !options.requireOutVariants ? MissingOutVariant::Allowed
                                       : legacy                     ? MissingOutVariant::Warning
                                                                    : MissingOutVariant::Error;
  auto generate = [&] {
    if (!options.skipNativeFunctionsGen &&
        !addGeneratedNativeFunctions(functions, indices, missingOut, options.defaultKernelNamespace, generateDiags))
      return;
    Operators built(std::move(functions), indices.take(), validTags);
    if (built.buildGroups(generateDiags)) ops = std::move(built);
  };
  if (side.joinable()) {
    stage.store(Collected, std::memory_order_release);
    stage.notify_one();
    generate();
    finish(Generated);
  } else {
    check();
    if (checkDiags.errorCount() == 0) generate();
  }
  diags.append(checkDiags);
  if (checkDiags.errorCount() > 0) return std::nullopt;
  diags.append(generateDiags);
  return ops;
}

}  // namespace opgen::model
