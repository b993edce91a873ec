// The walk of the static cost estimator over a checked expression (cel-go's coster): each
// node's cost, the path of the values that are parts of self (so that their sizes come from
// the schema) and the sizes known from literals, calls and scalar types.
//
// Our AST keeps the standard macros as comprehension nodes; their costs are those of the
// loops cel-go expands them to (accumulator, loop condition, loop step, result), and the
// iteration variables get the range's path plus "@items" / "@keys" (two variables:
// "@indices" or "@keys", "@items" or "@values"). As in cel-go v0.22, iteration variables
// have no size of their own, a literal range gives its variables the path ["@items"], which
// the size estimator resolves to the rule's own node, and a field selected on a value
// without a path resolves the same way: upstream's quirks, kept because the estimates are
// API.

#include "pkg/apiextensions/cel/cost.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/apiextensions/cel/cost_internal.h"

namespace apiextensions::cel {

namespace cost_internal {

std::optional<Estimate> SchemaSize(const Type& root, const Path& path) {
  if (path.empty()) return std::nullopt;
  const Type* t = &root;
  for (size_t i = 1; i < path.size(); ++i) {
    const std::string& step = path[i];
    if (step == "@items" || step == "@values") {
      if (!t->elem) return std::nullopt;
      t = t->elem.get();
    } else if (step == "@keys") {
      if (!t->key) return std::nullopt;
      t = t->key.get();
    } else {
      if (t->kind != TypeKind::kObject) return std::nullopt;
      auto f = t->fields.find(step);
      if (f == t->fields.end() || !f->second.type) return std::nullopt;
      t = f->second.type.get();
    }
  }
  return Estimate{0, static_cast<uint64_t>(t->max_elements)};
}

}  // namespace cost_internal

namespace {

using cost_internal::Operand;
using cost_internal::Path;

// Types whose values have a constant size (1): cel-go's isScalar.
bool IsScalar(const TypePtr& t) {
  if (!t) return false;
  switch (t->kind) {
    case TypeKind::kBool:
    case TypeKind::kDouble:
    case TypeKind::kDuration:
    case TypeKind::kInt:
    case TypeKind::kTimestamp:
    case TypeKind::kUint:
      return true;
    case TypeKind::kOptional:
      return IsScalar(t->elem);
    default:
      return false;
  }
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// The size of a literal: characters of a string, bytes, elements of a list or map literal,
// 1 for other constants.
std::optional<Estimate> LiteralSize(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kConst:
      switch (e.constant.kind) {
        case Kind::kString:
          return Fixed(CodePoints(e.constant.str()));
        case Kind::kBytes:
          return Fixed(e.constant.str().size());
        case Kind::kNull:
        case Kind::kBool:
        case Kind::kInt:
        case Kind::kUint:
        case Kind::kDouble:
          return Fixed(1);
        default:
          return std::nullopt;
      }
    case ExprKind::kList:
      return Fixed(e.args.size());
    case ExprKind::kMap:
      return Fixed(e.args.size() / 2);
    default:
      return std::nullopt;
  }
}

// The loop a macro expands to, given the costs of its arguments (predicate, or filter and
// transform).
struct Loop {
  Estimate init;                    // the accumulator's initial value
  Estimate cond;                    // the loop condition, per element
  Estimate step;                    // the loop step, per element
  Estimate result;                  // the result expression
  bool produces_container = false;  // map/filter: the result has one element per element
};

Loop MacroLoop(Macro macro, const std::vector<Estimate>& a) {
  const Estimate accu = Fixed(1);  // reading the accumulator
  auto arg = [&](size_t i) { return i < a.size() ? a[i] : Estimate{}; };
  // `accu && p` / `accu || p`: cel-go's short-circuit estimate.
  auto logical = [&](Estimate p) { return Estimate{accu.min, SaturatingAdd(accu.max, p.max)}; };
  // `f ? x : accu`
  auto conditional = [&](Estimate f, Estimate x) { return Add(f, Union(x, accu)); };
  // `accu + [t]`: the list literal (10) and the concatenation (1).
  auto append = [&](Estimate t) { return Add(Add(accu, Add(t, Fixed(10))), Fixed(1)); };
  // `cel.@mapInsert(accu, k, t)`
  auto insert = [&](Estimate t) { return Add(Add(Add(accu, Fixed(1)), t), Fixed(1)); };
  switch (macro) {
    case Macro::kAll:
    case Macro::kAll2:  // init true; cond @not_strictly_false(accu); step accu && p
      return {Fixed(0), Fixed(2), logical(arg(0)), accu};
    case Macro::kExists:
    case Macro::kExists2:  // init false; cond @not_strictly_false(!accu); step accu || p
      return {Fixed(0), Fixed(3), logical(arg(0)), accu};
    case Macro::kExistsOne:
    case Macro::kExistsOne2:  // init 0; cond true; step p ? accu + 1 : accu; result accu == 1
      return {Fixed(0), Fixed(0), conditional(arg(0), Add(accu, Fixed(1))), Fixed(2)};
    case Macro::kMap:
    case Macro::kTransformList:  // init []; step accu + [t]
      return {Fixed(10), Fixed(0), append(arg(0)), accu, true};
    case Macro::kMapFilter:
    case Macro::kTransformListFilter:  // step f ? accu + [t] : accu
      return {Fixed(10), Fixed(0), conditional(arg(0), append(arg(1))), accu, true};
    case Macro::kFilter:  // step f ? accu + [x] : accu
      return {Fixed(10), Fixed(0), conditional(arg(0), append(accu)), accu, true};
    case Macro::kTransformMap:  // init {}; step cel.@mapInsert(accu, k, t)
      return {Fixed(30), Fixed(0), insert(arg(0)), accu, true};
    case Macro::kTransformMapFilter:
      return {Fixed(30), Fixed(0), conditional(arg(0), insert(arg(1))), accu, true};
    case Macro::kNone:
      break;
  }
  return {};
}

class Coster {
 public:
  explicit Coster(const Type& root) : root_(root) {}

  Estimate Cost(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst:
        return Fixed(0);
      case ExprKind::kIdent:
        if (const Local* l = Lookup(e.name)) {
          paths_[&e] = l->path;
        } else {
          paths_[&e] = Path{e.name};
        }
        return Fixed(1);
      case ExprKind::kSelect:
        return CostSelect(e);
      case ExprKind::kCall:
        return CostCall(e);
      case ExprKind::kList: {
        Estimate sum;
        for (const auto& a : e.args) sum = Add(sum, Cost(*a));
        return Add(sum, Fixed(10));
      }
      case ExprKind::kMap: {
        Estimate sum;
        for (const auto& a : e.args) sum = Add(sum, Cost(*a));
        return Add(sum, Fixed(30));
      }
      case ExprKind::kComprehension:
        return CostComprehension(e);
    }
    return {};
  }

 private:
  struct Local {
    const std::string* name;
    Path path;
  };

  const Local* Lookup(const std::string& name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (*it->name == name) return &*it;
    }
    return nullptr;
  }

  Path GetPath(const Expr& e) const {
    if (e.kind == ExprKind::kIdent) {
      if (const Local* l = Lookup(e.name)) return l->path;
    }
    auto it = paths_.find(&e);
    return it == paths_.end() ? Path{} : it->second;
  }

  // cel-go's computeSize: recorded, literal, from the schema by path, scalar.
  std::optional<Estimate> ComputeSize(const Expr& e) {
    if (auto it = sizes_.find(&e); it != sizes_.end()) return it->second;
    if (auto s = LiteralSize(e)) return s;
    if (auto s = cost_internal::SchemaSize(root_, GetPath(e))) {
      sizes_[&e] = *s;
      return s;
    }
    if (IsScalar(e.type)) return Fixed(1);
    return std::nullopt;
  }

  Estimate SizeOrUnknown(const Expr& e) {
    auto s = ComputeSize(e);
    return s ? *s : kUnknownSize;
  }

  Operand MakeOperand(const Expr& e) { return Operand{&e, GetPath(e), e.type, ComputeSize(e)}; }

  Estimate CostSelect(const Expr& e) {
    if (e.test_only) return Cost(*e.target);  // has(): free in Kubernetes' environment
    if (e.optional) return Add(Cost(*e.target), Fixed(1));  // a.?f: the _?._ call
    Estimate c = Cost(*e.target);
    const TypeKind k = e.target->type ? e.target->type->kind : TypeKind::kDyn;
    if (k == TypeKind::kMap || k == TypeKind::kObject || k == TypeKind::kParam) {
      c = Add(c, Fixed(1));
    }
    Path p = GetPath(*e.target);
    p.push_back(e.name);
    paths_[&e] = std::move(p);
    return c;
  }

  Estimate CostCall(const Expr& e) {
    // dyn() only disables type checking: its argument's cost and size, plus 1.
    if (e.name == "dyn" && !e.target && e.args.size() == 1) {
      Estimate c = Cost(*e.args[0]);
      if (auto s = ComputeSize(*e.args[0])) sizes_[&e] = *s;
      return Add(Fixed(1), c);
    }
    std::vector<Estimate> arg_costs;
    std::vector<Operand> args;
    for (const auto& a : e.args) {
      arg_costs.push_back(Cost(*a));
      args.push_back(MakeOperand(*a));
    }
    if (e.overloads.empty()) return {};
    Estimate sum;
    std::optional<Operand> target;
    if (e.target) {
      sum = Cost(*e.target);
      target = MakeOperand(*e.target);
    }
    // The union of every candidate overload's estimate.
    Estimate fn{kMaxUint64, 0};
    std::optional<Estimate> result_size;
    for (const Overload* o : e.overloads) {
      cost_internal::CallEstimate c =
          cost_internal::EstimateOverload(*o, target ? &*target : nullptr, args, arg_costs, root_);
      fn = Union(fn, c.cost);
      if (c.result_size)
        result_size = result_size ? Union(*result_size, *c.result_size) : *c.result_size;
      if (o->function == "_[_]" && !e.args.empty()) {
        const TypeKind k = o->params.empty() ? TypeKind::kDyn : o->params[0]->kind;
        if (k == TypeKind::kList || k == TypeKind::kMap) {
          Path p = GetPath(*e.args[0]);
          p.push_back(k == TypeKind::kList ? "@items" : "@values");
          paths_[&e] = std::move(p);
        }
      }
    }
    if (result_size) sizes_[&e] = *result_size;
    return Add(sum, fn);
  }

  Estimate CostComprehension(const Expr& e) {
    Estimate range = Cost(*e.target);
    const bool list = e.target->type && e.target->type->kind == TypeKind::kList;
    const Path range_path = GetPath(*e.target);
    auto bind = [&](const std::string& name, const char* step) {
      Path p = range_path;
      p.push_back(step);
      locals_.push_back(Local{&name, std::move(p)});
    };
    size_t bound = 1;
    if (e.iter_var2.empty()) {
      bind(e.iter_var, list ? "@items" : "@keys");
    } else {
      bind(e.iter_var, list ? "@indices" : "@keys");
      bind(e.iter_var2, list ? "@items" : "@values");
      bound = 2;
    }
    std::vector<Estimate> arg_costs;
    for (const auto& a : e.args) arg_costs.push_back(Cost(*a));
    locals_.resize(locals_.size() - bound);

    const Loop loop = MacroLoop(e.macro, arg_costs);
    const Estimate n = SizeOrUnknown(*e.target);
    sizes_[&e] = loop.produces_container ? n : Fixed(1);
    return Add(Add(Add(range, loop.init), loop.result), Multiply(n, Add(loop.step, loop.cond)));
  }

  const Type& root_;
  std::unordered_map<const Expr*, Path> paths_;
  std::unordered_map<const Expr*, Estimate> sizes_;
  std::vector<Local> locals_;
};

}  // namespace

Estimate EstimateCost(const Expr& expr, const Type& self_type) {
  Coster c(self_type);
  return c.Cost(expr);
}

}  // namespace apiextensions::cel
