#include "model/Schema.h"

#include <array>
#include <cctype>

#include "support/Strings.h"

namespace opgen::model {

using support::Error;
using support::makeError;

namespace {

constexpr std::array<std::pair<BaseTy, std::string_view>, 20> kBaseTyNames = {{
    {BaseTy::Generator, "Generator"},
    {BaseTy::ScalarType, "ScalarType"},
    {BaseTy::Tensor, "Tensor"},
    {BaseTy::Int, "int"},
    {BaseTy::DimVector, "DimVector"},
    {BaseTy::Float, "float"},
    {BaseTy::Str, "str"},
    {BaseTy::Bool, "bool"},
    {BaseTy::Layout, "Layout"},
    {BaseTy::Device, "Device"},
    {BaseTy::DeviceIndex, "DeviceIndex"},
    {BaseTy::Scalar, "Scalar"},
    {BaseTy::MemoryFormat, "MemoryFormat"},
    {BaseTy::QScheme, "QScheme"},
    {BaseTy::Storage, "Storage"},
    {BaseTy::Stream, "Stream"},
    {BaseTy::SymInt, "SymInt"},
    {BaseTy::SymBool, "SymBool"},
    {BaseTy::GraphModule, "GraphModule"},
    {BaseTy::Dimname, "Dimname"},
}};

// Python-style rsplit(' ', 1) on a text known to contain a space.
std::pair<std::string_view, std::string_view> rsplitSpace(std::string_view s) {
  size_t pos = s.rfind(' ');
  return {s.substr(0, pos), s.substr(pos + 1)};
}

bool isLower(char c) { return c >= 'a' && c <= 'z'; }

// Splits "Tensor(ANN)SUFFIX" into its annotation and the plain type text "TensorSUFFIX".
// Returns an error for an annotation on an unsupported form; leaves other types alone.
Expected<std::pair<std::string, std::optional<Annotation>>> splitAnnotation(std::string_view typeAndAnnot) {
  using R = std::pair<std::string, std::optional<Annotation>>;
  constexpr std::string_view prefix = "Tensor(";
  size_t close = typeAndAnnot.rfind(')');
  if (!support::startsWith(typeAndAnnot, prefix) || close == std::string_view::npos || close <= prefix.size()) {
    return R{std::string(typeAndAnnot), std::nullopt};
  }
  std::string_view inner = typeAndAnnot.substr(prefix.size(), close - prefix.size());
  std::string_view suffix = typeAndAnnot.substr(close + 1);
  if (suffix != "" && suffix != "?" && suffix != "[]") {
    return makeError("unrecognized alias analysis form with Tensor: '" + std::string(suffix) + "'");
  }
  auto ann = Annotation::parse(inner);
  if (!ann) return ann.error();
  return R{"Tensor" + std::string(suffix), ann.take()};
}

// The type with the annotation after each "Tensor" in it, at the end of `out`.
void appendTypeWithAnnotation(std::string& out, const Type& type, const std::optional<Annotation>& annotation) {
  if (!annotation) return type.appendTo(out);
  // Only Tensor, Tensor? and Tensor[] carry annotations (checked when parsing).
  std::string annotated = "Tensor(";
  annotation->appendTo(annotated);
  annotated += ')';
  out += support::replaceAll(type.str(), "Tensor", annotated);
}

// Does `value` print as `text`? (The parsers' round-trip checks, without a string per check.)
template <class T>
bool printsAs(const T& value, std::string_view text) {
  thread_local std::string printed;
  printed.clear();
  value.appendTo(printed);
  return printed == text;
}

Error withOffset(Error e, int base) {
  e.offset = base + (e.offset < 0 ? 0 : e.offset);
  return e;
}

}  // namespace

std::string_view baseTyName(BaseTy t) {
  for (const auto& [ty, name] : kBaseTyNames)
    if (ty == t) return name;
  return "?";
}

std::optional<BaseTy> parseBaseTy(std::string_view name) {
  for (const auto& [ty, n] : kBaseTyNames)
    if (n == name) return ty;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Type

Type Type::base(BaseTy t) {
  Type r;
  r.kind_ = Kind::Base;
  r.base_ = t;
  return r;
}

Type Type::optional(Type elem) {
  Type r;
  r.kind_ = Kind::Optional;
  r.elem_ = std::make_shared<const Type>(std::move(elem));
  return r;
}

Type Type::list(Type elem, std::optional<int> size) {
  Type r;
  r.kind_ = Kind::List;
  r.elem_ = std::make_shared<const Type>(std::move(elem));
  r.size_ = size;
  return r;
}

Type Type::customClass(std::string className) {
  Type r;
  r.kind_ = Kind::CustomClass;
  r.className_ = std::move(className);
  return r;
}

namespace {

Expected<Type> parseTypeNoCheck(std::string_view t) {
  if (!t.empty() && t.back() == '?' && t.size() > 1) {
    auto elem = Type::parse(t.substr(0, t.size() - 1));
    if (!elem) return elem.error();
    return Type::optional(elem.take());
  }
  if (!t.empty() && t.back() == ']') {
    size_t open = t.rfind('[');
    if (open != std::string_view::npos && open > 0) {
      std::string_view digits = t.substr(open + 1, t.size() - open - 2);
      bool allDigits = true;
      for (char c : digits) allDigits = allDigits && std::isdigit(static_cast<unsigned char>(c));
      if (allDigits) {
        auto elem = Type::parse(t.substr(0, open));
        if (!elem) return elem.error();
        std::optional<int> size;
        if (!digits.empty()) {
          if (digits.size() > 9) return makeError("list size too large in type '" + std::string(t) + "'");
          size = std::stoi(std::string(digits));
        }
        return Type::list(elem.take(), size);
      }
    }
  }
  constexpr std::string_view customPrefix = "__torch__.torch.classes.";
  if (support::startsWith(t, customPrefix) && t.size() > customPrefix.size()) {
    std::string_view cls = t.substr(customPrefix.size());
    bool ok = true;
    for (char c : cls) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
    if (ok) return Type::customClass(std::string(cls));
  }
  if (auto b = parseBaseTy(t)) return Type::base(*b);
  return makeError("unrecognized type '" + std::string(t) + "'");
}

}  // namespace

Expected<Type> Type::parse(std::string_view text) {
  auto r = parseTypeNoCheck(text);
  if (!r) return r;
  if (r->str() != text) return makeError("type '" + std::string(text) + "' does not round-trip (reads as '" + r->str() + "')");
  return r;
}

bool Type::isBaseTyLike(BaseTy t) const {
  switch (kind_) {
    case Kind::Base: return base_ == t;
    case Kind::Optional:
    case Kind::List: return elem_->isBaseTyLike(t);
    case Kind::CustomClass: return false;
  }
  return false;
}

bool Type::isSymIntLike() const {
  switch (kind_) {
    case Kind::Base: return base_ == BaseTy::SymInt;
    case Kind::Optional:
    case Kind::List: return elem_->isSymIntLike();
    case Kind::CustomClass: return false;
  }
  return false;
}

bool Type::isNullable() const {
  switch (kind_) {
    case Kind::Base: return false;
    case Kind::Optional: return true;
    case Kind::List: return elem_->isNullable();
    case Kind::CustomClass: return false;
  }
  return false;
}

const Type* Type::listLike() const {
  switch (kind_) {
    case Kind::List: return this;
    case Kind::Optional: return elem_->listLike();
    default: return nullptr;
  }
}

std::string Type::str() const {
  std::string s;
  appendTo(s);
  return s;
}

void Type::appendTo(std::string& out) const {
  switch (kind_) {
    case Kind::Base: out += baseTyName(base_); return;
    case Kind::Optional: elem_->appendTo(out); out += '?'; return;
    case Kind::List:
      elem_->appendTo(out);
      out += '[';
      if (size_ && *size_) out += std::to_string(*size_);
      out += ']';
      return;
    case Kind::CustomClass: out.append("__torch__.torch.classes.").append(className_); return;
  }
}

bool Type::operator==(const Type& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::Base: return base_ == o.base_;
    case Kind::Optional: return *elem_ == *o.elem_;
    case Kind::List: return size_ == o.size_ && *elem_ == *o.elem_;
    case Kind::CustomClass: return className_ == o.className_;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Annotation: ^([a-z])(\|[a-z])*(!?)( -> (\*|[a-z](\|[a-z])*))?$

Expected<Annotation> Annotation::parse(std::string_view text) {
  auto bad = [&] { return makeError("unrecognized alias annotation '" + std::string(text) + "'"); };
  size_t i = 0;
  if (i >= text.size() || !isLower(text[i])) return bad();
  std::string before(1, text[i++]);
  std::string lastRepeat;  // torchgen keeps only the last "|x" of the repetition
  while (i + 1 < text.size() && text[i] == '|' && isLower(text[i + 1])) {
    lastRepeat = std::string(text.substr(i, 2));
    i += 2;
  }
  before += lastRepeat;
  Annotation r;
  if (i < text.size() && text[i] == '!') {
    r.isWrite = true;
    ++i;
  }
  std::string after;
  if (i < text.size()) {
    if (text.substr(i, 4) != " -> ") return bad();
    i += 4;
    std::string_view rest = text.substr(i);
    if (rest == "*") {
      after = "*";
    } else {
      size_t j = 0;
      if (j >= rest.size() || !isLower(rest[j])) return bad();
      ++j;
      while (j + 1 < rest.size() && rest[j] == '|' && isLower(rest[j + 1])) j += 2;
      if (j != rest.size()) return bad();
      after = std::string(rest);
    }
  }
  for (auto part : support::split(before, "|")) r.aliasSet.emplace_back(part);
  if (!after.empty())
    for (auto part : support::split(after, "|")) r.aliasSetAfter.emplace_back(part);
  if (r.isWrite && r.aliasSet.size() > 1)
    return makeError("alias set larger than 1 is not mutable, got '" + std::string(text) + "' instead");
  if (before.size() > 1 && r.aliasSetAfter.size() > 1)
    return makeError("before alias set and after alias set cannot be larger than 1 at the same time, got '" +
                     std::string(text) + "' instead");
  if (r.str() != text) return makeError("alias annotation '" + std::string(text) + "' does not round-trip (reads as '" + r.str() + "')");
  return r;
}

std::string Annotation::str() const {
  std::string s;
  appendTo(s);
  return s;
}

void Annotation::appendTo(std::string& out) const {
  auto appendSet = [&out](const std::vector<std::string>& set) {
    for (size_t i = 0; i < set.size(); ++i) {
      if (i > 0) out += '|';
      out += set[i];
    }
  };
  appendSet(aliasSet);
  if (isWrite) out += '!';
  if (!aliasSetAfter.empty()) {
    out += " -> ";
    appendSet(aliasSetAfter);
  }
}

// ---------------------------------------------------------------------------------------------
// Argument and Return

Expected<Argument> Argument::parse(std::string_view text) {
  if (!support::contains(text, " ")) return makeError("illegal argument '" + std::string(text) + "'");
  std::string_view typeAndAnnot, name;
  std::optional<std::string> def;
  size_t eq = text.find('=');
  if (eq != std::string_view::npos) {
    if (text.find('=', eq + 1) != std::string_view::npos)
      return makeError("illegal argument with default value: '" + std::string(text) + "'");
    std::string_view head = text.substr(0, eq);
    if (!support::contains(head, " ")) return makeError("illegal argument '" + std::string(text) + "'");
    std::tie(typeAndAnnot, name) = rsplitSpace(head);
    def = std::string(text.substr(eq + 1));
  } else {
    std::tie(typeAndAnnot, name) = rsplitSpace(text);
  }
  auto split = splitAnnotation(typeAndAnnot);
  if (!split) return split.error();
  auto type = Type::parse(split->first);
  if (!type) return type.error();
  Argument r{std::string(name), type.take(), std::move(def), std::move(split->second)};
  if (r.annotation && r.type.str() != "Tensor" && r.type.str() != "Tensor?" && r.type.str() != "Tensor[]")
    return makeError("annotation on non-Tensor type: '" + r.type.str() + "'");
  if (!printsAs(r, text)) return makeError("argument '" + std::string(text) + "' does not round-trip (reads as '" + r.str() + "')");
  return r;
}

std::string Argument::str() const {
  std::string s;
  appendTo(s);
  return s;
}

void Argument::appendTo(std::string& out) const {
  appendTypeWithAnnotation(out, type, annotation);
  out += ' ';
  out += name;
  if (defaultValue && !defaultValue->empty()) {
    out += '=';
    out += *defaultValue;
  }
}

Expected<Return> Return::parse(std::string_view text) {
  std::string_view typeAndAnnot = text;
  std::optional<std::string> name;
  if (support::contains(text, " ")) {
    auto [t, n] = rsplitSpace(text);
    typeAndAnnot = t;
    name = std::string(n);
  }
  auto split = splitAnnotation(typeAndAnnot);
  if (!split) return split.error();
  auto type = Type::parse(split->first);
  if (!type) return type.error();
  Return r{std::move(name), type.take(), std::move(split->second)};
  if (!printsAs(r, text)) return makeError("return '" + std::string(text) + "' does not round-trip (reads as '" + r.str() + "')");
  return r;
}

std::string Return::str() const {
  std::string s;
  appendTo(s);
  return s;
}

void Return::appendTo(std::string& out) const {
  appendTypeWithAnnotation(out, type, annotation);
  if (name) {
    out += ' ';
    out += *name;
  }
}

// ---------------------------------------------------------------------------------------------
// Arguments

namespace {

bool isTensorOptionsArg(const Argument& a, std::string_view name, BaseTy ty) {
  return a.name == name && (a.type == Type::base(ty) || a.type == Type::optional(Type::base(ty)));
}

Argument stripAnnotation(const Argument& a, bool stripDefault) {
  return Argument{a.name, a.type, stripDefault ? std::nullopt : a.defaultValue, std::nullopt};
}

// The flat list of `parts`, allocated once at its final size: signatures ask for these lists tens
// of thousands of times in a run.
std::vector<const Argument*> flatten(const Arguments& args, Arguments::Parts parts) {
  size_t n = 0;
  args.anyOf(
      [&n](const Argument&) {
        ++n;
        return false;
      },
      parts);
  std::vector<const Argument*> r;
  r.reserve(n);
  args.anyOf(
      [&r](const Argument& a) {
        r.push_back(&a);
        return false;
      },
      parts);
  return r;
}

}  // namespace

Expected<Arguments> Arguments::parse(std::string_view text) {
  enum class Acc { Positional, KwargOnly, Out };
  std::vector<Argument> positional, kwargOnly, out;
  Acc acc = Acc::Positional;
  int offset = 0;
  for (std::string_view piece : support::split(text, ", ")) {
    int here = offset;
    offset += static_cast<int>(piece.size()) + 2;
    if (piece.empty()) continue;
    if (piece == "*") {
      if (acc != Acc::Positional) return makeError("invalid syntax: kwarg-only specifier * can only occur once", here);
      acc = Acc::KwargOnly;
      continue;
    }
    auto arg = Argument::parse(piece);
    if (!arg) return withOffset(arg.error(), here);
    if (arg->isWrite()) {
      if (acc == Acc::KwargOnly) acc = Acc::Out;
    } else if (acc == Acc::Out) {
      return makeError("non-mutable argument '" + arg->name + "' cannot follow mutable out arguments", here);
    }
    (acc == Acc::Positional ? positional : acc == Acc::KwargOnly ? kwargOnly : out).push_back(arg.take());
  }

  Arguments r;
  size_t selfIx = positional.size();
  for (size_t i = 0; i < positional.size(); ++i)
    if (positional[i].name == "self") {
      selfIx = i;
      break;
    }
  if (selfIx < positional.size()) {
    r.preSelfPositional.assign(positional.begin(), positional.begin() + selfIx);
    r.selfArg = positional[selfIx];
    r.postSelfPositional.assign(positional.begin() + selfIx + 1, positional.end());
  } else {
    r.postSelfPositional = std::move(positional);
  }

  std::vector<Argument>* kwAcc = &r.preTensorOptionsKwargOnly;
  for (size_t i = 0; i < kwargOnly.size();) {
    if (i + 4 <= kwargOnly.size() && isTensorOptionsArg(kwargOnly[i], "dtype", BaseTy::ScalarType) &&
        isTensorOptionsArg(kwargOnly[i + 1], "layout", BaseTy::Layout) &&
        isTensorOptionsArg(kwargOnly[i + 2], "device", BaseTy::Device) &&
        isTensorOptionsArg(kwargOnly[i + 3], "pin_memory", BaseTy::Bool)) {
      if (kwAcc != &r.preTensorOptionsKwargOnly) return makeError("tensor options arguments can only appear once");
      r.tensorOptions = TensorOptionsArguments{kwargOnly[i], kwargOnly[i + 1], kwargOnly[i + 2], kwargOnly[i + 3]};
      i += 4;
      kwAcc = &r.postTensorOptionsKwargOnly;
      continue;
    }
    kwAcc->push_back(kwargOnly[i]);
    ++i;
  }
  r.out = std::move(out);

  for (const auto& a : r.preSelfPositional)
    if (a.isWrite()) return makeError("mutable pre_self_positional arguments are not currently supported in the schema");
  return r;
}

std::vector<const Argument*> Arguments::flatPositional() const {
  return flatten(*this, {.kwargOnly = false, .out = false});
}
std::vector<const Argument*> Arguments::flatKwargOnly() const {
  return flatten(*this, {.positional = false, .out = false});
}
std::vector<const Argument*> Arguments::flatNonOut() const { return flatten(*this, {.out = false}); }
std::vector<const Argument*> Arguments::flatAll() const { return flatten(*this, {}); }

std::vector<const Argument*> Arguments::postSelfPositionalMutable() const {
  std::vector<const Argument*> r;
  for (const auto& a : postSelfPositional)
    if (a.isWrite()) r.push_back(&a);
  return r;
}

std::vector<std::string> Arguments::mutableArgNames() const {
  std::vector<std::string> r;
  for (const Argument* a : flatAll())
    if (a->isWrite()) r.push_back(a->name);
  return r;
}

bool Arguments::hasTensorArg() const {
  return anyOf([](const Argument& a) { return a.type.isTensorLike(); }, {.out = false});
}

bool Arguments::hasSymIntArg() const {
  return anyOf([](const Argument& a) { return a.type.isSymIntLike(); }, {.out = false});
}

bool Arguments::hasGeneratorArg() const {
  return anyOf([](const Argument& a) { return a.type.isGeneratorLike(); }, {.out = false});
}

Arguments Arguments::signature(bool stripDefault) const {
  auto strip = [&](const std::vector<Argument>& args) {
    std::vector<Argument> r;
    r.reserve(args.size());
    for (const auto& a : args) r.push_back(stripAnnotation(a, stripDefault));
    return r;
  };
  Arguments r;
  r.preSelfPositional = strip(preSelfPositional);
  if (selfArg) r.selfArg = stripAnnotation(*selfArg, stripDefault);
  r.postSelfPositional = strip(postSelfPositional);
  // Tensor options are dropped so that factory functions pair up with their out= variants; the
  // keyword-only arguments after them join the ones before.
  r.preTensorOptionsKwargOnly = strip(preTensorOptionsKwargOnly);
  for (auto& a : strip(postTensorOptionsKwargOnly)) r.preTensorOptionsKwargOnly.push_back(std::move(a));
  return r;
}

Arguments Arguments::withoutSelfAnnotation() const {
  Arguments r = *this;
  if (r.selfArg) r.selfArg->annotation.reset();
  return r;
}

Arguments Arguments::withOutArgs(std::vector<Argument> outs) const {
  Arguments r = *this;
  r.out = std::move(outs);
  return r;
}

std::string Arguments::str() const {
  std::string s;
  appendTo(s);
  return s;
}

void Arguments::appendTo(std::string& s) const {
  // The positional arguments, then "*" and the keyword-only and out ones when there are any.
  bool first = true;
  auto separate = [&] {
    if (!first) s += ", ";
    first = false;
  };
  auto print = [&](const Argument& a) {
    separate();
    a.appendTo(s);
    return false;
  };
  anyOf(print, {.kwargOnly = false, .out = false});
  const Parts keywords{.positional = false};
  if (!anyOf([](const Argument&) { return true; }, keywords)) return;
  separate();
  s += '*';
  anyOf(print, keywords);
}

// ---------------------------------------------------------------------------------------------
// Names

namespace {
constexpr std::array<std::string_view, 11> kAugmentedAssignmentNames = {
    "add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or"};
}

Expected<BaseOperatorName> BaseOperatorName::parse(std::string_view op) {
  if (op.empty()) return makeError("operator name cannot be empty");
  if (support::endsWith(op, "_out"))
    return makeError("_out suffix is reserved and not permitted for operator names; did you mean to specify an out overload name instead?");
  BaseOperatorName r;
  std::string_view name = op;
  size_t nsEnd = op.rfind("::");
  if (nsEnd != std::string_view::npos) {
    r.ns = std::string(op.substr(0, nsEnd));
    name = op.substr(nsEnd + 2);
  }
  bool dunder = name.size() > 4 && support::startsWith(name, "__") && support::endsWith(name, "__") &&
                name.substr(2, name.size() - 4).find('_') == std::string_view::npos;
  if (dunder) {
    r.dunderMethod = true;
    std::string_view base = name.substr(2, name.size() - 4);
    bool augmented = false;
    for (auto n : kAugmentedAssignmentNames) augmented = augmented || (base.size() == n.size() + 1 && base[0] == 'i' && base.substr(1) == n);
    if (augmented) {
      r.inplace = true;
      base = base.substr(1);
    } else if (base[0] == 'i') {
      return makeError("unexpected dunder method starting with 'i': " + std::string(op));
    }
    r.base = std::string(base);
  } else {
    r.base = std::string(name);
    if (!r.base.empty() && r.base.back() == '_') {
      r.inplace = true;
      r.base.pop_back();
    }
  }
  constexpr std::string_view functionalSuffix = "_functional";
  if (support::endsWith(r.base, functionalSuffix)) {
    r.functionalOverload = true;
    r.base.resize(r.base.size() - functionalSuffix.size());
    if (r.dunderMethod || r.inplace)
      return makeError("functional overload cannot be a dunder method or inplace: " + std::string(op));
  }
  if (r.str() != op) return makeError("operator name '" + std::string(op) + "' does not round-trip (reads as '" + r.str() + "')");
  return r;
}

std::string BaseOperatorName::str() const {
  std::string s;
  s.reserve(ns.size() + base.size() + 16);  // one allocation: names are built very often
  appendTo(s);
  return s;
}

void BaseOperatorName::appendTo(std::string& s) const {
  if (!ns.empty()) s.append(ns).append("::");
  if (dunderMethod) {
    s.append(inplace ? "__i" : "__").append(base).append("__");
  } else {
    s.append(base).append(inplace ? "_" : functionalOverload ? "_functional" : "");
  }
}

Expected<OperatorName> OperatorName::parse(std::string_view text) {
  std::string_view name = text, overload;
  size_t dot = text.find('.');
  if (dot != std::string_view::npos) {
    name = text.substr(0, dot);
    overload = text.substr(dot + 1);
  }
  auto base = BaseOperatorName::parse(name);
  if (!base) return base.error();
  OperatorName r{base.take(), std::string(overload)};
  if (r.str() != text) return makeError("operator name '" + std::string(text) + "' does not round-trip (reads as '" + r.str() + "')");
  return r;
}

std::string OperatorName::str() const { return joined('.'); }

void OperatorName::appendTo(std::string& out) const { appendJoined(out, '.'); }

void OperatorName::appendJoined(std::string& out, char separator) const {
  name.appendTo(out);
  if (!overloadName.empty()) out.append(1, separator).append(overloadName);
}

std::string OperatorName::unambiguousName() const { return joined('_'); }

std::string OperatorName::joined(char separator) const {
  std::string s;
  s.reserve(name.ns.size() + name.base.size() + overloadName.size() + 17);
  appendJoined(s, separator);
  return s;
}

OperatorName OperatorName::removeInplace() const {
  return OperatorName{BaseOperatorName{name.base, false, name.dunderMethod, false, ""}, overloadName};
}

OperatorName OperatorName::withOverload(std::string overload) const {
  return OperatorName{BaseOperatorName{name.base, false, name.dunderMethod, false, ""}, std::move(overload)};
}

std::string_view schemaKindName(SchemaKind k) {
  switch (k) {
    case SchemaKind::Functional: return "functional";
    case SchemaKind::Inplace: return "inplace";
    case SchemaKind::Out: return "out";
    case SchemaKind::Mutable: return "mutable";
    case SchemaKind::Scratch: return "scratch";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// FunctionSchema

namespace {

// Returns "( ... )" split: text = NAME "(" ARGS ") -> " RETURNS, with ARGS ending at the last ") -> ".
struct SchemaParts {
  std::string_view name, args, returns;
  int argsOffset = 0, returnsOffset = 0;
};

std::optional<SchemaParts> splitSchema(std::string_view text) {
  if (text.find('\n') != std::string_view::npos) return std::nullopt;
  size_t open = text.find('(');
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  size_t arrow = text.rfind(") -> ");
  if (arrow == std::string_view::npos || arrow < open) return std::nullopt;
  SchemaParts p;
  p.name = text.substr(0, open);
  p.args = text.substr(open + 1, arrow - open - 1);
  p.returns = text.substr(arrow + 5);
  p.argsOffset = static_cast<int>(open + 1);
  p.returnsOffset = static_cast<int>(arrow + 5);
  return p;
}

Expected<std::vector<Return>> parseReturns(std::string_view decl) {
  std::vector<Return> r;
  if (decl == "()") return r;
  if (!decl.empty() && decl.front() == '(' && decl.back() == ')') decl = decl.substr(1, decl.size() - 2);
  for (auto piece : support::split(decl, ", ")) {
    auto ret = Return::parse(piece);
    if (!ret) return ret.error();
    r.push_back(ret.take());
  }
  return r;
}

}  // namespace

Expected<FunctionSchema> FunctionSchema::parse(std::string_view text) {
  auto parts = splitSchema(text);
  if (!parts) return makeError("invalid function schema: expected 'NAME(ARGUMENTS) -> RETURNS'", 0);
  auto name = OperatorName::parse(parts->name);
  if (!name) return withOffset(name.error(), 0);
  auto args = Arguments::parse(parts->args);
  if (!args) return withOffset(args.error(), parts->argsOffset);
  auto rets = parseReturns(parts->returns);
  if (!rets) return withOffset(rets.error(), parts->returnsOffset);
  FunctionSchema r{name.take(), args.take(), rets.take()};
  if (!printsAs(r, text)) return makeError("schema does not round-trip: reads back as '" + r.str() + "'", 0);
  if (auto problem = r.validate()) return makeError(*problem, 0);
  return r;
}

std::optional<std::string> FunctionSchema::validate() const {
  for (size_t i = 0; i < arguments.out.size() && i < returns.size(); ++i)
    if (arguments.out[i].annotation != returns[i].annotation)
      return "out arguments must have matching return Tensor; furthermore, the ith-argument needs to correspond to the ith return";
  for (const Argument* a : arguments.postSelfPositionalMutable())
    for (const auto& r : returns)
      if (a->annotation == r.annotation)
        return "if you have a schema with mutable positional args, we expect them to not be returned";
  std::vector<const Argument*> outAndSelf;
  for (const auto& a : arguments.out) outAndSelf.push_back(&a);
  for (const Argument* a : arguments.flatPositional())
    if (a->name == "self") outAndSelf.push_back(a);
  size_t mutableReturns = 0;
  for (const auto& r : returns) {
    if (!r.isWrite()) continue;
    ++mutableReturns;
    bool aliased = false;
    for (const Argument* a : outAndSelf) aliased = aliased || a->annotation == r.annotation;
    if (!aliased)
      return "all mutable returns must be aliased either to a keyword argument, or to \"self\"; did you forget to mark an out argument as keyword-only?";
  }
  if (mutableReturns != 0 && mutableReturns != returns.size())
    return "native functions must have either only mutable returns, or only immutable returns";
  if (!arguments.out.empty()) {
    bool allPlainTensors = true;
    for (const auto& a : arguments.out) allPlainTensors = allPlainTensors && a.type == Type::base(BaseTy::Tensor);
    if (!allPlainTensors) {
      if (!returns.empty())
        return "out= ops that accept tensor lists as out arguments are expected to have no return type (since you can't do method chaining on them)";
    } else {
      size_t nonScratch = 0;
      for (const auto& a : arguments.out) nonScratch += support::startsWith(a.name, "_scratch_") ? 0 : 1;
      if (nonScratch != returns.size())
        return "must return as many arguments as there are out arguments, or no return at all; got " +
               std::to_string(nonScratch) + " non-scratch out args and " + std::to_string(returns.size()) + " returns";
    }
  }
  if (name.name.inplace) {
    if (!arguments.out.empty()) return "a schema cannot be both out= and inplace";
    if (!arguments.selfArg || !arguments.selfArg->isWrite())
      return "inplace op " + name.str() + " must have a self argument with a mutable annotation";
    if (arguments.selfArg->type == Type::base(BaseTy::Tensor)) {
      if (returns.size() != 1 || returns[0].annotation != arguments.selfArg->annotation)
        return "inplace op " + name.str() + " with Tensor self must return self";
    } else if (!returns.empty()) {
      return "inplace op " + name.str() + " with non-Tensor self must have no returns";
    }
  }
  if (arguments.tensorOptions && kind() != SchemaKind::Functional)
    return "found an operator that is not functional or out variant, but has tensor options arguments; tensor options arguments are only allowed for factory functions";
  if (isFunctionalFn() && kind() != SchemaKind::Functional)
    return "found an operator that is not functional, but its overload contains the string 'functional'; this is a special keyword in the codegen, please use a different overload name";
  return std::nullopt;
}

std::string FunctionSchema::str() const {
  std::string s;
  appendTo(s);
  return s;
}

void FunctionSchema::appendTo(std::string& out) const {
  name.appendTo(out);
  out += '(';
  arguments.appendTo(out);
  out += ") -> ";
  if (returns.size() == 1) return returns[0].appendTo(out);
  out += '(';
  for (size_t i = 0; i < returns.size(); ++i) {
    if (i > 0) out += ", ";
    returns[i].appendTo(out);
  }
  out += ')';
}

SchemaKind FunctionSchema::kind() const {
  bool isScratch = false;
  for (const auto& a : arguments.out) isScratch = isScratch || support::startsWith(a.name, "_scratch_");
  if (name.name.inplace) return SchemaKind::Inplace;
  if (isScratch) return SchemaKind::Scratch;
  if (!arguments.out.empty()) return SchemaKind::Out;
  for (const auto& a : arguments.postSelfPositional)
    if (a.isWrite()) return SchemaKind::Mutable;
  return SchemaKind::Functional;
}

bool FunctionSchema::isFunctionalFn() const { return support::contains(name.overloadName, "functional"); }

bool FunctionSchema::isMutable() const {
  for (const Argument* a : arguments.flatAll())
    if (a->isWrite()) return true;
  return false;
}

bool FunctionSchema::modifiesArguments() const {
  SchemaKind k = kind();
  return k == SchemaKind::Inplace || k == SchemaKind::Out || k == SchemaKind::Mutable;
}

std::vector<const Argument*> FunctionSchema::schemaOrderArguments() const { return arguments.flatAll(); }

std::vector<std::optional<std::string>> FunctionSchema::aliasedReturnNames() const {
  std::vector<std::optional<std::string>> outs;
  auto all = arguments.flatAll();
  for (const auto& r : returns) {
    std::optional<std::string> found;
    for (const Argument* a : all)
      if (a->annotation && a->annotation == r.annotation) {
        found = a->name;
        break;
      }
    outs.push_back(found);
  }
  return outs;
}

bool FunctionSchema::viewSignatureRenames() const {
  return support::endsWith(name.name.base, "_copy") || support::endsWith(name.name.base, "_scatter");
}

FunctionSchema FunctionSchema::signature(SignatureOptions options) const {
  std::string baseName = name.name.base;
  if (options.stripViewCopyName && viewSignatureRenames()) {
    if (support::endsWith(baseName, "_copy"))
      baseName = support::replaceAll(baseName, "_copy", "");
    else if (support::endsWith(baseName, "_scatter"))
      baseName = support::replaceAll(baseName, "scatter", "inverse");
  }
  std::vector<Return> rets;
  for (const auto& r : returns) rets.push_back(Return{options.keepReturnNames ? r.name : std::nullopt, r.type, std::nullopt});
  // Mutable inputs that are not returned become returns, after the original ones.
  auto addMutable = [&](const Argument& a) {
    if (!a.isWrite()) return;
    for (const auto& r : returns)
      if (a.annotation == r.annotation) return;
    rets.push_back(Return{options.keepReturnNames ? std::optional<std::string>(a.name + "_out") : std::nullopt, a.type, std::nullopt});
  };
  if (arguments.selfArg) addMutable(*arguments.selfArg);
  for (const auto& a : arguments.out) addMutable(a);
  for (const auto& a : arguments.postSelfPositional) addMutable(a);

  Arguments args = arguments.signature(options.stripDefault);
  // torchgen's note [bernoulli.p schema]: the in-place overload has a default the others lack.
  if (name.str() == "bernoulli.p") {
    auto patched = Arguments::parse(support::replaceAll(args.str(), "float p", "float p=0.5"));
    if (patched) args = patched.take();
  }
  return FunctionSchema{OperatorName{BaseOperatorName{baseName, false, name.name.dunderMethod, false, ""}, ""},
                        std::move(args), std::move(rets)};
}

FunctionSchema FunctionSchema::withName(OperatorName n) const { return FunctionSchema{std::move(n), arguments, returns}; }

std::string cppName(const FunctionSchema& func, bool faithfulNameForOutOverloads, bool symintOverload) {
  std::string n = func.name.name.str();
  if (symintOverload) n += "_symint";
  if (func.isOutFn()) n += faithfulNameForOutOverloads ? "_outf" : "_out";
  return n;
}

}  // namespace opgen::model
