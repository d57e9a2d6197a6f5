#include "dest/aten/VmapGeneratedPlumbing.h"

#include <array>

#include "api/Signatures.h"
#include "dest/common/FunctionContext.h"
#include "support/CodeText.h"

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
//   $all_unbatched$  kAllUnbatched
//   $unwraps$        the batched arguments' unwrapping, "\n"-separated
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

// The snippets below are indented for the function body (torchgen indents them by two spaces).

// Nothing batched at this level: the operator itself.
//   $conditions$  "!isBatchedAtLevel(NAME, cur_level)" per tensor-like argument, " && "-separated
//   $op$          the operator's at::_ops:: name
//   $args$        its arguments
constexpr std::string_view kAllUnbatched = R"cc(  if ($conditions$) {
    return at::_ops::$op$::call($args$);
  })cc";

// A tensor argument's value and batch dimension (`$name$` the argument).
constexpr std::string_view kUnwrapTensor =
    "  auto [$name$_value, $name$_bdim] = unwrapTensorAtLevel($name$, cur_level);";
constexpr std::string_view kUnwrapOptionalTensor = R"cc(  std::optional<Tensor> $name$_value;
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
  std::string code;  // the unwrapping statements
  std::string args;  // the batch rule's arguments, ", "-separated
};

// torchgen's gen_unwraps: tensors first, then optional tensors; each becomes (value, bdim).
Unwraps unwraps(const std::vector<const model::Argument*>& args) {
  Unwraps r;
  for (const model::Argument* a : args) {
    if (!isTensor(a->type)) continue;
    if (!r.code.empty()) r.code += '\n';
    support::appendSnippet(r.code, kUnwrapTensor, {{"name", a->name}});
  }
  for (const model::Argument* a : args) {
    if (!isOptionalTensor(a->type)) continue;
    if (!r.code.empty()) r.code += '\n';
    support::appendSnippet(r.code, kUnwrapOptionalTensor, {{"name", a->name}});
  }
  for (const model::Argument* a : args) {
    if (!r.args.empty()) r.args += ", ";
    r.args += a->name;
    if (isTensor(a->type) || isOptionalTensor(a->type)) r.args.append("_value, ").append(a->name).append("_bdim");
  }
  return r;
}

// torchgen's gen_returns: the return statement, appended to `out`; batched results are (value,
// bdim) pairs in the rule's tuple.
void appendWrappedReturns(std::string& out, const std::vector<model::Return>& returns) {
  const bool tuple = returns.size() != 1;
  out += tuple ? "return std::make_tuple(" : "return ";
  size_t idx = 0;
  for (size_t i = 0; i < returns.size(); ++i) {
    const model::Type& type = returns[i].type;
    if (i != 0) out += ", ";
    if (isTensor(type) || isTensorList(type)) {
      out.append(isTensor(type) ? "makeBatched(std::get<" : "makeBatchedVector(std::get<")
          .append(std::to_string(idx))
          .append(">(results), std::get<")
          .append(std::to_string(idx + 1))
          .append(">(results), cur_level)");
      idx += 2;
    } else {
      out.append("std::get<").append(std::to_string(idx)).append(">(results)");
      idx += 1;
    }
  }
  out += tuple ? ");" : ";";
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

bool appendVmapPlumbing(std::string& out, const model::NativeFunction& f) {
  const std::optional<Kind> kind = plumbingKind(f);
  if (!kind) return false;
  const model::FunctionSchema& func = f.func;
  const auto sig = api::DispatcherSignature::fromSchema(func, api::Options::of(f));
  const auto args = func.arguments.flatAll();
  const std::string op = func.name.unambiguousName();

  std::string conditions;
  for (const model::Argument* a : args) {
    if (!a->type.isTensorLike()) continue;
    if (!conditions.empty()) conditions += " && ";
    conditions.append("!isBatchedAtLevel(").append(a->name).append(", cur_level)");
  }
  // torchgen translates the signature's arguments into themselves: the bindings' names.
  const std::string allUnbatched =
      support::fillSnippet(kAllUnbatched, {{"conditions", conditions}, {"op", op}, {"args", api::joinNames(sig.arguments())}});
  const Unwraps u = unwraps(args);
  std::string call;
  switch (*kind) {
    case Kind::Functional:
      call = "  auto results = batch_rule(" + u.args + ");\n  ";
      appendWrappedReturns(call, func.returns);
      break;
    case Kind::Inplace: call = "  batch_rule(" + u.args + ");\n  return " + args[0]->name + ";"; break;
    case Kind::NoReturns: call = "  batch_rule(" + u.args + ");"; break;
  }
  support::appendSnippet(out, kPlumbing, {{"decl", sig.decl({.name = op + "_generated_plumbing"})},
                                 {"kind", kindName(*kind)},
                                 {"all_unbatched", allUnbatched},
                                 {"unwraps", u.code},
                                 {"call", call}});
  return true;
}

void emitVmapGeneratedPlumbing(const EmitContext& ctx, const Writers& out) {
  out.cpu.writeTextIn("VmapGeneratedPlumbing.h", [&](std::string text) {
    // The plumbings are appended where kFile's $body$ is (the file is megabytes: filling kFile
    // with them would copy them once more).
    constexpr std::string_view kBody = "$body$";
    const std::size_t at = kFile.find(kBody);
    text.assign(kFile.substr(0, at));
    const std::size_t bodyStart = text.size();
    for (const model::NativeFunction* f : ctx.ops.functions()) {
      const std::size_t size = text.size();
      if (size != bodyStart) text += '\n';
      if (!appendVmapPlumbing(text, *f)) text.resize(size);
    }
    text.append(kFile.substr(at + kBody.size()));
    return text;
  });
}

}  // namespace opgen::dest
