#include "api/Translate.h"

#include <optional>
#include <string>
#include <utility>

namespace opgen::api {

namespace {

using K = CType::Kind;

const CType& tensorCT() {
  static const CType t = CType::base(tensorT);
  return t;
}

NamedCType named(const ArgName& n, CType t) { return NamedCType{n, std::move(t)}; }
CType opt(BaseCppType t) { return CType::optional(CType::base(t)); }
CType base(BaseCppType t) { return CType::base(t); }

// What a binding (or the forward inference from one) provides: the name and type it satisfies and
// how its expression is made from the binding's. Entries point into the caller's bindings, so that
// building the context copies nothing, and derived expressions are only spelled out when used.
struct Entry {
  enum class Derivation { None, OptionalTensorRef, ScalarToOpmath, OptionalScalarRef, ScalarTToOpmath, IOptTensorListRef };

  const ArgName* name;
  const CType* type;
  const std::string* expr;  // the binding's expression
  Derivation how = Derivation::None;

  bool provides(const ArgName& n, const CType& t) const { return *name == n && *type == t; }

  std::string expression() const {
    const std::string& e = *expr;
    switch (how) {
      case Derivation::None:
        return e;
      case Derivation::OptionalTensorRef:
        return "((" + e + ".has_value() && (*" + e + ").defined()) ? at::OptionalTensorRef(*" + e +
               ") : at::OptionalTensorRef())";
      case Derivation::ScalarToOpmath:
        return "(" + e + ").to<opmath_t>()";
      case Derivation::OptionalScalarRef:
        return "(" + e + ".has_value() ? at::OptionalScalarRef(&(" + e + ".value())) : at::OptionalScalarRef())";
      case Derivation::ScalarTToOpmath:
        return "static_cast<opmath_t>(" + e + ")";
      case Derivation::IOptTensorListRef:
        return "at::IOptTensorListRef(" + e + ")";
    }
    return e;
  }
};

// A goal: the name and type an expression must provide.
struct Goal {
  const ArgName& name;
  const CType& type;
};

// The search. Every rule either produces an expression or fails (nullopt); a failing rule ends the
// search for that goal, as torchgen's exceptions do.
class Solver {
 public:
  // `bindings` and `goals` must outlive the solver.
  Solver(const std::vector<Entry>& bindings, const std::vector<const NamedCType*>& goals,
         const TranslateOptions& options)
      : goals_(goals), options_(options) {
    ctx_.reserve(bindings.size() * 2 + 2);
    for (const Entry& b : bindings) addBinding(b);
    if (options.method) {
      static const ArgName self("self");
      static const CType mutRefTensor = CType::mutRef(tensorCT());
      static const CType constRefTensor = CType::constRef(tensorCT());
      static const std::string thisTensor = "const_cast<Tensor&>(*this)";
      ctx_.push_back(Entry{&self, &mutRefTensor, &thisTensor});
      ctx_.push_back(Entry{&self, &constRefTensor, &thisTensor});
    }
  }

  std::optional<std::string> solve(const ArgName& name, const CType& t, bool direct) const {
    if (const Entry* e = lookup(name, t)) return e->expression();
    // const & is satisfied with mutable &, mutable & with a value
    if (t.is(K::ConstRef))
      if (auto r = solve(name, CType::mutRef(t.elem()), direct)) return r;
    if (t.is(K::MutRef))
      if (auto r = solve(name, t.elem(), direct)) return r;
    if (t.is(K::ArrayRef) && t.elem().isBase(longT)) return solve(name, base(intArrayRefT), direct);
    if (direct) return std::nullopt;
    const Goal goal{name, t};
    if (auto r = rules(goal)) return std::move(*r);
    if (options_.allowExpensiveConversions)
      if (auto r = expensiveRules(goal)) return std::move(*r);
    // const-correctness is a bit broken for at::Tensor: allow casting it away
    if (t.is(K::MutRef) && t.elem() == tensorCT()) {
      auto a = directSolve(named(name, CType::constRef(tensorCT())));
      if (!a) return std::nullopt;
      return "const_cast<Tensor&>(" + *a + ")";
    }
    return std::nullopt;
  }

  // Every name and type in scope, in order of first binding, with the expression that provides it.
  std::string describeContext() const {
    std::string s;
    for (size_t i = 0; i < ctx_.size(); ++i) {
      const Entry& entry = ctx_[i];
      bool seen = false;
      for (size_t j = 0; j < i && !seen; ++j) seen = ctx_[j].provides(*entry.name, *entry.type);
      if (seen) continue;
      s += "  " + entry.type->cppType() + " " + entry.name->str() + "; // " +
           lookup(*entry.name, *entry.type)->expression() + "\n";
    }
    return s;
  }

 private:
  using Result = std::optional<std::optional<std::string>>;  // outer nullopt: no rule applies
  using D = Entry::Derivation;
  static Result fail() { return Result(std::in_place, std::nullopt); }
  static Result done(std::optional<std::string> v) { return Result(std::in_place, std::move(v)); }

  // The latest entry that provides `name` and `type` (a later binding shadows an earlier one).
  const Entry* lookup(const ArgName& name, const CType& type) const {
    for (auto it = ctx_.rbegin(); it != ctx_.rend(); ++it)
      if (it->provides(name, type)) return &*it;
    return nullptr;
  }

  // A binding, and what it gives through simple forward inference (looking through constructors).
  void addBinding(const Entry& b) {
    static const CType optionalTensorRef = base(optionalTensorRefT);
    static const CType opmath = base(opmath_t);
    static const CType optionalScalarRef = base(optionalScalarRefT);
    static const CType iOptTensorListRef = base(iOptTensorListRefT);
    ctx_.push_back(b);
    auto derive = [&](const CType& type, D how) { ctx_.push_back(Entry{b.name, &type, b.expr, how}); };
    const CType& t = *b.type;
    if (t.is(K::ConstRef) && t.elem().is(K::Optional) && t.elem().elem().isBase(tensorT))
      derive(optionalTensorRef, D::OptionalTensorRef);
    if (t.is(K::ConstRef) && t.elem().isBase(scalarT)) derive(opmath, D::ScalarToOpmath);
    if (t.is(K::ConstRef) && t.elem().is(K::Optional) && t.elem().elem().isBase(scalarT))
      derive(optionalScalarRef, D::OptionalScalarRef);
    if (t.isBase(scalar_t)) derive(opmath, D::ScalarTToOpmath);
    if (t.is(K::ConstRef) && t.elem().is(K::List) && t.elem().elem().is(K::Optional) &&
        t.elem().elem().elem().isBase(tensorT)) {
      derive(iOptTensorListRef, D::IOptTensorListRef);
    }
  }

  std::optional<std::string> directSolve(const NamedCType& goal) const { return solve(goal.name, goal.type, true); }

  static bool is(const Goal& goal, std::string_view name, const CType& t) {
    return goal.name == name && goal.type == t;
  }
  // Solve from the tensor options, else from the out tensor (fromOut(expr) builds the result).
  template <class FromOptions, class FromOut>
  std::optional<std::string> fromOptionsOrOut(FromOptions fromOptions, FromOut fromOut) const {
    if (auto o = directSolve(named("options", CType::constRef(base(tensorOptionsT))))) return fromOptions(*o);
    auto out = directSolve(named("out", CType::constRef(tensorCT())));
    if (!out) return std::nullopt;
    return fromOut(*out);
  }

  std::string maybeMap(const std::string& a, const std::string& mapped) const {
    return a + ".has_value() ? " + std::string(spelling().makeOptional) + "(" + mapped + ") : " +
           std::string(spelling().nullopt);
  }

  Result rules(const Goal& goal) const {
    const CType& t = goal.type;
    const ArgName& n = goal.name;
    if (is(goal, "memory_format", opt(memoryFormatT))) {
      auto mf = directSolve(named(ArgName::possiblyRedundantMemoryFormat(), opt(memoryFormatT)));
      if (!mf) return fail();
      // No need to join memory_format and options when the target takes options itself.
      const NamedCType optionsCT = named("options", CType::constRef(base(tensorOptionsT)));
      for (const NamedCType* g : goals_)
        if (*g == optionsCT) return done(mf);
      if (auto o = directSolve(optionsCT))
        return done("c10::impl::check_tensor_options_and_extract_memory_format(" + *o + ", " + *mf + ")");
      return done(mf);
    }
    if (is(goal, "options", base(tensorOptionsT))) {
      auto dtype = directSolve(named("dtype", opt(scalarTypeT)));
      if (!dtype) return fail();
      auto pin = directSolve(named("pin_memory", opt(boolT)));
      if (!pin) return fail();
      auto device = directSolve(named("device", opt(deviceT)));
      if (!device) return fail();
      auto layout = directSolve(named("layout", opt(layoutT)));
      if (!layout) return fail();
      return done("TensorOptions().dtype(" + *dtype + ").layout(" + *layout + ").device(" + *device +
                  ").pinned_memory(" + *pin + ")");
    }
    if (is(goal, "dtype", opt(scalarTypeT))) {
      return done(
          fromOptionsOrOut([](const std::string& o) { return "c10::optTypeMetaToScalarType(" + o + ".dtype_opt())"; },
                           [](const std::string& out) { return out + ".scalar_type()"; }));
    }
    if (is(goal, "layout", opt(layoutT))) {
      return done(fromOptionsOrOut([](const std::string& o) { return o + ".layout_opt()"; },
                                   [](const std::string& out) { return out + ".layout()"; }));
    }
    if (is(goal, "device", opt(deviceT))) {
      return done(fromOptionsOrOut([](const std::string& o) { return o + ".device_opt()"; },
                                   [](const std::string& out) { return out + ".device()"; }));
    }
    if (is(goal, "pin_memory", opt(boolT))) {
      // Calling a factory from its out= variant: pin_memory does not matter.
      return done(fromOptionsOrOut([](const std::string& o) { return o + ".pinned_memory_opt()"; },
                                   [&](const std::string&) { return std::string(spelling().nullopt); }));
    }
    // From value types to reference types, and between int and SymInt flavours.
    if (t.isBase(intArrayRefT)) {
      if (auto v = directSolve(named(n, CType::vector(base(longT))))) return done(v);
      auto s = directSolve(named(n, base(symIntArrayRefT)));
      if (!s) return fail();
      return done(std::string(spelling().asIntArrayRefSlow) + "(" + *s + ")");
    }
    if (t.isBase(symIntArrayRefT)) {
      if (auto r = directSolve(named(n, base(intArrayRefT))))
        return done(std::string(spelling().fromIntArrayRefSlow) + "(" + *r + ")");
      return done(directSolve(named(n, CType::vector(base(SymIntT)))));
    }
    if (t.isBase(SymIntT)) return done(directSolve(named(n, base(longT))));
    if (t == opt(SymIntT)) {
      auto a = directSolve(named(n, opt(longT)));
      if (!a) return fail();
      return done(maybeMap(*a, "c10::SymInt(*" + *a + ")"));
    }
    if (t.isBase(longT)) {
      auto s = directSolve(named(n, base(SymIntT)));
      if (!s) return fail();
      return done(*s + ".guard_int(__FILE__, __LINE__)");
    }
    if (t == opt(longT)) {
      auto a = directSolve(named(n, opt(SymIntT)));
      if (!a) return fail();
      return done(maybeMap(*a, *a + "->guard_int(__FILE__, __LINE__)"));
    }
    if (t.isBase(optionalIntArrayRefT)) {
      if (auto v = directSolve(named(n, CType::optional(CType::vector(base(longT)))))) return done(v);
      auto a = directSolve(named(n, base(optionalSymIntArrayRefT)));
      if (!a) return fail();
      return done(maybeMap(*a, std::string(spelling().asIntArrayRefSlow) + "(*" + *a + ")"));
    }
    if (t.isBase(optionalSymIntArrayRefT)) {
      auto a = directSolve(named(n, base(optionalIntArrayRefT)));
      if (!a) return fail();
      return done(maybeMap(*a, std::string(spelling().fromIntArrayRefSlow) + "(*" + *a + ")"));
    }
    if (t.isBase(optionalScalarRefT)) return done(directSolve(named(n, opt(scalarT))));
    if (t.isBase(optionalTensorRefT)) return done(directSolve(named(n, opt(tensorT))));
    return std::nullopt;
  }

  // From reference types to owning ones (for lambda captures).
  Result expensiveRules(const Goal& goal) const {
    const CType& t = goal.type;
    const ArgName& n = goal.name;
    if (t == CType::vector(base(longT))) {
      auto a = directSolve(named(n, base(intArrayRefT)));
      if (!a) return fail();
      return done(*a + ".vec()");
    }
    if (t == CType::vector(base(SymIntT))) {
      auto a = directSolve(named(n, base(symIntArrayRefT)));
      if (!a) return fail();
      return done(*a + ".vec()");
    }
    if (t == tensorCT()) return done(directSolve(named(n, CType::constRef(tensorCT()))));
    if (t == opt(tensorT)) return done(directSolve(named(n, CType::constRef(opt(tensorT)))));
    if (t == CType::optional(CType::vector(base(longT)))) {
      auto a = directSolve(named(n, base(optionalIntArrayRefT)));
      if (!a) return fail();
      return done(maybeMap(*a, *a + "->vec()"));
    }
    if (t == opt(scalarT)) {
      auto a = directSolve(named(n, base(optionalScalarRefT)));
      if (!a) return fail();
      return done(maybeMap(*a, *a));
    }
    return std::nullopt;
  }

  const std::vector<const NamedCType*>& goals_;
  const Spelling& spelling() const { return Spelling::of(options_.libtorch); }
  TranslateOptions options_;
  std::vector<Entry> ctx_;
};

}  // namespace

std::vector<Expr> toExprs(const std::vector<Binding>& bindings) {
  std::vector<Expr> r;
  r.reserve(bindings.size());
  for (const Binding& b : bindings) r.push_back(Expr::of(b));
  return r;
}

std::vector<NamedCType> toGoals(const std::vector<Binding>& bindings) {
  std::vector<NamedCType> r;
  r.reserve(bindings.size());
  for (const Binding& b : bindings) r.push_back(b.nctype);
  return r;
}

namespace {

support::Expected<std::vector<Expr>> solveAll(const std::vector<Entry>& bindings,
                                              const std::vector<const NamedCType*>& goals,
                                              const TranslateOptions& options) {
  Solver solver(bindings, goals, options);
  std::vector<Expr> exprs;
  exprs.reserve(goals.size());
  for (const NamedCType* g : goals) {
    auto e = solver.solve(g->name, g->type, false);
    if (!e) {
      return support::makeError("Failed to synthesize the expression \"" + g->cppType() + " " + g->name.str() +
                                "\".\nWhen I failed, the following bindings were available in the context:\n\n" +
                                solver.describeContext() +
                                "\nThis probably means there is a missing rule in the rules of translate.");
    }
    exprs.push_back(Expr{std::move(*e), *g});
  }
  return exprs;
}

std::vector<Entry> entriesOf(const std::vector<Expr>& bindings) {
  std::vector<Entry> r;
  r.reserve(bindings.size());
  for (const Expr& b : bindings) r.push_back(Entry{&b.type.name, &b.type.type, &b.expr});
  return r;
}

std::vector<Entry> entriesOf(const std::vector<Binding>& bindings) {
  std::vector<Entry> r;
  r.reserve(bindings.size());
  for (const Binding& b : bindings) r.push_back(Entry{&b.nctype.name, &b.nctype.type, &b.name});
  return r;
}

std::vector<const NamedCType*> goalsOf(const std::vector<NamedCType>& goals) {
  std::vector<const NamedCType*> r;
  r.reserve(goals.size());
  for (const NamedCType& g : goals) r.push_back(&g);
  return r;
}

std::vector<const NamedCType*> goalsOf(const std::vector<Binding>& goals) {
  std::vector<const NamedCType*> r;
  r.reserve(goals.size());
  for (const Binding& g : goals) r.push_back(&g.nctype);
  return r;
}

}  // namespace

support::Expected<std::vector<Expr>> translate(const std::vector<Expr>& bindings, const std::vector<NamedCType>& goals,
                                               const TranslateOptions& options) {
  return solveAll(entriesOf(bindings), goalsOf(goals), options);
}

support::Expected<std::vector<Expr>> translate(const std::vector<Binding>& bindings, const std::vector<Binding>& goals,
                                               const TranslateOptions& options) {
  return solveAll(entriesOf(bindings), goalsOf(goals), options);
}

support::Expected<std::vector<Expr>> translate(const std::vector<Expr>& bindings, const std::vector<Binding>& goals,
                                               const TranslateOptions& options) {
  return solveAll(entriesOf(bindings), goalsOf(goals), options);
}

}  // namespace opgen::api
