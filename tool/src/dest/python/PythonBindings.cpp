#include "dest/python/PythonBindings.h"

#include <algorithm>
#include <functional>
#include <map>
#include <thread>

#include "support/CodeTemplate.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

using api::python::PythonSignature;
using api::python::SignatureGroup;
using api::python::SignaturePair;
using model::NativeFunction;

bool shouldTrace(const NativeFunction& f) {
  static const std::set<std::string> kDontRecordTrace = {
      "convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
      "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "_coalesced"};
  for (const model::Argument* a : f.func.schemaOrderArguments()) {
    const std::string t = a->type.str();
    if (t == "Storage" || t == "Type") return false;
  }
  if (std::none_of(f.func.returns.begin(), f.func.returns.end(), [](const model::Return& r) { return r.type.isTensorLike(); }))
    return false;
  return !kDontRecordTrace.count(f.func.name.name.base);
}

namespace {

// The overloads of one Python name (torchgen's group_filter_overloads), in the pairs' order.
struct OverloadSet {
  model::BaseOperatorName name;
  std::string key;  // str(name)
  std::vector<const SignaturePair*> overloads;
};

// The sets in first-seen order.
std::vector<OverloadSet> groupFilterOverloads(const std::vector<SignaturePair>& pairs,
                                              const std::function<bool(const NativeFunction&)>& pred) {
  std::vector<OverloadSet> sets;
  std::map<std::string, size_t> index;
  for (const SignaturePair& p : pairs) {
    if (!pred(*p.function)) continue;
    std::string key = p.function->func.name.name.str();
    auto [it, inserted] = index.emplace(key, sets.size());
    if (inserted) sets.push_back({p.function->func.name.name, key, {}});
    sets[it->second].overloads.push_back(&p);
  }
  return sets;
}

std::vector<OverloadSet> sortedByName(std::vector<OverloadSet> sets) {
  std::stable_sort(sets.begin(), sets.end(), [](const OverloadSet& a, const OverloadSet& b) { return a.key < b.key; });
  return sets;
}

// The parts of the generated code, fixed by the output format.
const support::CodeTemplate& tmpl(const char* which) {
  static const std::map<std::string, support::CodeTemplate> kTemplates = [] {
    const std::string body =
        "{\n"
        "  ${method_header}\n"
        "  static PythonArgParser parser({\n"
        "    ${signatures}\n"
        "  }, /*traceable=*/${traceable});\n"
        "\n"
        "  ParsedArgs<${max_args}> parsed_args;\n"
        "  auto _r = parser.parse(${self_}, args, kwargs, parsed_args);\n"
        "  ${check_has_torch_function}\n";
    const std::string head = "// ${name}\nstatic PyObject * ${pycname}(PyObject* self_, PyObject* args, PyObject* kwargs)\n";
    std::map<std::string, support::CodeTemplate> t;
    t.emplace("varargs", support::CodeTemplate("\\\n" + head + body +
                                               "  switch (_r.idx) {\n"
                                               "    ${dispatch}\n"
                                               "  }\n"
                                               "  ${method_footer}\n"
                                               "}\n\n"));
    t.emplace("singleton", support::CodeTemplate(head + body + "  ${dispatch}\n  ${method_footer}\n}\n\n"));
    t.emplace("noargs", support::CodeTemplate("// ${name}\n"
                                              "static PyObject * ${pycname}(PyObject* self_, PyObject* args)\n"
                                              "{\n"
                                              "  ${method_header}\n"
                                              "  ${check_has_torch_function}\n"
                                              "  ${dispatch}\n"
                                              "  ${method_footer}\n"
                                              "}\n\n"));
    t.emplace("case", support::CodeTemplate("case ${overload_index}: {\n  ${body}\n}\n"));
    t.emplace("out", support::CodeTemplate("if (_r.isNone(${out_idx})) {\n"
                                           "  ${call_dispatch}\n"
                                           "} else {\n"
                                           "  ${call_dispatch_out}\n"
                                           "}\n"));
    return t;
  }();
  return kTemplates.at(which);
}

std::string moduleNamespace(const std::string& module) {
  static const std::map<std::string, std::string> kNamespaces = {
      {"torch", "THPVariableFunctionsModule"},          {"torch.nn", "THPNNVariableFunctionsModule"},
      {"torch.fft", "THPFFTVariableFunctionsModule"},   {"torch.linalg", "THPLinalgVariableFunctionsModule"},
      {"torch.nested", "THPNestedVariableFunctionsModule"}, {"torch.sparse", "THPSparseVariableFunctionsModule"},
      {"torch.special", "THPSpecialVariableFunctionsModule"}};
  return kNamespaces.at(module);
}

bool isNoarg(const OverloadSet& s) { return s.overloads.size() == 1 && s.overloads[0]->signature.argumentsCount() == 0; }

std::string pycname(const OverloadSet& s) { return "THPVariable_" + s.key; }

// The bindings of one module's file. Errors are reported at the function that causes them; the
// generated text is then incomplete and must not be written.
class BindingWriter {
 public:
  BindingWriter(std::optional<std::string> module, bool method, support::Diagnostics& diags)
      : module_(std::move(module)), method_(method), diags_(diags) {}

  std::string methodImpl(const OverloadSet& s);
  std::string methodDef(const OverloadSet& s) const;
  std::vector<std::string> forwardDecls(const OverloadSet& s) const;

 private:
  std::string hasTorchFunctionCheck(const OverloadSet& s) const;
  std::string dispatchCase(const SignatureGroup& g, const std::map<std::string, std::string>& typenames);
  std::string singleDispatch(const PythonSignature& ps, const NativeFunction& f,
                             const std::map<std::string, std::string>& typenames);
  std::string render(const support::CodeTemplate& t, const support::TemplateEnv& env) {
    return t.substitute(env, diags_).value_or("");
  }
  template <class T>
  std::optional<T> check(support::Expected<T> v, const NativeFunction& f) {
    if (v) return v.take();
    if (!diags_.hasErrors())  // like torchgen, stop at the first problem
      model::reportError(diags_, f, v.error().message);
    return std::nullopt;
  }

  std::optional<std::string> module_;
  bool method_;
  support::Diagnostics& diags_;
};

// torchgen's gen_structseq_typename_key: the C++ name and the field names.
std::optional<std::string> structseqKey(const NativeFunction& f, std::vector<std::string>* fields = nullptr) {
  auto names = api::python::structseqFieldnames(f.func.returns);
  if (!names || names->empty()) return std::nullopt;
  if (fields) *fields = *names;
  return model::cppName(f.func) + "_" + support::join(*names, "_");
}

// The structseq types an overload set uses: key -> typename (NamedTuple, NamedTuple1, ...), and their inits.
std::map<std::string, std::string> structseqTypenames(const OverloadSet& s, std::vector<std::string>& inits) {
  std::map<std::string, std::string> typenames;
  for (const SignaturePair* o : s.overloads) {
    auto key = structseqKey(*o->function);
    if (!key || typenames.count(*key)) continue;
    const std::string typeName = "NamedTuple" + (inits.empty() ? std::string() : std::to_string(inits.size()));
    typenames.emplace(*key, typeName);
    inits.push_back("static PyTypeObject* " + typeName + " = generated::get_" + model::cppName(o->function->func) +
                    "_structseq();");
  }
  return typenames;
}

std::string BindingWriter::hasTorchFunctionCheck(const OverloadSet& s) const {
  if (isNoarg(s)) {
    if (!method_) return "";
    return "if (has_torch_function(self_)) {\n  return handle_torch_function(self_, \"" + s.key + "\");\n}\n";
  }
  const std::string self = method_ ? "self_" : "nullptr";
  const std::string ns = module_ ? moduleNamespace(*module_) : "THPVariableClass";
  return "if(_r.has_torch_function()) {\n  return handle_torch_function(_r, " + self + ", args, kwargs, " + ns + ", \"" +
         module_.value_or("torch.Tensor") + "\");\n}\n";
}

std::string BindingWriter::methodImpl(const OverloadSet& s) {
  const bool noarg = isNoarg(s);
  std::vector<std::string> inits;
  const auto typenames = structseqTypenames(s, inits);
  std::vector<std::string> header = {"HANDLE_TH_ERRORS"};
  header.insert(header.end(), inits.begin(), inits.end());
  if (method_) header.push_back("const Tensor& self = THPVariable_Unpack(self_);");
  std::vector<std::string> footer;
  if (!noarg) footer.push_back("Py_RETURN_NONE;");
  footer.push_back("END_HANDLE_TH_ERRORS");
  const bool traceable =
      std::all_of(s.overloads.begin(), s.overloads.end(), [](const SignaturePair* o) { return shouldTrace(*o->function); });
  size_t maxArgs = 0;
  for (const SignaturePair* o : s.overloads) maxArgs = std::max(maxArgs, o->signature.argumentsCount());

  auto grouped = check(api::python::groupOverloads(s.overloads), *s.overloads[0]->function);
  if (!grouped) return "";
  const bool singleton = grouped->size() == 1;
  std::vector<std::string> signatures, dispatch;
  for (size_t i = 0; i < grouped->size(); ++i) {
    const SignatureGroup& g = (*grouped)[i];
    signatures.push_back(support::cppString(g.signature.str()) + ",");
    std::string body = dispatchCase(g, typenames);
    if (!singleton) {
      support::TemplateEnv env;
      env.set("overload_index", std::to_string(i)).set("body", std::move(body));
      body = render(tmpl("case"), env);
    }
    dispatch.push_back(std::move(body));
  }
  support::TemplateEnv env;
  env.set("name", s.key)
      .set("pycname", pycname(s))
      .set("method_header", std::move(header))
      .set("max_args", std::to_string(maxArgs))
      .set("signatures", std::move(signatures))
      .set("traceable", traceable ? "true" : "false")
      .set("check_has_torch_function", hasTorchFunctionCheck(s))
      .set("dispatch", std::move(dispatch))
      .set("method_footer", std::move(footer))
      .set("self_", method_ ? "self_" : "nullptr");
  return render(tmpl(noarg ? "noargs" : singleton ? "singleton" : "varargs"), env);
}

std::string BindingWriter::dispatchCase(const SignatureGroup& g, const std::map<std::string, std::string>& typenames) {
  if (!g.outplace) return singleDispatch(g.signature, *g.base, typenames);
  support::TemplateEnv env;
  env.set("out_idx", std::to_string(g.signature.outputIdx()))
      .set("call_dispatch", singleDispatch(g.signature, *g.base, typenames))
      .set("call_dispatch_out", singleDispatch(g.signature, *g.outplace, typenames));
  return render(tmpl("out"), env);
}

std::string BindingWriter::singleDispatch(const PythonSignature& ps, const NativeFunction& f,
                                          const std::map<std::string, std::string>& typenames) {
  const std::string comment =
      ps.deprecated ? "// [deprecated] aten::" + ps.deprecated->schema.str() : "// aten::" + f.func.str();
  const std::string name = model::cppName(f.func);
  const std::string formals = support::joinMapped(api::python::dispatchLambdaArgs(ps, f), ", ", [](const auto& a) {
    return a.typeStr + " " + a.name;
  });
  auto ret = check(api::python::dispatchLambdaReturnStr(f), f);
  auto callee = check(api::python::cppDispatchTarget(f), f);
  auto outputs = check(api::python::argParserOutputExprs(ps), f);
  auto lambdaExprs = check(api::python::dispatchLambdaExprs(ps, f), f);
  if (!ret || !callee || !outputs || !lambdaExprs) return "";
  const std::string args = support::join(api::python::cppDispatchExprs(f, ps), ", ");
  const std::string inits = support::join(lambdaExprs->inits, "\n");
  const std::string lambdaArgs = support::join(lambdaExprs->exprs, ", ");
  const bool setRequiresGrad = !ps.tensorOptionsArgs.empty() &&
                               (!f.func.arguments.tensorOptions || (ps.method && outputs->count("requires_grad")));
  const std::string requiresGrad = setRequiresGrad ? ".set_requires_grad(" + outputs->at("requires_grad").expr + ")" : "";
  const std::string head = comment + "\n" + inits + "\nauto dispatch_" + name + " = [](" + formals + ") -> " + *ret +
                           " {\n  pybind11::gil_scoped_release no_gil;\n  ";
  const std::string call = *callee + "(" + args + ");\n};\n";
  if (*ret == "void") {
    std::string returnStmt = "Py_RETURN_NONE;";
    if (f.func.name.str().starts_with("_foreach_") && f.func.kind() == model::SchemaKind::Inplace) {
      const auto& self = f.func.arguments.selfArg;
      if (!self || !self->type.isTensorLike() || !self->type.listLike()) {
        if (!diags_.hasErrors())
          model::reportError(diags_, f, "Expected self_arg to be a tensor list type for inplace foreach");
        return "";
      }
      returnStmt = "PyObject* self_tensorlist = _r.args[0];\nPy_INCREF(self_tensorlist);\nreturn self_tensorlist;\n";
    }
    return head + call + "dispatch_" + name + "(" + lambdaArgs + ")" + requiresGrad + ";\n" + returnStmt + "\n";
  }
  std::string typeref;
  if (auto key = structseqKey(f)) {
    if (auto it = typenames.find(*key); it != typenames.end()) typeref = it->second + ", ";
  }
  return head + "return " + call + "return wrap(" + typeref + "dispatch_" + name + "(" + lambdaArgs + ")" + requiresGrad +
         ");\n";
}

std::string BindingWriter::methodDef(const OverloadSet& s) const {
  std::string name = pycname(s);
  if (s.name.dunderMethod) name = "TypeError_to_NotImplemented_<" + name + ">";
  std::string flags;
  if (isNoarg(s)) {
    flags = method_ ? "METH_NOARGS" : "METH_VARARGS | METH_KEYWORDS";
  } else {
    name = "castPyCFunctionWithKeywords(" + name + ")";
    flags = "METH_VARARGS | METH_KEYWORDS";
  }
  if (module_ == "torch") flags += " | METH_STATIC";
  return "{\"" + s.key + "\", " + name + ", " + flags + ", nullptr},";
}

std::vector<std::string> BindingWriter::forwardDecls(const OverloadSet& s) const {
  if (method_) return {};
  return {"static PyObject * " + pycname(s) + "(PyObject* self_, PyObject* args" +
          (isNoarg(s) ? ");\n" : ", PyObject* kwargs);\n")};
}

std::string opsHeader(const OverloadSet& s) { return atenInclude("ops/" + s.name.base); }

using Pred = std::function<bool(const NativeFunction&)>;

Pred inModule(std::optional<std::string> module, std::optional<model::Variant> variant = std::nullopt) {
  return [module = std::move(module), variant](const NativeFunction& f) {
    return f.pythonModule == module && (!variant || f.hasVariant(*variant));
  };
}

std::string generatedComment(const PythonBindingsContext& ctx, const std::string& filename) {
  return "@generated from " + ctx.templateDirForComments + "/" + filename;
}

// One module's file (torchgen's create_python_bindings).
support::TemplateEnv moduleEnv(const PythonBindingsContext& ctx, const std::vector<SignaturePair>& pairs, const Pred& pred,
                               const std::optional<std::string>& module, const std::string& filename, bool method) {
  BindingWriter writer(module, method, ctx.diags);
  std::vector<std::string> methods, defs, forwards, headers;
  for (const OverloadSet& s : sortedByName(groupFilterOverloads(pairs, pred))) {
    methods.push_back(writer.methodImpl(s));
    defs.push_back(writer.methodDef(s));
    for (std::string& d : writer.forwardDecls(s)) forwards.push_back(std::move(d));
    headers.push_back(opsHeader(s));
  }
  support::TemplateEnv env;
  env.set("generated_comment", generatedComment(ctx, filename))
      .set("ops_headers", std::move(headers))
      .set("py_forwards", std::move(forwards))
      .set("py_methods", std::move(methods))
      .set("py_method_defs", std::move(defs));
  return env;
}

// python_return_types.{cpp,h}: one getter per structseq type of every function.
void returnTypes(const std::vector<SignaturePair>& functions, std::vector<std::string>& definitions,
                 std::vector<std::string>& registrations, std::vector<std::string>& declarations) {
  for (const OverloadSet& s : sortedByName(groupFilterOverloads(functions, [](const NativeFunction&) { return true; }))) {
    std::set<std::string> seen;
    std::vector<std::string> defs, regs, decls;
    for (const SignaturePair* o : s.overloads) {
      std::vector<std::string> fields;
      auto key = structseqKey(*o->function, &fields);
      if (!key || !seen.insert(*key).second) continue;
      const std::string name = model::cppName(o->function->func);
      const std::string typeName = name + "NamedTuple" + (defs.empty() ? std::string() : std::to_string(defs.size()));
      const std::string fieldList = support::joinMapped(fields, ", ", [](const std::string& f) { return "{\"" + f + "\", \"\"}"; });
      defs.push_back("PyTypeObject* get_" + name + "_structseq() {\n" +
                     "    static PyStructSequence_Field NamedTuple_fields[] = { " + fieldList + ",  {nullptr} };\n" +
                     "    static PyTypeObject " + typeName + ";\n" +
                     "    static bool is_initialized = false;\n" +
                     "    static PyStructSequence_Desc desc = { \"torch.return_types." + name +
                     "\", nullptr, NamedTuple_fields, " + std::to_string(fields.size()) + " };\n" +
                     "    if (!is_initialized) {\n" +
                     "        PyStructSequence_InitType(&" + typeName + ", &desc);\n" +
                     "        " + typeName + ".tp_repr = (reprfunc)torch::utils::returned_structseq_repr;\n" +
                     "        is_initialized = true;\n" +
                     "    }\n" +
                     "    return &" + typeName + ";\n" +
                     "}\n");
      regs.push_back("addReturnType(return_types_module, \"" + name + "\", generated::get_" + name + "_structseq());");
      decls.push_back("PyTypeObject* get_" + name + "_structseq();");
    }
    definitions.push_back(support::join(defs, "\n"));
    registrations.push_back(support::join(regs, "\n"));
    declarations.push_back(support::join(decls, "\n"));
  }
}

}  // namespace

void emitPythonBindings(const PythonBindingsContext& ctx, Writer& out) {
  using model::Variant;
  struct ModuleFile {
    const std::vector<SignaturePair>* pairs;
    Pred pred;
    std::optional<std::string> module;
    std::string filename;
    bool method;
  };
  const std::vector<ModuleFile> files = {
      {&ctx.methods, inModule(std::nullopt, Variant::Method), std::nullopt, "python_variable_methods.cpp", true},
      {&ctx.functions, inModule("nn"), "torch.nn", "python_nn_functions.cpp", false},
      {&ctx.functions, inModule("fft"), "torch.fft", "python_fft_functions.cpp", false},
      {&ctx.functions, inModule("linalg"), "torch.linalg", "python_linalg_functions.cpp", false},
      {&ctx.functions, inModule("nested"), "torch.nested", "python_nested_functions.cpp", false},
      {&ctx.functions, inModule("sparse"), "torch.sparse", "python_sparse_functions.cpp", false},
      {&ctx.functions, inModule("special"), "torch.special", "python_special_functions.cpp", false},
  };
  // Everything is computed first: a function that cannot be bound stops the run before any file is
  // written. The module files and the torch functions are computed on two threads, each reporting
  // to diagnostics of its own; like torchgen, only the first problem is reported.
  support::Diagnostics moduleDiags, torchDiags;
  std::vector<support::TemplateEnv> envs;
  std::thread modules([&] {
    const PythonBindingsContext local{ctx.methods, ctx.functions, ctx.validTags, ctx.templateDirForComments, moduleDiags};
    for (const ModuleFile& f : files) envs.push_back(moduleEnv(local, *f.pairs, f.pred, f.module, f.filename, f.method));
  });

  // torch: sharded, in the functions' order.
  const std::vector<OverloadSet> torch = groupFilterOverloads(ctx.functions, inModule(std::nullopt, Variant::Function));
  std::vector<ShardEnv> torchEnvs;
  BindingWriter torchWriter("torch", false, torchDiags);
  for (const OverloadSet& s : torch)
    torchEnvs.push_back({{"ops_headers", {opsHeader(s)}},
                         {"py_forwards", torchWriter.forwardDecls(s)},
                         {"py_methods", {torchWriter.methodImpl(s)}},
                         {"py_method_defs", {torchWriter.methodDef(s)}}});
  std::vector<std::string> definitions, registrations, declarations;
  returnTypes(ctx.functions, definitions, registrations, declarations);
  modules.join();
  if (moduleDiags.hasErrors() || torchDiags.hasErrors()) {
    ctx.diags.append(moduleDiags.hasErrors() ? moduleDiags : torchDiags);
    return;
  }

  for (size_t i = 0; i < files.size(); ++i)
    out.writeWithTemplate(files[i].filename, files[i].filename, [&, i] { return std::move(envs[i]); });
  Sharded sharded{.filename = "python_torch_functions.cpp",
                  .templateName = "python_torch_functions.cpp",
                  .numShards = 3,
                  .baseEnv = {{"generated_comment",
                               support::TemplateValue(generatedComment(ctx, "python_torch_functions.cpp"))}},
                  .shardedKeys = {"ops_headers", "py_forwards", "py_methods", "py_method_defs"}};
  out.writeSharded(
      sharded, torch.size(), [&](size_t i) { return torch[i].name.base; }, [&](size_t i) { return std::move(torchEnvs[i]); });
  out.writeWithTemplate("python_return_types.cpp", "python_return_types.cpp", [&] {
    support::TemplateEnv env;
    env.set("generated_comment", generatedComment(ctx, "python_return_types.cpp"))
        .set("py_return_types", std::move(definitions))
        .set("py_return_types_registrations", std::move(registrations));
    return env;
  });
  out.writeWithTemplate("python_return_types.h", "python_return_types.h", [&] {
    support::TemplateEnv env;
    env.set("generated_comment", generatedComment(ctx, "python_return_types.h"))
        .set("py_return_types_declarations", std::move(declarations));
    return env;
  });
  out.write("python_enum_tag.cpp", [&] {
    std::string tags;
    for (const std::string& tag : ctx.validTags) tags += "\n.value(\"" + tag + "\", at::Tag::" + tag + ")";
    support::TemplateEnv env;
    env.set("enum_of_valid_tags", tags);
    return env;
  });
}

}  // namespace opgen::dest
