#include "dest/VmapPlumbing.h"

#include <array>

#include "api/Signatures.h"
#include "api/Translate.h"
#include "dest/FunctionContext.h"
#include "dest/SnippetFill.h"
#include "support/Strings.h"

namespace opgen::dest {

namespace {

// ---------------------------------------------------------------------------------------------
// Snippets

// The whole file.
//   $body$  the plumbings, "\n"-separated
constexpr std::string_view kFile = R"cc(
#pragma once
#include <ATen/Operators.h>
#include <ATen/functorch/PlumbingHelper.h>

namespace at { namespace functorch {

$body$

}} // namespace at::functorch
)cc";

// One plumbing.
//   $decl$           the dispatcher signature's declaration, named NAME_generated_plumbing
//   $kind$           which generator made it (named in vmap_check_escaped's message)
//   $all_unbatched$  kAllUnbatched, indented by two spaces
//   $unwraps$        the batched arguments' unwrapping, indented by two spaces
//   $call$           the batch rule's call and the return
constexpr std::string_view kPlumbing = R"cc(template <typename batch_rule_t, batch_rule_t batch_rule>
$decl$ {
  c10::impl::ExcludeDispatchKeyGuard guard(DispatchKey::FuncTorchBatched);
  auto maybe_layer = maybeCurrentDynamicLayer();
  vmap_check_escaped(maybe_layer, "$kind$");
  int64_t cur_level = maybe_layer->layerId();
$all_unbatched$
$unwraps$
$call$
})cc";

// Nothing batched at this level: the operator itself.
//   $conditions$  "!isBatchedAtLevel(NAME, cur_level)" per tensor-like argument, " && "-separated
//   $op$          the operator's at::_ops:: name
//   $args$        its arguments
constexpr std::string_view kAllUnbatched = R"cc(if ($conditions$) {
  return at::_ops::$op$::call($args$);
})cc";

// A tensor argument's value and batch dimension (`$name$` the argument).
constexpr std::string_view kUnwrapTensor = "auto [$name$_value, $name$_bdim] = unwrapTensorAtLevel($name$, cur_level);";
constexpr std::string_view kUnwrapOptionalTensor = R"cc(std::optional<Tensor> $name$_value;
std::optional<int64_t> $name$_bdim;
if ($name$) {
    std::tie($name$_value, $name$_bdim) = unwrapTensorAtLevel($name$.value(), cur_level);
})cc";

// Operators whose non-tensor returns (SymInts) are passed through: torchgen's own list.
constexpr std::array<std::string_view, 3> kReturnSymintOverrides = {
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_cudnn_attention",
    "_scaled_dot_product_flash_attention_quantized",
};

// ---------------------------------------------------------------------------------------------

bool isTensor(const model::Type& t) { return t.isBase(model::BaseTy::Tensor); }
bool isOptionalTensor(const model::Type& t) { return t.isOptional() && isTensor(t.elem()); }
bool isTensorList(const model::Type& t) { return t.isList() && isTensor(t.elem()); }

struct Unwraps {
  std::string code;               // the unwrapping statements
  std::vector<std::string> args;  // the batch rule's arguments
};

// torchgen's gen_unwraps: tensors first, then optional tensors; each becomes (value, bdim).
Unwraps unwraps(const std::vector<const model::Argument*>& args) {
  Unwraps r;
  std::vector<std::string> statements;
  for (const model::Argument* a : args)
    if (isTensor(a->type)) statements.push_back(fillSnippet(kUnwrapTensor, {{"name", a->name}}));
  for (const model::Argument* a : args)
    if (isOptionalTensor(a->type)) statements.push_back(fillSnippet(kUnwrapOptionalTensor, {{"name", a->name}}));
  r.code = support::join(statements, "\n");
  for (const model::Argument* a : args) {
    if (isTensor(a->type) || isOptionalTensor(a->type)) {
      r.args.push_back(a->name + "_value");
      r.args.push_back(a->name + "_bdim");
    } else {
      r.args.push_back(a->name);
    }
  }
  return r;
}

// torchgen's gen_returns: batched results are (value, bdim) pairs in the rule's tuple.
std::string wrappedReturns(const std::vector<model::Return>& returns) {
  std::vector<std::string> wrapped;
  size_t idx = 0;
  for (const model::Return& r : returns) {
    const std::string at = std::to_string(idx), next = std::to_string(idx + 1);
    if (isTensor(r.type) || isTensorList(r.type)) {
      wrapped.push_back(std::string(isTensor(r.type) ? "makeBatched" : "makeBatchedVector") + "(std::get<" + at +
                        ">(results), std::get<" + next + ">(results), cur_level)");
      idx += 2;
    } else {
      wrapped.push_back("std::get<" + at + ">(results)");
      idx += 1;
    }
  }
  if (wrapped.size() == 1) return "return " + wrapped[0] + ";";
  return "return std::make_tuple(" + support::join(wrapped, ", ") + ");";
}

bool acceptsTensorInput(const model::FunctionSchema& func) {
  for (const model::Argument* a : func.arguments.flatAll())
    if (a->type.isTensorLike()) return true;
  return false;
}

enum class Kind { Functional, Inplace, NoReturns };

std::string_view kindName(Kind k) {
  switch (k) {
    case Kind::Functional: return "gen_vmap_plumbing";
    case Kind::Inplace: return "gen_vmap_inplace_plumbing";
    case Kind::NoReturns: return "gen_vmap_plumbing_no_returns";
  }
  return "";
}

// Which plumbing torchgen generates for f, if any.
std::optional<Kind> plumbingKind(const model::NativeFunction& f) {
  const model::FunctionSchema& func = f.func;
  if (!acceptsTensorInput(func)) return std::nullopt;
  if (func.returns.empty()) return Kind::NoReturns;
  bool tensorReturns = true;
  for (const model::Return& r : func.returns) tensorReturns = tensorReturns && r.type.isTensorLike();
  const std::string name = func.name.unambiguousName();
  bool overridden = false;
  for (std::string_view n : kReturnSymintOverrides) overridden = overridden || n == name;
  if (!tensorReturns && !overridden) return std::nullopt;
  if (f.tags.count("inplace_view")) return std::nullopt;  // in-place views need special handling
  if (func.kind() == model::SchemaKind::Inplace) {
    // Only the first argument mutated, and only Tensor / Tensor[] returns.
    const auto args = func.arguments.flatAll();
    if (args.empty() || !args[0]->isWrite()) return std::nullopt;
    int mutated = 0;
    for (const model::Argument* a : args) mutated += a->isWrite() ? 1 : 0;
    if (mutated != 1) return std::nullopt;
    for (const model::Return& r : func.returns)
      if (!isTensor(r.type) && !isTensorList(r.type)) return std::nullopt;
    return Kind::Inplace;
  }
  if (func.kind() != model::SchemaKind::Functional) return std::nullopt;
  return Kind::Functional;
}

}  // namespace

std::optional<std::string> vmapPlumbing(const model::NativeFunction& f, support::Diagnostics& diags) {
  const std::optional<Kind> kind = plumbingKind(f);
  if (!kind) return std::nullopt;
  const model::FunctionSchema& func = f.func;
  const auto sig = api::DispatcherSignature::fromSchema(func, api::Options::of(f));
  const auto args = func.arguments.flatAll();

  auto exprs = api::translate(sig.arguments(), sig.arguments());
  if (!exprs) {
    reportFunctionError(diags, f, exprs.error().message);
    return std::nullopt;
  }
  std::vector<std::string> conditions, callArgs;
  for (const model::Argument* a : args)
    if (a->type.isTensorLike()) conditions.push_back("!isBatchedAtLevel(" + a->name + ", cur_level)");
  for (const api::Expr& e : *exprs) callArgs.push_back(e.expr);
  const std::string allUnbatched = fillSnippet(kAllUnbatched, {{"conditions", support::join(conditions, " && ")},
                                                               {"op", func.name.unambiguousName()},
                                                               {"args", support::join(callArgs, ", ")}});
  const Unwraps u = unwraps(args);
  const std::string ruleArgs = support::join(u.args, ", ");
  std::string call;
  switch (*kind) {
    case Kind::Functional: call = "  auto results = batch_rule(" + ruleArgs + ");\n  " + wrappedReturns(func.returns); break;
    case Kind::Inplace: call = "  batch_rule(" + ruleArgs + ");\n  return " + args[0]->name + ";"; break;
    case Kind::NoReturns: call = "  batch_rule(" + ruleArgs + ");"; break;
  }
  return fillSnippet(kPlumbing, {{"decl", sig.decl({.name = func.name.unambiguousName() + "_generated_plumbing"})},
                                 {"kind", kindName(*kind)},
                                 {"all_unbatched", support::indentLines(allUnbatched, "  ")},
                                 {"unwraps", support::indentLines(u.code, "  ")},
                                 {"call", call}});
}

void emitVmapGeneratedPlumbing(const EmitContext& ctx, const Writers& out) {
  out.cpu.writeText("VmapGeneratedPlumbing.h", [&] {
    std::string body;
    bool first = true;
    for (const model::NativeFunction* f : ctx.ops.functions()) {
      std::optional<std::string> p = vmapPlumbing(*f, ctx.diags);
      if (!p) continue;
      if (!first) body += '\n';
      first = false;
      body += *p;
    }
    return fillSnippet(kFile, {{"body", body}});
  });
}

}  // namespace opgen::dest
