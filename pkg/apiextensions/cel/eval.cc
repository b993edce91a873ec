// The interpreter: a tree walk over the checked expression with cel-go's semantics for errors
// (values that && and || absorb), heterogeneous equality and comprehension macros, charging a
// cost for every step so that a budget bounds each evaluation.

#include <algorithm>
#include <limits>

#include "pkg/apiextensions/cel/functions.h"
#include "pkg/apiextensions/cel/program.h"

namespace apiextensions::cel {

namespace {

// cel-go's base costs: identifiers, selections and calls 1; list literals 10, map literals 30.
constexpr int64_t kListCreateCost = 10;
constexpr int64_t kMapCreateCost = 30;

int64_t SizeCost(const Value& v) {
  switch (v.kind) {
    case Kind::kString:
    case Kind::kBytes:
      return static_cast<int64_t>(v.str().size() / 10);
    case Kind::kList:
      return static_cast<int64_t>(v.items().size());
    case Kind::kMap:
    case Kind::kObject:
      return static_cast<int64_t>(v.map->entries.size());
    default:
      return 0;
  }
}

const Value* FindKey(const Value& m, const Value& key) {
  if (key.kind == Kind::kString) return m.map->FindString(key.str());
  for (const auto& [k, v] : m.map->entries) {
    if (Equal(k, key).IsTrue()) return &v;
  }
  return nullptr;
}

// The list index of a dyn index value (int, uint or integral double), or an error.
bool ListIndex(const Value& idx, int64_t* out, Value* err) {
  switch (idx.kind) {
    case Kind::kInt:
      *out = idx.i;
      return true;
    case Kind::kUint:
      if (idx.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        *err = Value::Error("index out of range");
        return false;
      }
      *out = static_cast<int64_t>(idx.u);
      return true;
    case Kind::kDouble: {
      double d = idx.d;
      if (d != static_cast<double>(static_cast<int64_t>(d))) {
        *err = Value::Error("unsupported index value " + FormatDouble(d) + " in list");
        return false;
      }
      *out = static_cast<int64_t>(d);
      return true;
    }
    default:
      *err = Value::Error("unsupported index type '" + TypeName(idx) + "' in list");
      return false;
  }
}

class Interpreter {
 public:
  Interpreter(const std::vector<std::pair<std::string, Value>>& vars, EvalContext& ctx)
      : vars_(vars), ctx_(ctx) {}

  Value Eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        return e.constant;
      case ExprKind::kIdent:
        ctx_.AddCost(1);
        return Ident(e.name);
      case ExprKind::kSelect:
        ctx_.AddCost(1);
        return Select(e);
      case ExprKind::kCall:
        return Call(e);
      case ExprKind::kList: {
        ctx_.AddCost(kListCreateCost);
        std::vector<Value> items;
        items.reserve(e.args.size());
        for (size_t i = 0; i < e.args.size(); ++i) {
          Value v = Eval(*e.args[i]);
          if (v.IsError()) return v;
          if (i < e.optional_entries.size() && e.optional_entries[i]) {
            if (v.kind != Kind::kOptional) return Value::NoSuchOverload();
            if (v.items().empty()) continue;
            Value inner = v.items()[0];
            v = std::move(inner);
          }
          items.push_back(std::move(v));
        }
        return Value::List(std::move(items));
      }
      case ExprKind::kMap: {
        ctx_.AddCost(kMapCreateCost);
        std::vector<std::pair<Value, Value>> entries;
        for (size_t k = 0; k + 1 < e.args.size(); k += 2) {
          Value key = Eval(*e.args[k]);
          if (key.IsError()) return key;
          Value val = Eval(*e.args[k + 1]);
          if (val.IsError()) return val;
          if (k / 2 < e.optional_entries.size() && e.optional_entries[k / 2]) {
            if (val.kind != Kind::kOptional) return Value::NoSuchOverload();
            if (val.items().empty()) continue;
            Value inner = val.items()[0];
            val = std::move(inner);
          }
          for (const auto& [ek, ev] : entries) {
            if (Equal(ek, key).IsTrue()) return Value::Error("Failed with repeated key");
          }
          entries.emplace_back(std::move(key), std::move(val));
        }
        return Value::Map(std::move(entries));
      }
      case ExprKind::kComprehension:
        return Comprehension(e);
    }
    return Value::NoSuchOverload();
  }

 private:
  Value Ident(const std::string& name) {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (*it->first == name) return it->second;
    }
    for (const auto& [n, v] : vars_) {
      if (n == name) return v;
    }
    static const char* const kTypes[] = {"int",   "uint", "double", "bool",      "string",
                                         "bytes", "list", "map",    "null_type", "type"};
    for (const char* t : kTypes) {
      if (name == t) return Value::TypeValue(name);
    }
    return Value::Error("no such attribute: " + name);
  }

  Value Select(const Expr& e) {
    Value t = Eval(*e.target);
    if (t.IsError()) return t;
    if (e.optional) {
      if (t.kind == Kind::kOptional) {
        if (t.items().empty()) return t;
        Value inner = t.items()[0];
        t = std::move(inner);
      }
      if (t.kind != Kind::kMap && t.kind != Kind::kObject) return Value::NoSuchOverload();
      const Value* f = t.map->FindString(e.name);
      return Value::Optional(f);
    }
    if (t.kind != Kind::kMap && t.kind != Kind::kObject) {
      return Value::Error(e.test_only ? "invalid type for field selection." : "no such overload");
    }
    const Value* f = t.map->FindString(e.name);
    if (e.test_only) return Value::Bool(f != nullptr);
    if (f == nullptr) return Value::Error("no such key: " + e.name);
    return *f;
  }

  Value Index(const Value& target, const Value& idx, bool optional) {
    if (target.kind == Kind::kList) {
      int64_t i;
      Value err;
      if (!ListIndex(idx, &i, &err)) return err;
      auto n = static_cast<int64_t>(target.items().size());
      if (i < 0 || i >= n) {
        if (optional) return Value::Optional(nullptr);
        return Value::Error("index '" + std::to_string(i) + "' out of range in list size '" +
                            std::to_string(n) + "'");
      }
      const Value& v = target.items()[static_cast<size_t>(i)];
      return optional ? Value::Optional(&v) : v;
    }
    if (target.kind == Kind::kMap || target.kind == Kind::kObject) {
      const Value* v = FindKey(target, idx);
      if (optional) return Value::Optional(v);
      if (v == nullptr) return Value::Error("no such key: " + DebugString(idx));
      return *v;
    }
    return Value::NoSuchOverload();
  }

  Value Call(const Expr& e) {
    const std::string& fn = e.name;
    if (fn == "_&&_" || fn == "_||_") {
      bool is_and = fn == "_&&_";
      ctx_.AddCost(1);
      Value l = Eval(*e.args[0]);
      if (l.kind == Kind::kBool && l.b != is_and) return l;
      Value r = Eval(*e.args[1]);
      if (r.kind == Kind::kBool && r.b != is_and) return r;
      if (l.IsError()) return l;
      if (r.IsError()) return r;
      if (l.kind != Kind::kBool || r.kind != Kind::kBool) return Value::NoSuchOverload();
      return Value::Bool(is_and);
    }
    if (fn == "_?_:_") {
      ctx_.AddCost(1);
      Value c = Eval(*e.args[0]);
      if (c.IsError()) return c;
      if (c.kind != Kind::kBool) return Value::NoSuchOverload();
      return Eval(*e.args[c.b ? 1 : 2]);
    }
    if (fn == "_[_]" || fn == "_[?_]") {
      ctx_.AddCost(1);
      Value t = Eval(*e.args[0]);
      if (t.IsError()) return t;
      Value idx = Eval(*e.args[1]);
      if (idx.IsError()) return idx;
      if (fn == "_[?_]" && t.kind == Kind::kOptional) {
        if (t.items().empty()) return t;
        Value inner = t.items()[0];
        return Index(inner, idx, true);
      }
      return Index(t, idx, fn == "_[?_]");
    }

    std::vector<Value> args;
    args.reserve(e.args.size() + 1);
    if (e.target) args.push_back(Eval(*e.target));
    for (const auto& a : e.args) args.push_back(Eval(*a));
    ctx_.AddCost(1);
    for (const auto& a : args) {
      if (a.IsError()) return a;
    }
    if (fn == "_==_" || fn == "_!=_") {
      ctx_.AddCost(std::min(SizeCost(args[0]), SizeCost(args[1])));
    }
    bool member = e.target != nullptr;
    if (!e.overloads.empty()) {
      for (const Overload* o : e.overloads) {
        if (o->member == member && o->impl && RuntimeMatches(*o, args)) return o->impl(ctx_, args);
      }
      return Value::NoSuchOverload();
    }
    const std::vector<Overload>* all = FindFunction(fn);
    if (all != nullptr) {
      for (const auto& o : *all) {
        if (o.member == member && o.impl && RuntimeMatches(o, args)) return o.impl(ctx_, args);
      }
    }
    return Value::NoSuchOverload();
  }

  struct Scope {
    Scope(Interpreter& in, const std::string* a, const std::string* b) : in(in), two(b != nullptr) {
      in.locals_.emplace_back(a, Value());
      if (two) in.locals_.emplace_back(b, Value());
    }
    ~Scope() {
      in.locals_.pop_back();
      if (two) in.locals_.pop_back();
    }
    void Set(Value a, Value b = Value()) {
      if (two) {
        in.locals_[in.locals_.size() - 2].second = std::move(a);
        in.locals_.back().second = std::move(b);
      } else {
        in.locals_.back().second = std::move(a);
      }
    }
    Interpreter& in;
    bool two;
  };

  Value Comprehension(const Expr& e) {
    Value range = Eval(*e.target);
    if (range.IsError()) return range;
    bool two = !e.iter_var2.empty();
    // The (first, second) variable values of each iteration.
    std::vector<std::pair<Value, Value>> iters;
    if (range.kind == Kind::kList) {
      const auto& items = range.items();
      iters.reserve(items.size());
      for (size_t k = 0; k < items.size(); ++k) {
        if (two) {
          iters.emplace_back(Value::Int(static_cast<int64_t>(k)), items[k]);
        } else {
          iters.emplace_back(items[k], Value());
        }
      }
    } else if (range.kind == Kind::kMap) {
      for (const auto& [k, v] : range.map->entries) iters.emplace_back(k, two ? v : Value());
    } else {
      return Value::NoSuchOverload();
    }
    Scope scope(*this, &e.iter_var, two ? &e.iter_var2 : nullptr);
    auto step = [&](const std::pair<Value, Value>& it) {
      ctx_.AddCost(1);
      scope.Set(it.first, it.second);
    };
    switch (e.macro) {
      case Macro::kAll:
      case Macro::kAll2: {
        Value acc = Value::Bool(true);
        for (const auto& it : iters) {
          step(it);
          Value p = Eval(*e.args[0]);
          if (p.kind == Kind::kBool && !p.b) return p;
          if (p.IsError()) {
            if (!acc.IsError()) acc = p;
          } else if (p.kind != Kind::kBool && !acc.IsError()) {
            acc = Value::NoSuchOverload();
          }
        }
        return acc;
      }
      case Macro::kExists:
      case Macro::kExists2: {
        Value acc = Value::Bool(false);
        for (const auto& it : iters) {
          step(it);
          Value p = Eval(*e.args[0]);
          if (p.kind == Kind::kBool && p.b) return p;
          if (p.IsError()) {
            if (!acc.IsError()) acc = p;
          } else if (p.kind != Kind::kBool && !acc.IsError()) {
            acc = Value::NoSuchOverload();
          }
        }
        return acc;
      }
      case Macro::kExistsOne:
      case Macro::kExistsOne2: {
        int64_t count = 0;
        for (const auto& it : iters) {
          step(it);
          Value p = Eval(*e.args[0]);
          if (p.IsError()) return p;
          if (p.kind != Kind::kBool) return Value::NoSuchOverload();
          if (p.b) ++count;
        }
        return Value::Bool(count == 1);
      }
      case Macro::kMap:
      case Macro::kMapFilter:
      case Macro::kFilter:
      case Macro::kTransformList:
      case Macro::kTransformListFilter: {
        bool has_filter = e.macro == Macro::kMapFilter || e.macro == Macro::kFilter ||
                          e.macro == Macro::kTransformListFilter;
        bool has_transform = e.macro != Macro::kFilter;
        std::vector<Value> out;
        for (const auto& it : iters) {
          step(it);
          if (has_filter) {
            Value p = Eval(*e.args[0]);
            if (p.IsError()) return p;
            if (p.kind != Kind::kBool) return Value::NoSuchOverload();
            if (!p.b) continue;
          }
          if (!has_transform) {
            out.push_back(it.first);
            continue;
          }
          Value v = Eval(*e.args[has_filter ? 1 : 0]);
          if (v.IsError()) return v;
          out.push_back(std::move(v));
        }
        return Value::List(std::move(out));
      }
      case Macro::kTransformMap:
      case Macro::kTransformMapFilter: {
        bool has_filter = e.macro == Macro::kTransformMapFilter;
        std::vector<std::pair<Value, Value>> out;
        for (const auto& it : iters) {
          step(it);
          if (has_filter) {
            Value p = Eval(*e.args[0]);
            if (p.IsError()) return p;
            if (p.kind != Kind::kBool) return Value::NoSuchOverload();
            if (!p.b) continue;
          }
          Value v = Eval(*e.args[has_filter ? 1 : 0]);
          if (v.IsError()) return v;
          out.emplace_back(it.first, std::move(v));
        }
        return Value::Map(std::move(out));
      }
      case Macro::kNone:
        break;
    }
    return Value::NoSuchOverload();
  }

  const std::vector<std::pair<std::string, Value>>& vars_;
  EvalContext& ctx_;
  std::vector<std::pair<const std::string*, Value>> locals_;
};

}  // namespace

EvalResult Evaluate(const Program& program, const std::vector<std::pair<std::string, Value>>& vars,
                    int64_t cost_limit) {
  EvalContext ctx(cost_limit);
  Interpreter in(vars, ctx);
  EvalResult r;
  try {
    r.value = in.Eval(*program.root);
  } catch (const CostLimitExceeded&) {
    r.cost_exceeded = true;
    r.value = Value::Error("operation cancelled: actual cost limit exceeded");
  }
  r.cost = ctx.cost();
  return r;
}

}  // namespace apiextensions::cel
