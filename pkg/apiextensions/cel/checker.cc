// The type checker: resolves identifiers, fields and overloads as cel-go's checker does and
// reports its errors ("undeclared reference to 'x' (in container '')", "undefined field 'x'",
// "found no matching overload for '_+_' applied to '(int, string)'"). Object types come from
// the schema; dyn (x-kubernetes-int-or-string, dyn()) defers checks to run time.

#include <algorithm>
#include <map>
#include <tuple>

#include "pkg/apiextensions/cel/functions.h"
#include "pkg/apiextensions/cel/program.h"

namespace apiextensions::cel {

namespace {

using Bindings = std::map<std::string, TypePtr>;

bool IsDynLike(const TypePtr& t) {
  return t->kind == TypeKind::kDyn || t->kind == TypeKind::kError;
}

bool NullAssignable(TypeKind k) {
  return k == TypeKind::kNull || k == TypeKind::kObject || k == TypeKind::kOptional ||
         k == TypeKind::kDuration || k == TypeKind::kTimestamp || k == TypeKind::kDyn;
}

bool Unify(const TypePtr& p, const TypePtr& a, Bindings& b) {
  if (p->kind == TypeKind::kParam) {
    auto it = b.find(p->name);
    if (it == b.end()) {
      b[p->name] = a;
      return true;
    }
    TypePtr bound = it->second;
    if (Unify(bound, a, b)) {
      if (bound->kind == TypeKind::kNull && a->kind != TypeKind::kNull) b[p->name] = a;
      return true;
    }
    if (Unify(a, bound, b)) {
      b[p->name] = a;
      return true;
    }
    return false;
  }
  if (IsDynLike(a) || IsDynLike(p) || a->kind == TypeKind::kParam) return true;
  if (a->kind == TypeKind::kNull) return NullAssignable(p->kind);
  if (p->kind == TypeKind::kNull) return NullAssignable(a->kind);
  if (p->kind != a->kind) return false;
  switch (p->kind) {
    case TypeKind::kList:
    case TypeKind::kOptional:
      return Unify(p->elem, a->elem, b);
    case TypeKind::kMap:
      return Unify(p->key, a->key, b) && Unify(p->elem, a->elem, b);
    case TypeKind::kType:
      if (!p->elem || !a->elem) return true;
      return Unify(p->elem, a->elem, b);
    default:
      return true;
  }
}

TypePtr Subst(const TypePtr& t, const Bindings& b) {
  switch (t->kind) {
    case TypeKind::kParam: {
      auto it = b.find(t->name);
      return it == b.end() ? DynType() : it->second;
    }
    case TypeKind::kList:
      return ListOf(Subst(t->elem, b));
    case TypeKind::kOptional:
      return OptionalOf(Subst(t->elem, b));
    case TypeKind::kMap:
      return MapOf(Subst(t->key, b), Subst(t->elem, b));
    case TypeKind::kType:
      return t->elem ? TypeOf(Subst(t->elem, b)) : t;
    default:
      return t;
  }
}

bool SameType(const TypePtr& a, const TypePtr& b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case TypeKind::kList:
    case TypeKind::kOptional:
      return SameType(a->elem, b->elem);
    case TypeKind::kMap:
      return SameType(a->key, b->key) && SameType(a->elem, b->elem);
    case TypeKind::kType:
      if (!a->elem || !b->elem) return !a->elem && !b->elem;
      return SameType(a->elem, b->elem);
    case TypeKind::kObject:
      return a.get() == b.get() || a->fields.size() == b->fields.size();
    default:
      return true;
  }
}

TypePtr TypeIdent(std::string_view name) {
  if (name == "int") return TypeOf(IntType());
  if (name == "uint") return TypeOf(UintType());
  if (name == "double") return TypeOf(DoubleType());
  if (name == "bool") return TypeOf(BoolType());
  if (name == "string") return TypeOf(StringType());
  if (name == "bytes") return TypeOf(BytesType());
  if (name == "list") return TypeOf(ListOf(DynType()));
  if (name == "map") return TypeOf(MapOf(DynType(), DynType()));
  if (name == "null_type") return TypeOf(NullType());
  if (name == "type") return TypeOf(TypeOf(DynType()));
  return nullptr;
}

TypePtr ConstType(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return NullType();
    case Kind::kBool:
      return BoolType();
    case Kind::kInt:
      return IntType();
    case Kind::kUint:
      return UintType();
    case Kind::kDouble:
      return DoubleType();
    case Kind::kString:
      return StringType();
    case Kind::kBytes:
      return BytesType();
    default:
      return DynType();
  }
}

class Checker {
 public:
  Checker(const std::vector<Declaration>& vars, std::vector<ParseError>& errors)
      : vars_(vars), errors_(errors) {}

  bool uses_old_self = false;

  TypePtr Check(Expr& e) {
    TypePtr t = CheckInner(e);
    e.type = t;
    return t;
  }

 private:
  void Error(int pos, std::string msg) { errors_.push_back({pos, std::move(msg)}); }

  const TypePtr* Lookup(const std::string& name) {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    for (const auto& d : vars_) {
      if (d.name == name) {
        if (name == "oldSelf") uses_old_self = true;
        return &d.type;
      }
    }
    return nullptr;
  }

  bool IsVariable(const std::string& name) const {
    for (const auto& l : locals_) {
      if (l.first == name) return true;
    }
    for (const auto& d : vars_) {
      if (d.name == name) return true;
    }
    return false;
  }

  TypePtr CheckInner(Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        return ConstType(e.constant);
      case ExprKind::kIdent: {
        if (const TypePtr* t = Lookup(e.name)) return *t;
        if (TypePtr t = TypeIdent(e.name)) return t;
        Error(e.pos, "undeclared reference to '" + e.name + "' (in container '')");
        return ErrorType();
      }
      case ExprKind::kSelect:
        return CheckSelect(e);
      case ExprKind::kCall:
        return CheckCall(e);
      case ExprKind::kList: {
        TypePtr elem;
        for (size_t i = 0; i < e.args.size(); ++i) {
          auto& a = e.args[i];
          TypePtr t = Check(*a);
          if (t->kind == TypeKind::kError) continue;
          if (i < e.optional_entries.size() && e.optional_entries[i]) {
            if (t->kind == TypeKind::kOptional) {
              t = t->elem;
            } else if (!IsDynLike(t)) {
              Error(a->pos, "expected type 'optional_type' but found '" + FormatType(t) + "'");
              continue;
            }
          }
          if (!elem || IsDynLike(elem)) {
            if (!elem || !IsDynLike(t)) elem = t;
            continue;
          }
          Bindings b;
          if (!Unify(elem, t, b) && !Unify(t, elem, b)) {
            // Literals in format() arguments are exempt, as in cel-go's strings extension.
            if (format_args_ > 0) {
              elem = DynType();
              continue;
            }
            Error(a->pos,
                  "expected type '" + FormatType(elem) + "' but found '" + FormatType(t) + "'");
          } else if (elem->kind == TypeKind::kNull) {
            elem = t;
          }
        }
        return ListOf(elem ? elem : DynType());
      }
      case ExprKind::kMap: {
        TypePtr key, val;
        for (size_t k = 0; k + 1 < e.args.size(); k += 2) {
          TypePtr kt = Check(*e.args[k]);
          TypePtr vt = Check(*e.args[k + 1]);
          if (k / 2 < e.optional_entries.size() && e.optional_entries[k / 2] &&
              vt->kind != TypeKind::kError) {
            if (vt->kind == TypeKind::kOptional) {
              vt = vt->elem;
            } else if (!IsDynLike(vt)) {
              Error(e.args[k + 1]->pos,
                    "expected type 'optional_type' but found '" + FormatType(vt) + "'");
              continue;
            }
          }
          if (kt->kind != TypeKind::kError && !IsDynLike(kt) && kt->kind != TypeKind::kString &&
              kt->kind != TypeKind::kInt && kt->kind != TypeKind::kUint &&
              kt->kind != TypeKind::kBool) {
            Error(e.args[k]->pos, "unsupported map key type: " + FormatType(kt));
          }
          for (auto [slot, t, pos] :
               {std::tuple{&key, kt, e.args[k]->pos}, std::tuple{&val, vt, e.args[k + 1]->pos}}) {
            if (t->kind == TypeKind::kError) continue;
            if (!*slot || IsDynLike(*slot)) {
              if (!*slot || !IsDynLike(t)) *slot = t;
              continue;
            }
            Bindings b;
            if (!Unify(*slot, t, b) && !Unify(t, *slot, b)) {
              if (format_args_ > 0) {
                *slot = DynType();
                continue;
              }
              Error(pos,
                    "expected type '" + FormatType(*slot) + "' but found '" + FormatType(t) + "'");
            }
          }
        }
        return MapOf(key ? key : DynType(), val ? val : DynType());
      }
      case ExprKind::kComprehension:
        return CheckComprehension(e);
    }
    return DynType();
  }

  TypePtr FieldOf(Expr& e, const TypePtr& t) {
    switch (t->kind) {
      case TypeKind::kError:
        return ErrorType();
      case TypeKind::kDyn:
        return DynType();
      case TypeKind::kObject: {
        auto it = t->fields.find(e.name);
        if (it == t->fields.end()) {
          Error(e.pos, "undefined field '" + e.name + "'");
          return ErrorType();
        }
        return it->second.type;
      }
      case TypeKind::kMap:
        if (IsDynLike(t->key) || t->key->kind == TypeKind::kString) return t->elem;
        [[fallthrough]];
      default:
        Error(e.pos, "type '" + FormatType(t) + "' does not support field selection");
        return ErrorType();
    }
  }

  TypePtr CheckSelect(Expr& e) {
    TypePtr t = Check(*e.target);
    if (e.optional) {
      TypePtr inner = t->kind == TypeKind::kOptional ? t->elem : t;
      TypePtr f = FieldOf(e, inner);
      if (f->kind == TypeKind::kError) return f;
      return OptionalOf(f);
    }
    TypePtr f = FieldOf(e, t);
    if (f->kind == TypeKind::kError) return f;
    return e.test_only ? BoolType() : f;
  }

  TypePtr CheckCall(Expr& e) {
    // ns.fn(...) for the qualified functions.
    if (e.target && e.target->kind == ExprKind::kIdent && !IsVariable(e.target->name) &&
        IsQualifiedFunction(e.target->name + "." + e.name)) {
      e.name = e.target->name + "." + e.name;
      e.target.reset();
      e.resolved_function = true;
    }
    std::vector<TypePtr> arg_types;
    bool member = e.target != nullptr;
    if (member) arg_types.push_back(Check(*e.target));
    if (e.name == "format") ++format_args_;
    for (auto& a : e.args) arg_types.push_back(Check(*a));
    if (e.name == "format") --format_args_;

    const std::vector<Overload>* overloads = FindFunction(e.name);
    if (overloads == nullptr) {
      Error(e.pos, "undeclared reference to '" + e.name + "' (in container '')");
      return ErrorType();
    }
    for (const auto& t : arg_types) {
      if (t->kind == TypeKind::kError) return ErrorType();
    }
    std::vector<TypePtr> results;
    for (const auto& o : *overloads) {
      if (o.member != member || o.params.size() != arg_types.size()) continue;
      Bindings b;
      bool ok = true;
      for (size_t k = 0; ok && k < arg_types.size(); ++k) ok = Unify(o.params[k], arg_types[k], b);
      if (ok && !o.a_allowed.empty()) {
        auto it = b.find("A");
        if (it != b.end() && !IsDynLike(it->second)) {
          ok = std::find(o.a_allowed.begin(), o.a_allowed.end(), it->second->kind) !=
               o.a_allowed.end();
        }
      }
      if (!ok) continue;
      e.overloads.push_back(&o);
      results.push_back(Subst(o.result, b));
    }
    if (results.empty()) {
      std::string sig;
      size_t first = 0;
      if (member) {
        sig = FormatType(arg_types[0]) + ".";
        first = 1;
      }
      sig += "(";
      for (size_t k = first; k < arg_types.size(); ++k) {
        if (k > first) sig += ", ";
        sig += FormatType(arg_types[k]);
      }
      sig += ")";
      Error(e.pos, "found no matching overload for '" + e.name + "' applied to '" + sig + "'");
      return ErrorType();
    }
    TypePtr r = results[0];
    for (size_t k = 1; k < results.size(); ++k) {
      if (!SameType(r, results[k])) return DynType();
    }
    return r;
  }

  TypePtr CheckComprehension(Expr& e) {
    TypePtr range = Check(*e.target);
    if (range->kind == TypeKind::kError) return ErrorType();
    TypePtr v1, v2;
    bool two = !e.iter_var2.empty();
    if (range->kind == TypeKind::kList) {
      v1 = two ? IntType() : range->elem;
      v2 = range->elem;
    } else if (range->kind == TypeKind::kMap) {
      v1 = range->key;
      v2 = range->elem;
    } else if (IsDynLike(range)) {
      v1 = DynType();
      v2 = DynType();
    } else {
      Error(e.target->pos,
            "expression of type '" + FormatType(range) +
                "' cannot be range of a comprehension (must be list, map, or dynamic)");
      return ErrorType();
    }
    locals_.emplace_back(e.iter_var, v1);
    if (two) locals_.emplace_back(e.iter_var2, v2);
    std::vector<TypePtr> arg_types;
    for (auto& a : e.args) arg_types.push_back(Check(*a));
    locals_.pop_back();
    if (two) locals_.pop_back();
    for (const auto& t : arg_types) {
      if (t->kind == TypeKind::kError) return ErrorType();
    }
    auto require_bool = [&](size_t k, const char* op) {
      const TypePtr& t = arg_types[k];
      if (t->kind != TypeKind::kBool && !IsDynLike(t)) {
        Error(e.args[k]->pos, std::string("found no matching overload for '") + op +
                                  "' applied to '(bool, " + FormatType(t) + ")'");
        return false;
      }
      return true;
    };
    switch (e.macro) {
      case Macro::kAll:
      case Macro::kAll2:
        if (!require_bool(0, "_&&_")) return ErrorType();
        return BoolType();
      case Macro::kExists:
      case Macro::kExists2:
        if (!require_bool(0, "_||_")) return ErrorType();
        return BoolType();
      case Macro::kExistsOne:
      case Macro::kExistsOne2:
        if (!require_bool(0, "_?_:_")) return ErrorType();
        return BoolType();
      case Macro::kMap:
      case Macro::kTransformList:
        return ListOf(arg_types[0]);
      case Macro::kMapFilter:
      case Macro::kTransformListFilter:
        if (!require_bool(0, "_?_:_")) return ErrorType();
        return ListOf(arg_types[1]);
      case Macro::kFilter:
        if (!require_bool(0, "_?_:_")) return ErrorType();
        return ListOf(v1);
      case Macro::kTransformMap:
        if (range->kind != TypeKind::kMap && !IsDynLike(range)) {
          return MapOf(IntType(), arg_types[0]);
        }
        return MapOf(v1, arg_types[0]);
      case Macro::kTransformMapFilter:
        if (!require_bool(0, "_?_:_")) return ErrorType();
        if (range->kind != TypeKind::kMap && !IsDynLike(range))
          return MapOf(IntType(), arg_types[1]);
        return MapOf(v1, arg_types[1]);
      case Macro::kNone:
        break;
    }
    return DynType();
  }

  const std::vector<Declaration>& vars_;
  std::vector<ParseError>& errors_;
  std::vector<std::pair<std::string, TypePtr>> locals_;
  int format_args_ = 0;
};

}  // namespace

CompileResult CompileExpression(std::string_view source, const std::vector<Declaration>& vars) {
  CompileResult r;
  std::vector<ParseError> errors;
  ExprPtr root = Parse(source, errors);
  if (!root) {
    r.errors = FormatErrors(source, std::move(errors));
    return r;
  }
  Checker checker(vars, errors);
  TypePtr t = checker.Check(*root);
  if (!errors.empty()) {
    r.errors = FormatErrors(source, std::move(errors));
    return r;
  }
  auto p = std::make_shared<Program>();
  p->source = std::string(source);
  p->root = std::move(root);
  p->result_type = t;
  p->uses_old_self = checker.uses_old_self;
  r.program = std::move(p);
  return r;
}

}  // namespace apiextensions::cel
