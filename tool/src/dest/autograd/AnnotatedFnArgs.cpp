#include "dest/autograd/AnnotatedFnArgs.h"

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "api/Python.h"
#include "support/Strings.h"

namespace opgen::dest::autograd {

namespace {

using model::NativeFunction;

// Python's repr() of a str.
std::string pyRepr(const std::string& s) {
  const char quote = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    if (c == '\\' || c == quote) out += '\\';
    out += c;
  }
  return out + quote;
}

// The functions that do not work with keyword arguments in test_overrides.py (torchgen's list).
bool kwargsExcluded(const std::string& name) {
  return name == "diagonal" || name == "round_" || name == "round" || name == "scatter_";
}

// What torchgen's argument_type_str refuses in a type (a type without a Python spelling, a bool[] without
// a size), or nullopt.
std::optional<std::string> unsupported(const model::Type& t) {
  if (const model::Type* list = t.listLike(); list != nullptr && list->elem().str() == "bool" && !list->size())
    return "argument type '" + t.str() + "': a bool list must have a size";
  if (api::python::argumentTypeStr(t, true).find("__unsupported__") != std::string::npos)
    return "argument type '" + t.str() + "' has no Python type (annotated_fn_args)";
  return std::nullopt;
}

// "{'is_kwarg_only': 'False', 'name': 'self', 'simple_type': 'Tensor'}" for each argument without a default.
void appendArgs(std::vector<std::string>& out, const std::vector<const model::Argument*>& args, bool kwargOnly,
                std::optional<std::string>& problem) {
  for (const model::Argument* a : args) {
    if (a->defaultValue || problem) continue;
    if ((problem = unsupported(a->type))) return;
    std::string d = "{'is_kwarg_only': " + pyRepr(kwargOnly ? "True" : "False") + ", 'name': " + pyRepr(a->name) +
                    ", 'simple_type': " + pyRepr(api::python::argumentTypeStr(a->type, /*simpleType=*/true));
    const model::Type* list = a->type.listLike();
    if (list != nullptr && list->elem().str() != "bool" && list->size().value_or(0) != 0)
      d += ", 'size': " + std::to_string(*list->size());
    out.push_back(d + "}");
  }
}

std::string annotatedArgs(const NativeFunction& f, std::optional<std::string>& problem) {
  const std::string name = f.func.name.name.str();
  std::vector<std::string> args;
  appendArgs(args, f.func.arguments.flatPositional(), false, problem);
  if (!kwargsExcluded(name)) appendArgs(args, f.func.arguments.flatKwargOnly(), true, problem);
  return name + ": [" + support::join(args, ", ") + "],";
}

}  // namespace

bool emitAnnotatedFnArgs(const std::vector<const NativeFunction*>& functions, Writer& out,
                         support::Diagnostics& diags) {
  using Pred = std::function<bool(const NativeFunction&)>;
  const auto module = [](const char* m) { return Pred([m](const NativeFunction& f) { return f.pythonModule == m; }); };
  const std::vector<std::pair<Pred, std::string>> mappings = {
      {[](const NativeFunction& f) { return !f.pythonModule && f.hasVariant(model::Variant::Function); },
       "torch._C._VariableFunctions"},
      {module("nn"), "torch._C._nn"},
      {module("linalg"), "torch._C._linalg"},
      {module("special"), "torch._C._special"},
      {module("fft"), "torch._C._fft"},
      {[](const NativeFunction& f) { return !f.pythonModule && f.hasVariant(model::Variant::Method); }, "torch.Tensor"},
  };
  std::vector<std::string> lines;
  for (const auto& [pred, ns] : mappings) {
    // Grouped by base name, the groups in first-seen order.
    std::vector<std::vector<const NativeFunction*>> groups;
    std::map<std::string, std::size_t> index;
    for (const NativeFunction* f : functions) {
      if (!api::python::shouldGeneratePyBinding(*f) || !pred(*f)) continue;
      auto [it, inserted] = index.emplace(f->func.name.name.str(), groups.size());
      if (inserted) groups.emplace_back();
      groups[it->second].push_back(f);
    }
    for (const auto& group : groups)
      for (const NativeFunction* f : group) {
        std::optional<std::string> problem;
        lines.push_back("    " + ns + "." + annotatedArgs(*f, problem));
        if (problem) {  // like torchgen, stop at the first
          model::reportError(diags, *f, *problem);
          return false;
        }
      }
  }
  out.writeWithTemplate("annotated_fn_args.py", "annotated_fn_args.py.in", [&] {
    support::TemplateEnv env;
    env.set("annotated_args", support::join(lines, "\n"));
    return env;
  });
  return true;
}

}  // namespace opgen::dest::autograd
