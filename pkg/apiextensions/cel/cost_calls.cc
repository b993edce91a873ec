// The static cost of calls, one candidate overload at a time: the sets extension's
// estimators, Kubernetes' library CostEstimator (EstimateCallCost, keyed by function name;
// only its member forms are reached for isIP/cidr/quantity/ip.isCanonical, which are global
// functions here as upstream, so those cost 1), cel-go's built-in estimates (keyed by
// overload: string traversal at 0.1 per character, regular expressions at 0.25 per pattern
// character, list membership per item, equality by the smaller operand) and 1 for
// everything else. Each operand's own cost is added, except where cel-go's estimate already
// accounts for it (&&, ||, ?:).

#include <algorithm>
#include <optional>

#include "pkg/apiextensions/cel/cost_internal.h"

namespace apiextensions::cel::cost_internal {

namespace {

constexpr double kStringTraversalCostFactor = 0.1;
constexpr double kRegexStringLengthCostFactor = 0.25;

Estimate SizeOf(const Operand& o) { return o.size ? *o.size : kUnknownSize; }

TypeKind KindOf(const TypePtr& t) { return t ? t->kind : TypeKind::kDyn; }

TypeKind ParamKind(const Overload& o, size_t i) {
  return i < o.params.size() ? KindOf(o.params[i]) : TypeKind::kDyn;
}

Estimate Traversal(Estimate size) { return MultiplyByFactor(size, kStringTraversalCostFactor); }

// A regular expression match of a string against a pattern: string traversal (one more
// than the length, so that an empty string still costs) times the pattern's length.
Estimate RegexCost(Estimate str, Estimate pattern) {
  return Multiply(Traversal(Add(str, Fixed(1))),
                  MultiplyByFactor(pattern, kRegexStringLengthCostFactor));
}

// Kubernetes' listElementNode: the element of a type with parameters (a list's item), sized
// at the list's path + "@items" when the list has a path.
struct Element {
  TypePtr type;
  Estimate size;
};

std::optional<Element> ListElement(const Operand& list, const Type& root) {
  if (!list.type) return std::nullopt;
  TypePtr param;
  switch (list.type->kind) {
    case TypeKind::kList:
    case TypeKind::kOptional:
      param = list.type->elem;
      break;
    case TypeKind::kMap:
      param = list.type->key;
      break;
    default:
      break;
  }
  if (!param) return std::nullopt;
  Element el{param, kUnknownSize};
  if (!list.path.empty()) {
    Path p = list.path;
    p.push_back("@items");
    if (auto s = SchemaSize(root, p)) el.size = *s;
  }
  return el;
}

// Kubernetes' replace(): the result's size when every occurrence of the smallest searched
// string is replaced by the largest replacement (and the reverse for the minimum).
Estimate ReplaceResultSize(Estimate sz, Estimate from, Estimate to) {
  Estimate count, retained;
  if (from.min == 0) {
    count.max = sz.max < kMaxUint64 ? sz.max + 1 : sz.max;
    retained.max = sz.max;
  } else if (to.max <= from.min) {
    count.max = 0;
    retained.max = sz.max;
  } else {
    count.max = static_cast<uint64_t>(
        std::ceil(static_cast<double>(sz.max) / static_cast<double>(from.min)));
  }
  if (from.max == 0) {
    count.min = sz.min < kMaxUint64 ? sz.min + 1 : sz.min;
    retained.min = sz.min;
  } else if (from.max <= to.min) {
    count.min = 0;
    retained.min = sz.min;
  } else {
    count.min = static_cast<uint64_t>(
        std::ceil(static_cast<double>(sz.min) / static_cast<double>(from.max)));
  }
  return Add(Multiply(count, to), retained);
}

// The sets extension (cel-go ext.Sets): the product of the two lists' sizes.
std::optional<CallEstimate> SetsEstimate(const Overload& o, const std::vector<Operand>& args) {
  double factor = 0;
  if (o.function == "sets.contains" || o.function == "sets.intersects") factor = 1;
  if (o.function == "sets.equivalent") factor = 2;
  if (factor == 0 || args.size() != 2) return std::nullopt;
  return CallEstimate{
      Add(MultiplyByFactor(Multiply(SizeOf(args[0]), SizeOf(args[1])), factor), Fixed(1)), {}};
}

// Kubernetes' library estimator, for the cases where it differs from cel-go's default of 1.
std::optional<CallEstimate> KubernetesEstimate(const Overload& o, const Operand* target,
                                               const std::vector<Operand>& args, const Type& root) {
  const std::string& fn = o.function;
  if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" || fn == "indexOf" ||
      fn == "lastIndexOf") {
    if (target == nullptr) return std::nullopt;
    if (auto el = ListElement(*target, root)) {
      // One comparison per item, plus a traversal of each string or bytes item.
      Estimate per_item = Fixed(1);
      TypeKind k = KindOf(el->type);
      if (k == TypeKind::kString || k == TypeKind::kBytes) {
        per_item = Add(per_item, Traversal(el->size));
      }
      return CallEstimate{Multiply(SizeOf(*target), per_item), {}};
    }
    return CallEstimate{Traversal(SizeOf(*target)), {}};  // indexOf on a string
  }
  if (fn == "url" && target == nullptr && args.size() == 1) {
    Estimate sz = SizeOf(args[0]);
    return CallEstimate{Traversal(sz), sz};
  }
  if (fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" || fn == "trim") {
    if (target == nullptr) return std::nullopt;
    Estimate sz = SizeOf(*target);
    return CallEstimate{Traversal(sz), sz};
  }
  if (fn == "replace" && target != nullptr && args.size() >= 2) {
    Estimate sz = SizeOf(*target);
    return CallEstimate{MultiplyByFactor(sz, 2 * kStringTraversalCostFactor),
                        ReplaceResultSize(sz, SizeOf(args[0]), SizeOf(args[1]))};
  }
  if (fn == "split" && target != nullptr) {
    Estimate sz = SizeOf(*target);
    // At most one item per character, or the literal limit.
    uint64_t max = sz.max;
    if (args.size() > 1 && args[1].expr->kind == ExprKind::kConst &&
        args[1].expr->constant.kind == Kind::kInt) {
      max = static_cast<uint64_t>(args[1].expr->constant.i);
    }
    return CallEstimate{MultiplyByFactor(sz, 2 * kStringTraversalCostFactor), Estimate{0, max}};
  }
  if (fn == "join" && target != nullptr) {
    Estimate list = SizeOf(*target);
    Estimate sz;
    if (auto el = ListElement(*target, root)) sz = Multiply(list, el->size);
    if (!args.empty()) {
      Estimate separators{list.min > 0 ? list.min - 1 : 0, list.max > 0 ? list.max - 1 : 0};
      sz = Add(sz, Multiply(SizeOf(args[0]), separators));
    }
    return CallEstimate{Traversal(sz), sz};
  }
  if ((fn == "find" || fn == "findAll") && target != nullptr && !args.empty()) {
    Estimate sz = SizeOf(*target);
    return CallEstimate{RegexCost(sz, SizeOf(args[0])), Estimate{0, sz.max}};
  }
  if ((fn == "containsIP" || fn == "containsCIDR") && target != nullptr && !args.empty()) {
    // Comparing two IPv4 or IPv6 byte strings; a CIDR argument is masked first; a string
    // argument is parsed.
    const Estimate ip{4, 16};
    Estimate cost = Traversal(Add(ip, ip));
    if (fn == "containsCIDR") cost = Add(Add(cost, Traversal(ip)), Fixed(1));
    if (ParamKind(o, 1) == TypeKind::kString) cost = Add(cost, Traversal(SizeOf(args[0])));
    return CallEstimate{cost, {}};
  }
  if (fn == "_==_" && args.size() == 2 && args[0].type && args[1].type &&
      KindOf(args[0].type) == KindOf(args[1].type)) {
    switch (KindOf(args[0].type)) {
      case TypeKind::kIP:
      case TypeKind::kCIDR:
      case TypeKind::kQuantity:
        return CallEstimate{Fixed(1), {}};
      case TypeKind::kUrl: {
        // (upstream takes both sizes from the right operand)
        Estimate size = args[1].size ? *args[1].size : Fixed(1);
        return CallEstimate{Traversal(Estimate{1, size.max}), {}};
      }
      default:
        break;
    }
  }
  return std::nullopt;
}

bool IsStringOrBytes(TypeKind k) { return k == TypeKind::kString || k == TypeKind::kBytes; }

// cel-go's built-in estimates (checker/cost.go functionCost), without the operands' costs.
std::optional<CallEstimate> BuiltinEstimate(const Overload& o, const Operand* target,
                                            const std::vector<Operand>& args) {
  const std::string& fn = o.function;
  const bool member = target != nullptr;
  if (fn == "format" && member) return CallEstimate{Traversal(SizeOf(*target)), {}};
  if (args.size() == 1 && !member) {
    const Estimate sz = SizeOf(args[0]);
    // (the size bounds wrap on overflow as upstream's do)
    if (fn == "bytes" && ParamKind(o, 0) == TypeKind::kString) {
      return CallEstimate{Traversal(sz), Estimate{sz.min, sz.max * 4}};
    }
    if (fn == "string" && ParamKind(o, 0) == TypeKind::kBytes) {
      return CallEstimate{Traversal(sz), Estimate{sz.min / 4, sz.max}};
    }
    if (fn == "strings.quote") {
      return CallEstimate{Traversal(sz), Estimate{sz.min + 2, sz.max * 2 + 2}};
    }
  }
  if (member && args.size() == 1) {
    if (fn == "startsWith" || fn == "endsWith") return CallEstimate{Traversal(SizeOf(args[0])), {}};
    if (fn == "matches") return CallEstimate{RegexCost(SizeOf(*target), SizeOf(args[0])), {}};
    if (fn == "contains" && ParamKind(o, 0) == TypeKind::kString) {
      return CallEstimate{Multiply(Traversal(SizeOf(*target)), Traversal(SizeOf(args[0]))), {}};
    }
  }
  if (args.size() != 2 || member) return std::nullopt;
  if (fn == "@in" && ParamKind(o, 1) == TypeKind::kList) {
    return CallEstimate{MultiplyByFactor(SizeOf(args[1]), 1), {}};
  }
  if (fn == "_+_") {
    const TypeKind k = ParamKind(o, 0);
    if (k != TypeKind::kString && k != TypeKind::kBytes && k != TypeKind::kList)
      return std::nullopt;
    Estimate size = Add(SizeOf(args[0]), SizeOf(args[1]));
    // Concatenating lists is O(1); strings and bytes are copied.
    return CallEstimate{k == TypeKind::kList ? Fixed(1) : Traversal(size), size};
  }
  const bool ordering = fn == "_<_" || fn == "_<=_" || fn == "_>_" || fn == "_>=_";
  if (fn == "_==_" || fn == "_!=_" || (ordering && IsStringOrBytes(ParamKind(o, 0)))) {
    // Comparison stops at the end of the smaller operand; scalars (size 1) cost 1.
    const uint64_t smallest = std::min(SizeOf(args[0]).max, SizeOf(args[1]).max);
    return CallEstimate{Traversal(Estimate{smallest > 0 ? 1u : 0u, smallest}), {}};
  }
  return std::nullopt;
}

Estimate Sum(const std::vector<Estimate>& costs) {
  Estimate sum;
  for (const Estimate& c : costs) sum = Add(sum, c);
  return sum;
}

}  // namespace

CallEstimate EstimateOverload(const Overload& overload, const Operand* target,
                              const std::vector<Operand>& args,
                              const std::vector<Estimate>& arg_costs, const Type& root) {
  const std::string& fn = overload.function;
  // The short-circuiting operators and the conditional: the operands' costs are the estimate.
  if ((fn == "_&&_" || fn == "_||_") && arg_costs.size() == 2) {
    return {Estimate{arg_costs[0].min, SaturatingAdd(arg_costs[0].max, arg_costs[1].max)}, {}};
  }
  if (fn == "_?_:_" && arg_costs.size() == 3 && args.size() == 3) {
    return {Add(arg_costs[0], Union(arg_costs[1], arg_costs[2])),
            Union(SizeOf(args[1]), SizeOf(args[2]))};
  }
  std::optional<CallEstimate> e = SetsEstimate(overload, args);
  if (!e) e = KubernetesEstimate(overload, target, args, root);
  if (!e) e = BuiltinEstimate(overload, target, args);
  if (!e) e = CallEstimate{Fixed(1), {}};
  e->cost = Add(e->cost, Sum(arg_costs));
  return *e;
}

}  // namespace apiextensions::cel::cost_internal
