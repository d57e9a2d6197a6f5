#include "dest/aten/RegisterSchema.h"

#include <map>

#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

// Namespaces that PyTorch itself defines a library for: other libraries add fragments to them.
bool isFragmentNamespace(std::string_view ns) { return ns == "quantized" || ns == "quantized_decomposed"; }

// One namespace's registrations; `knownTags` names the tag lists already declared.
std::vector<std::string> registrationsOf(const std::vector<const model::NativeFunction*>& functions,
                                         const OperatorSelector& selector) {
  std::map<std::string, int> knownTags;
  std::vector<std::string> out;
  for (const model::NativeFunction* f : functions) {
    if (!selector.isNativeFunctionSelected(*f)) continue;
    const std::string schema = support::cppString(f->schemaString);
    if (f->tags.empty()) {
      out.push_back(std::string("m.def(").append(schema).append(", {});\n"));
      continue;
    }
    std::string list = "{";  // the tags sorted (std::set), each as at::Tag::NAME
    for (const std::string& t : f->tags) list.append(list.size() > 1 ? ", " : "").append("at::Tag::").append(t);
    list += '}';
    std::string declaration;
    auto [it, added] = knownTags.emplace(list, static_cast<int>(knownTags.size()));
    const std::string name = std::string("tags_").append(std::to_string(it->second));
    if (added) declaration.append("const std::vector<at::Tag> ").append(name).append(" = ").append(list).append(";\n");
    out.push_back(declaration.append("m.def(").append(schema).append(", ").append(name).append(");\n"));
  }
  return out;
}

}  // namespace

SchemaRegistrations schemaRegistrations(const std::vector<const model::NativeFunction*>& functions,
                                        const OperatorSelector& selector) {
  std::vector<std::string> order;  // namespaces in order of first use
  std::map<std::string, std::vector<const model::NativeFunction*>> byNamespace;
  for (const model::NativeFunction* f : functions) {
    auto& list = byNamespace[f->ns];
    if (list.empty()) order.push_back(f->ns);
    list.push_back(f);
  }
  SchemaRegistrations result;
  for (const std::string& ns : order) {
    std::vector<std::string> body = registrationsOf(byNamespace[ns], selector);
    if (ns == "aten") {
      result.aten = std::move(body);
      continue;
    }
    // torchgen joins the items with a tab (each item already ends with a newline).
    const char* macro = isFragmentNamespace(ns) ? "TORCH_LIBRARY_FRAGMENT" : "TORCH_LIBRARY";
    result.otherNamespaces.append("\n").append(macro).append("(").append(ns).append(", m) {\n  ");
    result.otherNamespaces.append(support::join(body, "\t")).append("\n};");
  }
  return result;
}

void emitRegisterSchema(const EmitContext& ctx, const Writers& out) {
  out.cpu.write("RegisterSchema.cpp", [&] {
    support::TemplateEnv env;
    if (ctx.skipDispatcherOpRegistration) {
      env.set("aten_schema_registrations", std::vector<std::string>{});
      env.set("schema_registrations", std::vector<std::string>{});
      return env;
    }
    const OperatorSelector& selector = ctx.forceSchemaRegistration ? ctx.allOperators : ctx.selector;
    SchemaRegistrations r = schemaRegistrations(ctx.ops.functions(), selector);
    env.set("aten_schema_registrations", std::move(r.aten));
    env.set("schema_registrations", std::move(r.otherNamespaces));
    return env;
  });
}

}  // namespace opgen::dest
