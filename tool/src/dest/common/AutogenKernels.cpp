#include "dest/common/AutogenKernels.h"

#include "api/Dispatcher.h"
#include "api/Signatures.h"
#include "api/Translate.h"
#include "support/CodeText.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

using support::Expected;
using support::makeError;

// ---------------------------------------------------------------------------------------------
// Snippets. $ops$ and $helpers$ are AutogenKernelStyle's opsNamespace and helpers.

// The kernel of a generated functional operator.  $signature$ its dispatcher definition head,
// $clones$ the clones of mutated inputs, $assign$ `auto output = ` or nothing, $target$ the in-place
// or mutable operator, $args$ its arguments, $return$ the return statement
constexpr std::string_view kFunctionalKernel = R"cc(
$signature$ {
  $clones$
  $assign$$ops$::$target$::call($args$);
  $return$
}
)cc";
//   $name$ the mutated argument
constexpr std::string_view kCloneArgument = "auto $name$_clone = $helpers$clone_arg($name$);";

// The kernel of a generated out= operator.  $signature$ its dispatcher definition head,
// $functional$ the functional operator, $args$ its arguments, $copies$ the copies into the out
// arguments, $return$ the return statement
constexpr std::string_view kOutKernel = R"cc(
$signature$ {
  auto tmp_output = $ops$::$functional$::call($args$);
  $copies$
  $return$
}
)cc";
//   $out$ the out argument, $result$ the functional result that goes there
constexpr std::string_view kCopyOut = R"cc($helpers$resize_out_helper($out$, $result$);
  $helpers$copy_arg($out$, $result$);)cc";

// ---------------------------------------------------------------------------------------------

// torchgen's return_str.
Expected<std::string> returnStatement(const std::vector<model::Return>& returns, const std::vector<std::string>& names,
                                      const api::Options& options) {
  if (returns.size() != names.size())
    return makeError("Returns and names length mismatch: " + std::to_string(returns.size()) + " vs " +
                     std::to_string(names.size()));
  if (returns.empty()) return std::string();
  if (returns.size() == 1) return "return " + names[0] + ";";
  return "return " + api::dispatcher::returnsType(returns, options).cppType(false, options.spelling()) + "(" +
         support::join(names, ", ") + ");";
}

// The name of output i of a call returning `count` values held in `var`.
std::string resultElement(const std::string& var, size_t count, size_t i) {
  return count == 1 ? var : "std::get<" + std::to_string(i) + ">(" + var + ")";
}

}  // namespace

Expected<std::string> generatedFunctionalKernel(const model::NativeFunctionsGroup& g, const AutogenKernelStyle& style) {
  const model::NativeFunction* target = nullptr;
  if (g.inplace != nullptr && !g.inplace->generated()) {
    target = g.inplace;
  } else if (g.mutableFn != nullptr && !g.mutableFn->generated()) {
    target = g.mutableFn;
  } else {
    return makeError(g.functional->func.str());
  }
  const api::Options options = api::Options::of(g, style.libtorch);
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(g.functional->func, options);
  const api::DispatcherSignature targetSig = api::DispatcherSignature::fromSchema(target->func, options);

  // The target's mutable arguments get clones of the functional's, which the functional returns.
  std::vector<api::Expr> context;
  std::vector<std::string> clones;
  std::vector<std::string> clonedNames;
  const std::vector<const model::Argument*> current = api::dispatcher::jitArguments(g.functional->func);
  const std::vector<const model::Argument*> targets = api::dispatcher::jitArguments(target->func);
  for (size_t i = 0; i < current.size() && i < targets.size(); ++i) {
    const model::Argument& a = *current[i];
    if (targets[i]->isWrite()) {
      clones.push_back(support::fillSnippet(kCloneArgument, {{"name", a.name}, {"helpers", style.helpers}}));
      const std::string clone = a.name + "_clone";
      if (style.clonesAsValues && a.type.isBase(model::BaseTy::Tensor))
        context.push_back(api::Expr{clone, api::NamedCType{a.name, api::CType::base(api::tensorT)}});
      else
        context.push_back(api::Expr{clone, api::dispatcher::argumentType(a, a.name, options)});
      clonedNames.push_back(clone);
    } else {
      context.push_back(api::Expr::of(api::dispatcher::argument(a, options)));
    }
  }
  Expected<std::vector<api::Expr>> args =
      api::translate(context, targetSig.arguments(), api::TranslateOptions{.libtorch = style.libtorch});
  if (!args) return args.error();

  // The target's returns that alias no input, then the clones.
  std::vector<std::string> names;
  const std::vector<std::optional<std::string>> aliased = target->func.aliasedReturnNames();
  for (size_t i = 0; i < aliased.size(); ++i)
    if (!aliased[i]) names.push_back(resultElement("output", aliased.size(), i));
  names.insert(names.end(), clonedNames.begin(), clonedNames.end());
  Expected<std::string> ret = returnStatement(g.functional->func.returns, names, options);
  if (!ret) return ret;
  const std::string name = sig.name() + (g.out->func.hasSymInt() ? "_symint" : "");
  return support::fillSnippet(kFunctionalKernel, {{"signature", sig.defn({.name = name})},
                                                  {"clones", support::join(clones, style.torchgenIndentation ? "\n" : "\n  ")},
                                                  {"assign", target->func.returns.empty() ? "" : "auto output = "},
                                                  {"ops", style.opsNamespace},
                                                  {"target", target->func.name.unambiguousName()},
                                                  {"args", api::joinExprs(*args)},
                                                  {"return", *ret}});
}

Expected<std::string> generatedOutKernel(const model::NativeFunctionsGroup& g, const AutogenKernelStyle& style) {
  const api::Options options = api::Options::of(g, style.libtorch);
  const api::DispatcherSignature sig = api::DispatcherSignature::fromSchema(g.out->func, options);
  const api::DispatcherSignature targetSig = api::DispatcherSignature::fromSchema(g.functional->func, options);
  Expected<std::vector<api::Expr>> args =
      api::translate(sig.arguments(), targetSig.arguments(), api::TranslateOptions{.libtorch = style.libtorch});
  if (!args) return args.error();
  const size_t functionalReturns = g.functional->func.returns.size();
  std::vector<std::string> copies;
  const std::vector<model::Argument>& outs = g.out->func.arguments.out;
  for (size_t i = 0; i < outs.size(); ++i)
    copies.push_back(support::fillSnippet(kCopyOut, {{"out", outs[i].name},
                                                     {"result", resultElement("tmp_output", functionalReturns, i)},
                                                     {"helpers", style.helpers}}));
  // Returns that alias an input return it; the others return the functional's result.
  std::vector<std::string> rets;
  const std::vector<std::optional<std::string>> aliased = g.out->func.aliasedReturnNames();
  for (size_t i = 0; i < aliased.size(); ++i)
    rets.push_back(aliased[i] ? *aliased[i] : resultElement("tmp_output", functionalReturns, i));
  Expected<std::string> ret = returnStatement(g.out->func.returns, rets, options);
  if (!ret) return ret;
  std::string copyStatements = support::join(copies, "\n  ");
  if (style.torchgenIndentation) copyStatements.insert(0, "  ");
  const std::string name = g.out->func.name.unambiguousName() + (g.out->func.hasSymInt() ? "_symint" : "");
  return support::fillSnippet(kOutKernel, {{"signature", sig.defn({.name = name})},
                                           {"ops", style.opsNamespace},
                                           {"functional", g.functional->func.name.unambiguousName()},
                                           {"args", api::joinExprs(*args)},
                                           {"copies", copyStatements},
                                           {"return", *ret}});
}

}  // namespace opgen::dest
