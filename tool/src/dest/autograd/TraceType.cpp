#include "dest/autograd/TraceType.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "api/Cpp.h"
#include "api/Signatures.h"
#include "dest/python/PythonBindings.h"
#include "support/CodeTemplate.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest::autograd {

namespace {

using model::NativeFunction;
using model::SchemaKind;
using support::CodeTemplate;
using support::TemplateEnv;

// The fixed parts of the generated code. Legend: cond/true/false (a run-time choice), trace_name (the
// operator's name in the graph), name/input (a traced input), mutable_input (the modified tensor).
// Those without a placeholder that starts a line (where torchgen's templates indent a block) are
// CodeText snippets (`$name$`): the same text, without an environment per snippet.
const CodeTemplate kSelect("\nif (${cond}) {\n  ${true}\n} else {\n  ${false}\n}\n");
constexpr std::string_view kOpName = "op_name = c10::Symbol::fromQualString(\"aten::$trace_name$\");\n";
constexpr std::string_view kAddTraceInput = "jit::tracer::addInputs(node, \"$name$\", $input$);";
constexpr std::string_view kInplaceGuard = "jit::tracer::ensureUniqueIfOutOfPlaced(\"$name$\", $mutable_input$);\n";
const CodeTemplate kPreRecordTrace(
    "torch::jit::Node* node = nullptr;\n"
    "std::shared_ptr<jit::tracer::TracingState> tracer_state;\n"
    "if (jit::tracer::isTracing()) {\n"
    "  tracer_state = jit::tracer::getTracingState();\n"
    "  at::Symbol op_name;\n"
    "  ${set_op_name}\n"
    "  node = tracer_state->createNode(op_name, /*num_outputs=*/0);\n"
    "  jit::tracer::recordSourceLocation(node);\n"
    "  ${add_trace_inputs}\n"
    "  tracer_state->insertNode(node);\n"
    "  ${inplace_guard}\n"
    "  jit::tracer::setTracingState(nullptr);\n"
    "}\n");
const CodeTemplate kPostRecordTrace(
    "if (tracer_state) {\n"
    "  jit::tracer::setTracingState(std::move(tracer_state));\n"
    "  ${add_trace_outputs}\n"
    "}\n");
const CodeTemplate kTraceDispatch("${assign_return_values}at::_ops::${unambiguous_name}::redispatch(${unpacked_args});");
const CodeTemplate kMethodDefinition("${return_type} ${type_wrapper_name}(${formals}) {\n  ${type_definition_body}\n}\n");
constexpr std::string_view kWrapperRegistration = "m.impl(\"$name$\",\n       TORCH_FN(TraceType::$type_wrapper_name$)\n);\n";

// The arguments with which zero_ and fill_ are recorded as zeros_like and full_like when the tracer
// forces out-of-place operators.
constexpr std::string_view kLikeFactoryArgs =
    "    jit::tracer::addInputs(node, \"options\", ::std::optional<ScalarType>());\n"
    "    jit::tracer::addInputs(node, \"options\", layout_or_default(::std::nullopt));\n"
    "    jit::tracer::addInputs(node, \"options\", device_or_default(::std::nullopt));\n"
    "    jit::tracer::addInputs(node, \"options\", pinned_memory_or_default(::std::nullopt));\n"
    "    ::std::optional<MemoryFormat> memory_format = c10::MemoryFormat::Preserve;\n"
    "    jit::tracer::addInputs(node, \"memory_format\", memory_format);\n";

std::string fill(const CodeTemplate& t, const TemplateEnv& env) {
  support::Diagnostics unused;  // the fixed templates name only what every caller sets
  return t.substitute(env, unused).value_or("");
}

std::string select(const std::string& cond, const std::string& whenTrue, const std::string& whenFalse) {
  return fill(kSelect, TemplateEnv().set("cond", cond).set("true", whenTrue).set("false", whenFalse));
}

std::string opName(const std::string& name) {
  static const std::map<std::string, std::string> kRenameTrace = {{"zero", "zeros_like"}, {"fill", "full_like"}};
  const auto renamed = kRenameTrace.find(name);
  return support::fillSnippet(kOpName, {{"trace_name", renamed == kRenameTrace.end() ? name : renamed->second}});
}

std::string addTraceInput(const std::string& name, const std::string& input) {
  return support::fillSnippet(kAddTraceInput, {{"name", name}, {"input", input}});
}

std::string formatTraceOpName(const NativeFunction& f) {
  const SchemaKind kind = f.func.kind();
  if (kind == SchemaKind::Functional || kind == SchemaKind::Out || f.func.name.name.dunderMethod)
    return opName(f.func.name.name.str());
  // An in-place operator: recorded as its out-of-place variant when the tracer forces it.
  return select("tracer_state->force_outplace", opName(f.func.name.name.base), opName(api::cpp::name(f.func)));
}

std::string formatTraceInputs(const NativeFunction& f) {
  std::vector<const model::Argument*> args = f.func.schemaOrderArguments();
  const std::size_t numOut = f.func.arguments.out.size();
  args.resize(args.size() - numOut);  // the out arguments come last; they are traced below
  std::vector<std::string> inputs;
  for (const model::Argument* a : args) inputs.push_back(addTraceInput(a->name, a->name));
  if (f.func.isOutFn()) {
    std::vector<std::string> inplace;
    for (const model::Argument& out : f.func.arguments.out) inplace.push_back(addTraceInput(out.name, out.name));
    // Out of place, a factory's out= overload records the options of the tensor it would make.
    const bool tensorReturn =
        std::any_of(f.func.returns.begin(), f.func.returns.end(), [](const model::Return& r) { return r.type.isTensorLike(); });
    const std::vector<const model::Argument*> nonOut = f.func.arguments.flatNonOut();
    const bool tensorInput = std::any_of(nonOut.begin(), nonOut.end(), [](const model::Argument* a) { return a->type.isTensorLike(); });
    const bool factory = f.categoryOverride == "factory" || (tensorReturn && !tensorInput) || f.func.name.name.base == "normal";
    std::vector<std::string> outplace;
    if (factory)
      outplace = {addTraceInput("out", "c10::optTypeMetaToScalarType(out.options().dtype_opt())"),
                  addTraceInput("out", "out.options().layout()"), addTraceInput("out", "out.options().device()"),
                  addTraceInput("out", "out.options().pinned_memory()")};
    inputs.push_back(select("tracer_state->force_outplace", support::join(outplace, "\n"), support::join(inplace, "\n")));
  }
  return support::join(inputs, "\n");
}

std::string formatPrerecordTrace(const NativeFunction& f) {
  if (!shouldTrace(f)) return "";
  const SchemaKind kind = f.func.kind();
  const bool inplace = (kind == SchemaKind::Inplace || kind == SchemaKind::Out) && !f.func.name.name.dunderMethod;
  const std::string& base = f.func.name.name.base;
  const bool likeFactory = inplace && (base == "fill" || base == "zero");
  const std::string additional = likeFactory ? select("tracer_state->force_outplace", std::string(kLikeFactoryArgs), "") : "";
  std::string guard;
  if (inplace)
    guard = support::fillSnippet(kInplaceGuard, {{"name", api::cpp::name(f.func)},
                                                 {"mutable_input", f.func.arguments.out.empty() ? "self" : f.func.arguments.out[0].name}});
  return fill(kPreRecordTrace, TemplateEnv()
                                   .set("set_op_name", formatTraceOpName(f))
                                   .set("add_trace_inputs", formatTraceInputs(f) + additional)
                                   .set("inplace_guard", guard));
}

std::vector<std::string> addOutputs(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) out.push_back("jit::tracer::addOutput(node, " + n + ");");
  return out;
}

std::string formatPostrecordTrace(const NativeFunction& f) {
  if (!shouldTrace(f)) return "";
  const std::vector<std::string> returnNames = api::cpp::returnNames(f);
  if (f.func.isOutFn()) {
    std::vector<std::string> outNames;
    for (const model::Argument& a : f.func.arguments.out) outNames.push_back(a.name);
    if (outNames == returnNames) return fill(kPostRecordTrace, TemplateEnv().set("add_trace_outputs", addOutputs(outNames)));
    return fill(kPostRecordTrace,
                TemplateEnv().set("add_trace_outputs", select("force_outplace", support::join(addOutputs(outNames), "\n"),
                                                              support::join(addOutputs(returnNames), "\n"))));
  }
  return fill(kPostRecordTrace, TemplateEnv().set("add_trace_outputs", addOutputs(returnNames)));
}

std::vector<std::string> traceBody(const NativeFunction& f, const api::Options& options) {
  std::vector<std::string> body = {formatPrerecordTrace(f)};
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(f.func, options);
  std::vector<std::string> args = {"ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::Tracer)"};
  for (const api::Expr& e : sig.exprs()) args.push_back(e.expr);
  const SchemaKind kind = f.func.kind();
  const bool assign = (kind == SchemaKind::Functional || kind == SchemaKind::Mutable) && !f.func.returns.empty();
  body.push_back(fill(kTraceDispatch, TemplateEnv()
                                          .set("assign_return_values", assign ? tieReturnValues(f) + " = " : "")
                                          .set("unambiguous_name", f.func.name.unambiguousName())
                                          .set("unpacked_args", support::join(args, ", "))));
  body.push_back(formatPostrecordTrace(f));
  if (!f.func.returns.empty()) body.push_back("return " + returnValue(f) + ";");
  return body;
}

std::string methodDefinition(const NativeFunction& f) {
  const api::Options options = api::Options::of(f);
  std::vector<std::string> formals = {"c10::DispatchKeySet ks"};
  for (const model::Argument* a : f.func.schemaOrderArguments())
    formals.push_back(api::cpp::argumentType(*a, "__placeholder__", options, /*symint=*/true).cppType() + " " + a->name);
  return fill(kMethodDefinition, TemplateEnv()
                                     .set("return_type", api::cpp::returnsType(f.func.returns, options).cppType())
                                     .set("type_wrapper_name", typeWrapperName(f))
                                     .set("formals", support::join(formals, ", "))
                                     .set("type_definition_body", traceBody(f, options)));
}

std::string methodRegistration(const NativeFunction& f) {
  return support::fillSnippet(kWrapperRegistration, {{"name", f.func.name.str()}, {"type_wrapper_name", typeWrapperName(f)}});
}

}  // namespace

std::string tieReturnValues(const NativeFunction& f) {
  if (f.func.returns.size() == 1) return "auto " + f.func.returns[0].name.value_or("result");
  return "auto [" + support::join(api::cpp::returnNames(f), ", ") + "]";
}

std::string returnValue(const NativeFunction& f) {
  const std::vector<std::string> names = api::cpp::returnNames(f);
  if (f.func.returns.size() == 1) return names[0];
  if (f.func.kind() == SchemaKind::Out) return "std::forward_as_tuple(" + support::join(names, ", ") + ")";
  std::vector<std::string> moved;
  for (const std::string& n : names) moved.push_back("std::move(" + n + ")");
  return "std::make_tuple(" + support::join(moved, ", ") + ")";
}

bool isManualAutogradOrTracer(const std::string& cppName) {
  static const std::set<std::string> kManual = {
      // MANUAL_BACKEND
      "options", "data", "set_data", "is_leaf", "output_nr", "_version", "retain_grad", "_backward", "requires_grad_",
      // MANUAL_AUTOGRAD_AND_TRACER
      "resize_", "resize_as_", "detach", "detach_", "copy_", "_fw_primal", "_make_dual"};
  return kManual.count(cppName) != 0;
}

std::string typeWrapperName(const NativeFunction& f, const std::string& key) {
  std::string name = api::cpp::name(f.func);
  if (!f.func.name.overloadName.empty()) name += "_" + f.func.name.overloadName;
  if (key != "Default") name += "_" + key;
  return name;
}

bool emitTraceType(const std::vector<const NativeFunction*>& functions, const std::string& commentDir, Writer& out,
                   support::Diagnostics& diags) {
  std::vector<const NativeFunction*> traced;
  for (const NativeFunction* f : functions)
    if (!isManualAutogradOrTracer(api::cpp::name(f->func))) traced.push_back(f);
  // What has no C++ type in the kernels' signatures (like torchgen, the first such function stops the run).
  for (const NativeFunction* f : traced) {
    std::optional<std::string> problem;
    for (const model::Argument* a : f->func.schemaOrderArguments())
      if (!problem && (problem = api::cpp::checkSupported(a->type))) *problem = "argument '" + a->name + "': " + *problem;
    for (const model::Return& r : f->func.returns)
      if (!problem) problem = api::cpp::checkSupported(r);
    if (problem) {
      model::reportError(diags, *f, *problem);
      return false;
    }
  }
  Sharded spec{.filename = "TraceType.cpp",
               .templateName = "TraceType.cpp",
               .numShards = 10,
               .baseEnv = {{"generated_comment", support::TemplateValue("@generated from " + commentDir + "/TraceType.cpp")}},
               .shardedKeys = {"ops_headers", "trace_method_definitions", "trace_wrapper_registrations"}};
  // The kernels are made first, on two threads (each half of the functions), then sharded in order.
  std::vector<ShardEnv> envs(traced.size());
  const auto make = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const NativeFunction& f = *traced[i];
      envs[i] = ShardEnv{{"ops_headers", {"#include <ATen/ops/" + f.rootName() + "_ops.h>"}},
                         {"trace_method_definitions", {methodDefinition(f)}},
                         {"trace_wrapper_registrations", {methodRegistration(f)}}};
    }
  };
  std::thread half(make, 0, traced.size() / 2);
  make(traced.size() / 2, traced.size());
  half.join();
  out.writeSharded(
      spec, traced.size(), [&](std::size_t i) { return traced[i]->rootName(); },
      [&](std::size_t i) { return std::move(envs[i]); });
  return true;
}

}  // namespace opgen::dest::autograd
