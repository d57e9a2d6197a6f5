#include "api/Types.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace opgen::api {

// ---------------------------------------------------------------------------------------------
// BaseCppType and the mappings

std::string BaseCppType::str() const {
  if (ns.empty()) return std::string(name);
  std::string s;
  s.reserve(ns.size() + 2 + name.size());
  s.append(ns).append("::").append(name);
  return s;
}

std::optional<BaseCppType> baseTypeToCpp(model::BaseTy t) {
  using model::BaseTy;
  switch (t) {
    case BaseTy::Int:
      return longT;
    case BaseTy::Float:
      return doubleT;
    case BaseTy::Bool:
      return boolT;
    case BaseTy::Str:
      return stringT;
    case BaseTy::Generator:
      return generatorT;
    case BaseTy::ScalarType:
      return scalarTypeT;
    case BaseTy::Tensor:
      return tensorT;
    case BaseTy::DimVector:
      return dimVectorT;
    case BaseTy::Layout:
      return layoutT;
    case BaseTy::Device:
      return deviceT;
    case BaseTy::DeviceIndex:
      return deviceIndexT;
    case BaseTy::Scalar:
      return scalarT;
    case BaseTy::MemoryFormat:
      return memoryFormatT;
    case BaseTy::QScheme:
      return qschemeT;
    case BaseTy::Storage:
      return storageT;
    case BaseTy::Stream:
      return streamT;
    case BaseTy::SymInt:
      return SymIntT;
    case BaseTy::SymBool:
      return SymBoolT;
    case BaseTy::Dimname:
      return dimnameT;
    case BaseTy::GraphModule:
      return std::nullopt;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// CType

CType CType::base(BaseCppType t) { return CType(Kind::Base, t, 0, nullptr, nullptr); }

CType CType::wrap(Kind k, CType elem, int size) {
  return CType(k, BaseCppType{}, size, std::make_shared<const CType>(std::move(elem)), nullptr);
}

CType CType::constRef(CType elem) { return wrap(Kind::ConstRef, std::move(elem)); }
CType CType::mutRef(CType elem) { return wrap(Kind::MutRef, std::move(elem)); }
CType CType::optional(CType elem) { return wrap(Kind::Optional, std::move(elem)); }
CType CType::list(CType elem) { return wrap(Kind::List, std::move(elem)); }
CType CType::arrayRef(CType elem) { return wrap(Kind::ArrayRef, std::move(elem)); }
CType CType::vector(CType elem) { return wrap(Kind::Vector, std::move(elem)); }
CType CType::array(CType elem, int size) { return wrap(Kind::Array, std::move(elem), size); }
CType CType::vectorized(CType elem) { return wrap(Kind::Vectorized, std::move(elem)); }
CType CType::tuple(std::vector<CType> elems) {
  return CType(Kind::Tuple, BaseCppType{}, 0, nullptr, std::make_shared<const std::vector<CType>>(std::move(elems)));
}

LibtorchFacts LibtorchFacts::ofVersion(int major, int minor) {
  // Each row: the first release with the fact (or the last one with it, for namedTensors). Verified
  // against the tests' runtimes (Debian's 1.13.1, 2.6.0 and 2.14.1, whose headers the probes read)
  // and, for the releases between, taken from PyTorch's history: c10::optional became std::optional's
  // alias in November 2023 (2.2), reverse view functions and ViewFunc came in December 2023 and
  // February 2024 (2.3), Node moved to intrusive pointers and named tensors were dropped in April and
  // May 2026, after 2.11 (pip's 2.11.0 still has DimnameList in MetaBase). ViewMeta's
  // has_symbolic_inputs (in 2.6.0, not in 1.13.1) is taken as 2.3's, ViewMeta as a class (in 2.14.1,
  // not in 2.6.0) as 2.9's: the CMake functions read both from the found headers.
  const auto since = [&](int maj, int min) { return major > maj || (major == maj && minor >= min); };
  LibtorchFacts f;
  f.stdOptional = since(2, 2);
  f.slowIntArrayRefNames = since(2, 0);
  f.intrusiveNodes = since(2, 12);
  f.viewFuncs = since(2, 3);
  f.reverseViewFuncs = since(2, 3);
  f.namedTensors = !since(2, 12);
  f.diagnosticMacros = since(2, 0);
  f.metaAutogradFallthrough = since(2, 0);
  f.deviceIndexAndSymBool = since(2, 0);
  f.symBoolSchemaType = since(2, 14);
  f.setPythonModule = since(2, 0);
  f.fakeTensors = since(2, 0);
  f.stableAbi = since(2, 10);
  f.stableInplaceOutTags = false;  // (no release seen with them: 2.14.1's headers have not)
  f.stableErrorCheck = since(2, 13);  // (not in 2.10.0's headers, in 2.14.1's: taken as 2.13's, its shims')
  f.viewMetaClasses = since(2, 9);
  f.viewMetaSymbolicInputs = since(2, 3);
  return f;
}

const std::vector<std::string>& libtorchTagsOf(int major, int minor) {
  static const std::vector<std::string> kTags113 = {"data_dependent_output", "dynamic_output_shape", "generated",
                                                    "inplace_view", "nondeterministic_bitwise",
                                                    "nondeterministic_seeded", "view_copy"};
  static const std::vector<std::string> kTags26 = {
      "core", "data_dependent_output", "dynamic_output_shape", "flexible_layout", "generated", "inplace_view",
      "maybe_aliasing_or_mutating", "needs_fixed_stride_order", "nondeterministic_bitwise",
      "nondeterministic_seeded", "pointwise", "pt2_compliant_tag", "view_copy"};
  static const std::vector<std::string> kTags214 = {
      "core", "cudagraph_unsafe", "data_dependent_output", "dynamic_output_shape", "flexible_layout", "generated",
      "inplace", "inplace_view", "maybe_aliasing_or_mutating", "needs_contiguous_strides", "needs_exact_strides",
      "needs_fixed_stride_order", "nondeterministic_bitwise", "nondeterministic_seeded", "out", "out_variant",
      "pointwise", "pt2_compliant_tag", "reduction", "view_copy"};
  if (major > 2 || (major == 2 && minor >= 14)) return kTags214;
  return major >= 2 ? kTags26 : kTags113;
}

const std::vector<std::pair<std::string_view, bool LibtorchFacts::*>>& LibtorchFacts::names() {
  static const std::vector<std::pair<std::string_view, bool LibtorchFacts::*>> kNames = {
      {"std-optional", &LibtorchFacts::stdOptional},
      {"slow-intarrayref-names", &LibtorchFacts::slowIntArrayRefNames},
      {"intrusive-nodes", &LibtorchFacts::intrusiveNodes},
      {"view-funcs", &LibtorchFacts::viewFuncs},
      {"reverse-view-funcs", &LibtorchFacts::reverseViewFuncs},
      {"named-tensors", &LibtorchFacts::namedTensors},
      {"diagnostic-macros", &LibtorchFacts::diagnosticMacros},
      {"meta-autograd-fallthrough", &LibtorchFacts::metaAutogradFallthrough},
      {"device-index-and-symbool", &LibtorchFacts::deviceIndexAndSymBool},
      {"symbool-schema-type", &LibtorchFacts::symBoolSchemaType},
      {"set-python-module", &LibtorchFacts::setPythonModule},
      {"fake-tensors", &LibtorchFacts::fakeTensors},
      {"stable-abi", &LibtorchFacts::stableAbi},
      {"stable-inplace-out-tags", &LibtorchFacts::stableInplaceOutTags},
      {"stable-error-check", &LibtorchFacts::stableErrorCheck},
      {"view-meta-classes", &LibtorchFacts::viewMetaClasses},
      {"view-meta-symbolic-inputs", &LibtorchFacts::viewMetaSymbolicInputs},
  };
  return kNames;
}

std::string LibtorchChoice::setVersion(std::string_view version) {
  const std::string v(version);
  char* end = nullptr;
  const long maj = std::strtol(v.c_str(), &end, 10);
  if (end == v.c_str() || (*end != '\0' && *end != '.') || maj < 1) return "needs a version like 1.13 or 2, not '" + v + "'";
  long min = 99;  // no minor: the major's last release
  if (*end == '.') {
    const char* start = end + 1;
    min = std::strtol(start, &end, 10);
    if (end == start || min < 0) return "needs a version like 1.13 or 2, not '" + v + "'";
  }
  major = static_cast<int>(maj);
  minor = static_cast<int>(min);
  return "";
}

std::string LibtorchChoice::addFacts(std::string_view list) {
  std::size_t pos = 0;
  while (pos <= list.size() && !list.empty()) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string_view item = list.substr(pos, comma - pos);
    const std::size_t eq = item.find('=');
    const std::string_view name = item.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    if (value != "0" && value != "1") return "needs NAME=0 or NAME=1, not '" + std::string(item) + "'";
    bool LibtorchFacts::*member = nullptr;
    for (const auto& [n, m] : LibtorchFacts::names())
      if (n == name) member = m;
    if (!member) {
      std::string known;
      for (const auto& [n, m] : LibtorchFacts::names()) known += (known.empty() ? "" : ", ") + std::string(n);
      return "no fact named '" + std::string(name) + "' (known: " + known + ")";
    }
    given.emplace_back(member, value == "1");
    pos = comma + 1;
  }
  return "";
}

std::string LibtorchChoice::setTags(std::string_view list) {
  std::vector<std::string> names;
  for (std::string_view rest = list; !rest.empty();) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    const std::string_view name = rest.substr(0, comma);
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
      return "needs tag names, comma-separated, not '" + std::string(list) + "'";
    names.emplace_back(name);
    rest = rest.substr(std::min(comma + 1, rest.size()));
  }
  std::sort(names.begin(), names.end());
  givenTags = std::move(names);
  return "";
}

LibtorchFacts LibtorchChoice::facts() const {
  LibtorchFacts f = LibtorchFacts::ofVersion(major, minor);
  for (const auto& [member, value] : given) f.*member = value;
  return f;
}

const std::vector<std::string>& LibtorchChoice::tags() const {
  return givenTags ? *givenTags : libtorchTagsOf(major, minor);
}

const Spelling& Spelling::of(const LibtorchFacts& libtorch) {
  // One spelling per combination of the three facts it depends on (index: optional, IntArrayRef
  // names, nodes; one bit each).
  static constexpr std::string_view kOptional[2][3] = {{"c10::optional", "c10::nullopt", "c10::make_optional"},
                                                       {"::std::optional", "::std::nullopt", "::std::make_optional"}};
  static constexpr std::string_view kIntArrayRef[2][2] = {{"c10::fromIntArrayRef", "c10::asIntArrayRefSlow"},
                                                          {"c10::fromIntArrayRefSlow", "C10_AS_INTARRAYREF_SLOW"}};
  static constexpr std::string_view kNodes[2][3] = {
      {"std::shared_ptr", "std::shared_ptr<$node$>(new $node$(), torch::autograd::deleteNode)", "shared_from_this()"},
      {"c10::intrusive_ptr", "c10::make_intrusive<$node$>()", "getptr()"}};
  static const std::vector<Spelling> kAll = [] {
    std::vector<Spelling> all;
    for (int i = 0; i < 8; ++i) {
      const int o = i & 1, a = (i >> 1) & 1, n = (i >> 2) & 1;
      all.push_back(Spelling{kOptional[o][0], kOptional[o][1], kOptional[o][2], kIntArrayRef[a][0], kIntArrayRef[a][1],
                             kNodes[n][0], kNodes[n][1], kNodes[n][2]});
    }
    return all;
  }();
  return kAll[(libtorch.stdOptional ? 1 : 0) | (libtorch.slowIntArrayRefNames ? 2 : 0) | (libtorch.intrusiveNodes ? 4 : 0)];
}

void CType::appendCppType(std::string& out, bool stripRef, const Spelling& spelling) const {
  auto nested = [&](std::string_view open, std::string_view close) {
    out.append(open);
    elem().appendCppType(out, false, spelling);  // strip_ref is not passed down
    out.append(close);
  };
  switch (kind_) {
    case Kind::Base:
      if (!base_.ns.empty()) out.append(base_.ns).append("::");
      out.append(base_.name);
      return;
    case Kind::ConstRef:
      if (stripRef) return elem().appendCppType(out, true, spelling);
      return nested("const ", " &");
    case Kind::MutRef:
      if (stripRef) return elem().appendCppType(out, true, spelling);
      elem().appendCppType(out, false, spelling);
      out.append(" &");
      return;
    case Kind::Optional:
      out.append(spelling.optional);
      return nested("<", ">");
    case Kind::List:
      return nested("c10::List<", ">");
    case Kind::ArrayRef:
      return nested("at::ArrayRef<", ">");
    case Kind::Vector:
      return nested("::std::vector<", ">");
    case Kind::Vectorized:
      return nested("at::vec::Vectorized<", ">");
    case Kind::Array:
      out.append("::std::array<");
      elem().appendCppType(out, false, spelling);
      out.append(",").append(std::to_string(size_)).append(">");
      return;
    case Kind::Tuple:
      out.append("::std::tuple<");
      for (size_t i = 0; i < elems_->size(); ++i) {
        if (i) out.append(",");
        (*elems_)[i].appendCppType(out, false, spelling);
      }
      out.append(">");
      return;
  }
}

std::string CType::cppType(bool stripRef, const Spelling& spelling) const {
  std::string s;
  appendCppType(s, stripRef, spelling);
  return s;
}

CType CType::removeConstRef() const {
  switch (kind_) {
    case Kind::Base:
    case Kind::Vectorized:
      return *this;
    case Kind::ConstRef:
    case Kind::MutRef:
      return elem().removeConstRef();
    case Kind::Tuple: {
      std::vector<CType> es;
      es.reserve(elems_->size());
      for (const CType& e : *elems_) es.push_back(e.removeConstRef());
      return tuple(std::move(es));
    }
    default:
      return wrap(kind_, elem().removeConstRef(), size_);
  }
}

bool CType::operator==(const CType& o) const {
  if (kind_ != o.kind_) return false;
  if (kind_ == Kind::Base) return base_ == o.base_;
  if (size_ != o.size_) return false;
  if (kind_ == Kind::Tuple) return elems_ == o.elems_ || *elems_ == *o.elems_;
  return elem_ == o.elem_ || *elem_ == *o.elem_;
}

// ---------------------------------------------------------------------------------------------
// Names, bindings, expressions

std::string ArgName::str() const {
  if (special == Special::PossiblyRedundantMemoryFormat) return "SpecialArgName.possibly_redundant_memory_format";
  return name;
}

const model::Argument* Binding::schemaArgument() const {
  auto p = std::get_if<const model::Argument*>(&argument);
  return p ? *p : nullptr;
}

const model::TensorOptionsArguments* Binding::tensorOptions() const {
  auto p = std::get_if<const model::TensorOptionsArguments*>(&argument);
  return p ? *p : nullptr;
}

std::string Binding::decl(bool funcPtrCast, const Spelling& spelling) const {
  if (funcPtrCast) return type(spelling);
  std::string s;
  appendDecl(s, spelling);
  return s;
}

std::string Binding::defn(const Spelling& spelling) const {
  std::string s;
  appendDefn(s, spelling);
  return s;
}

void Binding::appendDecl(std::string& out, const Spelling& spelling) const {
  appendDefn(out, spelling);
  if (defaultValue) out.append("=").append(*defaultValue);
}

void Binding::appendDefn(std::string& out, const Spelling& spelling) const {
  nctype.type.appendCppType(out, false, spelling);
  out.append(" ").append(name);
}

Binding Binding::noDefault() const {
  Binding b = *this;
  b.defaultValue.reset();
  return b;
}

Binding Binding::withName(std::string newName) const {
  Binding b = *this;
  b.name = std::move(newName);
  return b;
}

namespace {
template <class F>
std::string joinWith(const std::vector<Binding>& bindings, F f) {
  std::string s;
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (i) s.append(", ");
    s.append(f(bindings[i]));
  }
  return s;
}
}  // namespace

std::string joinDecls(const std::vector<Binding>& bs, const Spelling& spelling) {
  return joinWith(bs, [&](const Binding& b) { return b.decl(false, spelling); });
}
std::string joinDefns(const std::vector<Binding>& bs, const Spelling& spelling) {
  return joinWith(bs, [&](const Binding& b) { return b.defn(spelling); });
}
std::string joinTypes(const std::vector<Binding>& bs, const Spelling& spelling) {
  return joinWith(bs, [&](const Binding& b) { return b.type(spelling); });
}
std::string joinNames(const std::vector<Binding>& bs) {
  return joinWith(bs, [](const Binding& b) { return b.name; });
}

std::string joinExprs(const std::vector<Expr>& exprs) {
  std::string s;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i) s.append(", ");
    s.append(exprs[i].expr);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Argument items

namespace {
void appendPlain(std::vector<ArgumentItem>& out, const std::vector<model::Argument>& args) {
  for (const auto& a : args) out.push_back(ArgumentItem{ArgumentItem::Kind::Plain, &a, nullptr});
}
}  // namespace

std::vector<ArgumentItem> positionalItems(const model::Arguments& args) {
  std::vector<ArgumentItem> r;
  r.reserve(args.preSelfPositional.size() + 1 + args.postSelfPositional.size());
  appendPlain(r, args.preSelfPositional);
  if (args.selfArg) r.push_back(ArgumentItem{ArgumentItem::Kind::Self, &*args.selfArg, nullptr});
  appendPlain(r, args.postSelfPositional);
  return r;
}

std::vector<ArgumentItem> kwargOnlyItems(const model::Arguments& args) {
  std::vector<ArgumentItem> r;
  appendPlain(r, args.preTensorOptionsKwargOnly);
  if (args.tensorOptions) r.push_back(ArgumentItem{ArgumentItem::Kind::TensorOptions, nullptr, &*args.tensorOptions});
  appendPlain(r, args.postTensorOptionsKwargOnly);
  return r;
}

std::vector<ArgumentItem> nonOutItems(const model::Arguments& args) {
  std::vector<ArgumentItem> r = positionalItems(args);
  for (const auto& i : kwargOnlyItems(args)) r.push_back(i);
  return r;
}

std::vector<ArgumentItem> outItems(const model::Arguments& args) {
  std::vector<ArgumentItem> r;
  appendPlain(r, args.out);
  return r;
}

}  // namespace opgen::api
