#include "dest/autograd/VariableFactories.h"

#include <cctype>
#include <optional>
#include <string_view>

#include "api/Cpp.h"
#include "api/Signatures.h"
#include "support/Strings.h"

namespace opgen::dest::autograd {

namespace {

bool isFactory(const model::NativeFunction& f) {
  return f.hasVariant(model::Variant::Function) &&
         (f.func.arguments.tensorOptions.has_value() || api::cpp::name(f.func).ends_with("_like"));
}

bool isWord(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// The inline functions of one factory: its C++ API signature, and the SymInt one when there is one.
std::string factoryDefinitions(const model::NativeFunction& f) {
  const api::CppSignatureGroup group =
      api::CppSignatureGroup::fromNativeFunction(f, {.method = false, .fallbackBinding = false}, api::Options::of(f));
  std::vector<const api::CppSignature*> sigs = {&group.signature()};
  if (group.symintSignature()) sigs.push_back(&*group.symintSignature());
  std::string r;
  for (const api::CppSignature* sig : sigs) {
    std::vector<std::string> formals, exprs;
    std::string requiresGrad = "false";
    for (const api::Binding& arg : sig->arguments()) {
      std::string formal = fullyQualifiedType(arg.type()) + " " + arg.name;
      if (arg.defaultValue) formal += " = " + *arg.defaultValue;
      formals.push_back(std::move(formal));
      if (arg.tensorOptions() != nullptr) {
        // requires_grad is handled here, not by the kernel (which asserts that it is not set).
        exprs.push_back("at::TensorOptions(" + arg.name + ").requires_grad(::std::nullopt)");
        requiresGrad = arg.name + ".requires_grad()";
      } else {
        exprs.push_back(arg.name);
      }
    }
    const std::string name = sig->name();
    r += "inline at::Tensor " + name + "(" + support::join(formals, ", ") + ") {\n" +
         "  at::AutoDispatchBelowADInplaceOrView guard;\n" + "  return autograd::make_variable(at::" + name + "(" +
         support::join(exprs, ", ") + "), /*requires_grad=*/" + requiresGrad + ");\n}\n";
  }
  return r;
}

}  // namespace

std::string fullyQualifiedType(const std::string& type) {
  // std::optional<(.+)> matched at the start: the greedy group ends before the last '>'.
  constexpr std::string_view kOptional = "std::optional<";
  std::string inner = type;
  bool optional = false;
  if (type.starts_with(kOptional)) {
    const std::size_t close = type.rfind('>');
    if (close != std::string::npos && close > kOptional.size()) {
      inner = type.substr(kOptional.size(), close - kOptional.size());
      optional = true;
    }
  }
  // (?:const\s+)?([A-Z]\w+) matched at the start.
  std::size_t at = std::string::npos;
  auto nameAt = [&](std::size_t i) { return i + 1 < inner.size() && std::isupper(static_cast<unsigned char>(inner[i])) && isWord(inner[i + 1]); };
  if (inner.starts_with("const") && inner.size() > 5 && isSpace(inner[5])) {
    std::size_t i = 5;
    while (i < inner.size() && isSpace(inner[i])) ++i;
    if (nameAt(i)) at = i;
  }
  if (at == std::string::npos && nameAt(0)) at = 0;
  if (at != std::string::npos) inner = inner.substr(0, at) + "at::" + inner.substr(at);
  return optional ? "std::optional<" + inner + ">" : inner;
}

bool emitVariableFactories(const std::vector<const model::NativeFunction*>& functions, const std::string& commentDir,
                           Writer& out, support::Diagnostics& diags) {
  for (const model::NativeFunction* f : functions)
    if (isFactory(*f))
      if (std::optional<std::string> problem = api::cpp::checkSupported(f->func)) {
        model::reportError(diags, *f, *problem);
        return false;
      }
  out.writeWithTemplate("variable_factories.h", "variable_factories.h", [&] {
    std::vector<std::string> headers, definitions;
    for (const model::NativeFunction* f : functions) {
      if (!isFactory(*f)) continue;
      headers.push_back("#include <ATen/ops/" + f->rootName() + ".h>");
      definitions.push_back(factoryDefinitions(*f));
    }
    support::TemplateEnv env;
    env.set("generated_comment", "@generated from " + commentDir + "/variable_factories.h")
        .set("ops_headers", std::move(headers))
        .set("function_definitions", std::move(definitions));
    return env;
  });
  return true;
}

}  // namespace opgen::dest::autograd
