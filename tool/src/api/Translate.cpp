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

// The search. Every rule either produces an expression or fails (nullopt); a failing rule ends the
// search for that goal, as torchgen's exceptions do.
class Solver {
 public:
  Solver(const std::vector<Expr>& bindings, const std::vector<NamedCType>& goals, const TranslateOptions& options)
      : goals_(goals), options_(options) {
    ctx_.reserve(bindings.size() * 2 + 2);
    for (const Expr& b : bindings) addBinding(b);
    if (options.method) {
      set(named("self", CType::mutRef(tensorCT())), "const_cast<Tensor&>(*this)");
      set(named("self", CType::constRef(tensorCT())), "const_cast<Tensor&>(*this)");
    }
  }

  std::optional<std::string> solve(const NamedCType& goal, bool direct) const {
    if (const std::string* e = lookup(goal)) return *e;
    const CType& t = goal.type;
    // const & is satisfied with mutable &, mutable & with a value
    if (t.is(K::ConstRef))
      if (auto r = solve(named(goal.name, CType::mutRef(t.elem())), direct)) return r;
    if (t.is(K::MutRef))
      if (auto r = solve(named(goal.name, t.elem()), direct)) return r;
    if (t.is(K::ArrayRef) && t.elem().isBase(longT)) return solve(named(goal.name, base(intArrayRefT)), direct);
    if (direct) return std::nullopt;
    if (auto r = rules(goal)) return std::move(*r);
    if (options_.allowExpensiveConversions)
      if (auto r = expensiveRules(goal)) return std::move(*r);
    // const-correctness is a bit broken for at::Tensor: allow casting it away
    if (t.is(K::MutRef) && t.elem() == tensorCT()) {
      auto a = directSolve(named(goal.name, CType::constRef(tensorCT())));
      if (!a) return std::nullopt;
      return "const_cast<Tensor&>(" + *a + ")";
    }
    return std::nullopt;
  }

  std::string describeContext() const {
    std::string s;
    for (const auto& [t, e] : ctx_) s += "  " + t.cppType() + " " + t.name.str() + "; // " + e + "\n";
    return s;
  }

 private:
  using Result = std::optional<std::optional<std::string>>;  // outer nullopt: no rule applies
  static Result fail() { return Result(std::in_place, std::nullopt); }
  static Result done(std::optional<std::string> v) { return Result(std::in_place, std::move(v)); }

  void set(NamedCType t, std::string e) {
    for (auto& [k, v] : ctx_)
      if (k == t) {
        v = std::move(e);
        return;
      }
    ctx_.emplace_back(std::move(t), std::move(e));
  }

  const std::string* lookup(const NamedCType& t) const {
    for (const auto& [k, v] : ctx_)
      if (k == t) return &v;
    return nullptr;
  }

  // A binding, and what it gives through simple forward inference (looking through constructors).
  void addBinding(const Expr& b) {
    set(b.type, b.expr);
    const CType& t = b.type.type;
    const ArgName& n = b.type.name;
    const std::string& e = b.expr;
    if (t.is(K::ConstRef) && t.elem().is(K::Optional) && t.elem().elem().isBase(tensorT)) {
      set(named(n, base(optionalTensorRefT)), "((" + e + ".has_value() && (*" + e +
                                                  ").defined()) ? at::OptionalTensorRef(*" + e +
                                                  ") : at::OptionalTensorRef())");
    }
    if (t.is(K::ConstRef) && t.elem().isBase(scalarT)) set(named(n, base(opmath_t)), "(" + e + ").to<opmath_t>()");
    if (t.is(K::ConstRef) && t.elem().is(K::Optional) && t.elem().elem().isBase(scalarT)) {
      set(named(n, base(optionalScalarRefT)),
          "(" + e + ".has_value() ? at::OptionalScalarRef(&(" + e + ".value())) : at::OptionalScalarRef())");
    }
    if (t.isBase(scalar_t)) set(named(n, base(opmath_t)), "static_cast<opmath_t>(" + e + ")");
    if (t.is(K::ConstRef) && t.elem().is(K::List) && t.elem().elem().is(K::Optional) &&
        t.elem().elem().elem().isBase(tensorT)) {
      set(named(n, base(iOptTensorListRefT)), "at::IOptTensorListRef(" + e + ")");
    }
  }

  std::optional<std::string> directSolve(const NamedCType& goal) const { return solve(goal, true); }

  static bool is(const NamedCType& goal, std::string_view name, const CType& t) {
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

  static std::string maybeMap(const std::string& a, const std::string& mapped) {
    return a + ".has_value() ? ::std::make_optional(" + mapped + ") : ::std::nullopt";
  }

  Result rules(const NamedCType& goal) const {
    const CType& t = goal.type;
    const ArgName& n = goal.name;
    if (is(goal, "memory_format", opt(memoryFormatT))) {
      auto mf = directSolve(named(ArgName::possiblyRedundantMemoryFormat(), opt(memoryFormatT)));
      if (!mf) return fail();
      // No need to join memory_format and options when the target takes options itself.
      const NamedCType optionsCT = named("options", CType::constRef(base(tensorOptionsT)));
      for (const auto& g : goals_)
        if (g == optionsCT) return done(mf);
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
                                   [](const std::string&) { return std::string("::std::nullopt"); }));
    }
    // From value types to reference types, and between int and SymInt flavours.
    if (t.isBase(intArrayRefT)) {
      if (auto v = directSolve(named(n, CType::vector(base(longT))))) return done(v);
      auto s = directSolve(named(n, base(symIntArrayRefT)));
      if (!s) return fail();
      return done("C10_AS_INTARRAYREF_SLOW(" + *s + ")");
    }
    if (t.isBase(symIntArrayRefT)) {
      if (auto r = directSolve(named(n, base(intArrayRefT)))) return done("c10::fromIntArrayRefSlow(" + *r + ")");
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
      return done(maybeMap(*a, "C10_AS_INTARRAYREF_SLOW(*" + *a + ")"));
    }
    if (t.isBase(optionalSymIntArrayRefT)) {
      auto a = directSolve(named(n, base(optionalIntArrayRefT)));
      if (!a) return fail();
      return done(maybeMap(*a, "c10::fromIntArrayRefSlow(*" + *a + ")"));
    }
    if (t.isBase(optionalScalarRefT)) return done(directSolve(named(n, opt(scalarT))));
    if (t.isBase(optionalTensorRefT)) return done(directSolve(named(n, opt(tensorT))));
    return std::nullopt;
  }

  // From reference types to owning ones (for lambda captures).
  Result expensiveRules(const NamedCType& goal) const {
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

  const std::vector<NamedCType>& goals_;
  TranslateOptions options_;
  std::vector<std::pair<NamedCType, std::string>> ctx_;
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

support::Expected<std::vector<Expr>> translate(const std::vector<Expr>& bindings, const std::vector<NamedCType>& goals,
                                               const TranslateOptions& options) {
  Solver solver(bindings, goals, options);
  std::vector<Expr> exprs;
  exprs.reserve(goals.size());
  for (const NamedCType& g : goals) {
    auto e = solver.solve(g, false);
    if (!e) {
      return support::makeError("Failed to synthesize the expression \"" + g.cppType() + " " + g.name.str() +
                                "\".\nWhen I failed, the following bindings were available in the context:\n\n" +
                                solver.describeContext() +
                                "\nThis probably means there is a missing rule in the rules of translate.");
    }
    exprs.push_back(Expr{std::move(*e), g});
  }
  return exprs;
}

support::Expected<std::vector<Expr>> translate(const std::vector<Binding>& bindings, const std::vector<Binding>& goals,
                                               const TranslateOptions& options) {
  return translate(toExprs(bindings), toGoals(goals), options);
}

support::Expected<std::vector<Expr>> translate(const std::vector<Expr>& bindings, const std::vector<Binding>& goals,
                                               const TranslateOptions& options) {
  return translate(bindings, toGoals(goals), options);
}

}  // namespace opgen::api
