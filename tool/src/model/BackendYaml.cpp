#include "model/BackendYaml.h"

#include <map>
#include <set>
#include <unordered_map>

#include "support/Yaml.h"

namespace opgen::model {

namespace {

using support::ScalarKind;
using support::YamlNode;

// torchgen's valid_keys, in its order (the list its error message prints; `extra_headers` is in it
// but, as in torchgen, refused); the keys it reads, in the order it reads them.
constexpr std::string_view kListedKeys =
    "backend, class_name, cpp_namespace, extra_headers, supported, autograd, full_codegen, non_native, ir_gen, symint";
const std::set<std::string_view> kReadKeys = {"backend",   "class_name", "cpp_namespace", "use_out_as_primary",
                                              "device_guard", "supported", "symint",      "autograd",
                                              "full_codegen", "non_native", "ir_gen"};

class Reader {
 public:
  Reader(const std::string& path, const Operators& ops, const BackendYamlOptions& options, support::Diagnostics& diags)
      : path_(path), ops_(ops), options_(options), diags_(diags) {}

  std::optional<BackendYaml> read(const YamlNode& root);

 private:
  bool fail(const YamlNode& at, std::string message) {
    diags_.error(loc(at), std::move(message));
    return false;
  }
  support::SourceLoc loc(const YamlNode& n) const {
    if (n.line() < 0) return {path_, 1, 1};
    return support::locOf(n, path_);
  }
  // The value of a top-level key (an undefined node when absent).
  const YamlNode& get(std::string_view key) const { return (*root_)[key]; }
  bool readString(std::string_view key, bool required, std::optional<std::string>& out, support::SourceLoc* where);
  bool readBool(std::string_view key, bool& out);
  // A list of operators; `nullIsEmpty`: torchgen allows `supported:` and `symint:` without entries.
  bool readList(std::string_view key, bool nullIsEmpty, std::vector<const YamlNode*>& out);
  // `key`: the dispatch key the operators are registered for (for messages).
  bool readOperators(const std::vector<const YamlNode*>& entries, std::string_view key, std::vector<BackendOperator>& out);
  bool readKey(std::string_view section, std::string_view name, support::SourceLoc at,
               std::optional<DispatchKey>& out);
  bool checkNotMixed(const BackendYaml& y);

  const std::string& path_;
  const Operators& ops_;
  const BackendYamlOptions& options_;
  support::Diagnostics& diags_;
  const YamlNode* root_ = nullptr;
  std::set<std::string> symint_;
  std::vector<std::string> skipped_;
};

bool Reader::readString(std::string_view key, bool required, std::optional<std::string>& out,
                        support::SourceLoc* where) {
  const YamlNode& n = get(key);
  if (!n.isDefined() || support::scalarKind(n) == ScalarKind::Null) {
    if (required) return fail(n.isDefined() ? n : *root_, "You must provide a value for \"" + std::string(key) + "\"");
    return true;
  }
  if (support::scalarKind(n) != ScalarKind::String)
    return fail(n, "\"" + std::string(key) + "\" must be a string, not " + support::describeNode(n));
  out = n.text();
  if (where != nullptr) *where = loc(n);
  return true;
}

bool Reader::readBool(std::string_view key, bool& out) {
  const YamlNode& n = get(key);
  if (!n.isDefined()) return true;
  if (support::scalarKind(n) != ScalarKind::Bool)
    return fail(n, "You must provide either True or False for " + std::string(key) + ". Provided: " +
                       (n.isScalar() ? n.text() : support::describeNode(n)));
  out = support::scalarBool(n);
  return true;
}

bool Reader::readList(std::string_view key, bool nullIsEmpty, std::vector<const YamlNode*>& out) {
  const YamlNode& n = get(key);
  if (!n.isDefined() || (nullIsEmpty && n.isNull())) return true;
  if (!n.isSequence())
    return fail(n, "expected \"" + std::string(key) + "\" to be a list, but got " + support::describeNode(n));
  for (const YamlNode& item : n.items()) out.push_back(&item);
  return true;
}

bool Reader::readOperators(const std::vector<const YamlNode*>& entries, std::string_view key,
                           std::vector<BackendOperator>& out) {
  bool ok = true;
  std::set<const NativeFunction*> seen;
  for (const YamlNode* entry : entries) {
    const YamlNode* nameNode = entry;
    BackendOperator op;
    op.loc = loc(*entry);
    // `- op: {structured: true}`: one key, the operator, whose value holds its options.
    if (entry->isMap()) {
      if (entry->size() != 1) {
        ok = fail(*entry, "an operator with options is written `- NAME: {structured: true}` (one key)");
        continue;
      }
      const auto [key, value] = *entry->entries().begin();
      nameNode = &key;
      if (!value.isMap() && !value.isNull()) {
        ok = fail(value, "the options of an operator must be a mapping (e.g. {structured: true}), not " +
                             support::describeNode(value));
        continue;
      }
      std::set<std::string> optionKeys;
      for (const auto& [k, v] : value.entries()) {
        if (!optionKeys.insert(k.text()).second) {
          ok = fail(k, "Found a duplicate key in the yaml. key=" + k.text());
          continue;
        }
        if (k.text() != "structured") {
          ok = fail(k, "unknown operator option '" + k.text() + "' (the only option is 'structured')");
          continue;
        }
        if (support::scalarKind(v) != ScalarKind::Bool) {
          ok = fail(v, "'structured' must be True or False, not " + support::describeNode(v));
          continue;
        }
        op.structured = support::scalarBool(v);
      }
    }
    if (support::scalarKind(*nameNode) != ScalarKind::String) {
      ok = fail(*nameNode, "expected an operator name (e.g. add.Tensor), not " + support::describeNode(*nameNode));
      continue;
    }
    const std::string& text = nameNode->text();
    Expected<OperatorName> name = OperatorName::parse(text);
    if (!name) {
      ok = fail(*nameNode, "Found an invalid operator name: " + text + " (" + name.error().message + ")");
      continue;
    }
    op.function = ops_.find(*name);
    if (op.function == nullptr) {
      if (options_.skipMissingOperators) {
        diags_.warning(loc(*nameNode), "skipping '" + text + "': not an operator of the given native_functions.yaml");
        skipped_.push_back(text);
        continue;
      }
      ok = fail(*nameNode, "Found an invalid operator name: " + text +
                               " (the given native_functions.yaml has no such operator; --skip-missing-operators "
                               "skips such entries)");
      continue;
    }
    op.symint = symint_.count(text) != 0;
    if (op.symint && !op.function->func.hasSymInt()) {
      ok = fail(*nameNode, "in '" + text + "': attempted to define symint kernel for " + std::string(key) +
                               " without SymInt in schema (the operator is listed under \"symint\")");
      continue;
    }
    // torchgen keeps one entry per operator (a dict): a repeated entry changes nothing.
    if (seen.insert(op.function).second) out.push_back(op);
  }
  return ok;
}

bool Reader::readKey(std::string_view section, std::string_view name, support::SourceLoc at,
                     std::optional<DispatchKey>& out) {
  out = parseDispatchKey(name);
  if (!out) {
    if (section == "supported")
      diags_.error(at, "The provided value for \"backend\" must be a valid DispatchKey, but got " + std::string(name) + ".");
    else
      diags_.error(at, "The \"autograd\" key was specified, which indicates that you would like to override the behavior "
                       "of autograd for some operators on your backend. However \"" + std::string(name) +
                       "\" is not a valid DispatchKey.");
    return false;
  }
  if (ops_.index(*out).dispatchKey() == *out) {
    diags_.error(at, "Duplicate " + std::string(section == "supported" ? "backend" : "autograd") + " key: " +
                         std::string(name) + " (native_functions.yaml has kernels for it; an out-of-tree backend " +
                         "uses a key without in-tree kernels, such as PrivateUse1)");
    return false;
  }
  return true;
}

// torchgen: every variant of an operator is registered either to the backend's key or to its
// autograd key.
bool Reader::checkNotMixed(const BackendYaml& y) {
  std::unordered_map<const NativeFunction*, const BackendOperator*> forward, backward;
  for (const BackendOperator& op : y.supported) forward.emplace(op.function, &op);
  for (const BackendOperator& op : y.autograd) backward.emplace(op.function, &op);
  for (const FunctionOrGroup& item : ops_.grouped()) {
    const BackendOperator* f = nullptr;
    const BackendOperator* b = nullptr;
    auto visit = [&](const NativeFunction& fn) {
      if (auto it = forward.find(&fn); it != forward.end() && f == nullptr) f = it->second;
      if (auto it = backward.find(&fn); it != backward.end() && b == nullptr) b = it->second;
    };
    if (const auto* g = std::get_if<NativeFunctionsGroup>(&item)) g->forEachFunction(visit);
    else visit(*std::get<const NativeFunction*>(item));
    if (f == nullptr || b == nullptr) continue;
    diags_.error(b->loc, "Currently, all variants of an op must either be registered to a backend key, or to a "
                         "backend's autograd key. They cannot be mix and matched. '" +
                             f->function->func.name.str() + "' is listed under \"supported\", but '" +
                             b->function->func.name.str() + "' is listed under \"autograd\".");
    return false;
  }
  return true;
}

std::optional<BackendYaml> Reader::read(const YamlNode& root) {
  root_ = &root;
  if (!root.isMap()) {
    fail(root, "Expected the backend YAML to be a mapping (backend:, cpp_namespace:, supported:, ...), got " +
                   support::describeNode(root));
    return std::nullopt;
  }
  std::set<std::string> keys;
  for (const auto& [key, value] : root.entries()) {
    if (!keys.insert(key.text()).second) {
      fail(key, "Found a duplicate key in the yaml. key=" + key.text());
      return std::nullopt;
    }
  }
  BackendYaml y;
  y.path = path_;
  std::optional<std::string> backend, cppNamespace;
  if (!readString("backend", true, backend, &y.backendLoc) || !readString("class_name", false, y.className, nullptr) ||
      !readString("cpp_namespace", true, cppNamespace, &y.cppNamespaceLoc) ||
      !readBool("use_out_as_primary", y.useOutAsPrimary) || !readBool("device_guard", y.deviceGuard))
    return std::nullopt;
  y.backend = *backend;
  y.cppNamespace = *cppNamespace;
  std::vector<const YamlNode*> supported, symint, autograd, fullCodegen;
  if (!readList("supported", true, supported) || !readList("symint", true, symint) ||
      !readList("autograd", false, autograd) || !readList("full_codegen", false, fullCodegen))
    return std::nullopt;
  supported.insert(supported.end(), fullCodegen.begin(), fullCodegen.end());
  for (const YamlNode* s : symint)
    if (s->isScalar()) symint_.insert(s->text());
  for (const auto& [key, value] : root.entries()) {
    if (kReadKeys.count(key.text()) != 0) continue;
    std::string unexpected;
    for (const auto& [k, v] : root.entries())
      if (kReadKeys.count(k.text()) == 0) unexpected += (unexpected.empty() ? "" : ", ") + k.text();
    fail(key, path_ + " contains unexpected keys: " + unexpected +
                  ". Only the following keys are supported: " + std::string(kListedKeys));
    return std::nullopt;
  }
  if (!supported.empty()) {
    if (!readKey("supported", y.backend, y.backendLoc, y.backendKey)) return std::nullopt;
  }
  if (!readOperators(supported, y.backend, y.supported)) return std::nullopt;
  // A structured external kernel (beyond torchgen) implements the out= function of an operator that
  // ATen declares structured (its meta function is ATen's), as the backend's primary kernel.
  for (const BackendOperator& op : y.supported) {
    if (!op.structured) continue;
    if (!op.function->structured) {
      diags_.error(op.loc, "'" + op.function->func.name.str() + "' cannot be structured: only the out= function of an "
                           "operator that native_functions.yaml declares structured can (e.g. add.out)");
      return std::nullopt;
    }
    if (!y.useOutAsPrimary) {
      diags_.error(op.loc, "'" + op.function->func.name.str() + "' is structured: that needs use_out_as_primary: True");
      return std::nullopt;
    }
  }
  if (!autograd.empty()) {
    if (!readKey("autograd", "Autograd" + y.backend, loc(get("autograd")), y.autogradKey)) return std::nullopt;
  }
  if (!readOperators(autograd, "Autograd" + y.backend, y.autograd)) return std::nullopt;
  // Every entry skipped: as torchgen with an empty list, no key.
  if (y.supported.empty()) y.backendKey.reset();
  if (y.autograd.empty()) y.autogradKey.reset();
  if (!checkNotMixed(y)) return std::nullopt;
  y.skipped = std::move(skipped_);
  return y;
}

}  // namespace

std::string BackendYaml::effectiveClassName() const {
  if (className) return *className;
  return std::string(dispatchKeyName(backendKey.value_or(DispatchKey::Undefined))) + "NativeFunctions";
}

std::optional<BackendYaml> loadBackendYaml(const std::string& path, std::string_view content, const Operators& ops,
                                           const BackendYamlOptions& options, support::Diagnostics& diags) {
  std::optional<YamlNode> root = support::parseYaml(content, path, diags);
  if (!root) return std::nullopt;
  return Reader(path, ops, options, diags).read(*root);
}

}  // namespace opgen::model
