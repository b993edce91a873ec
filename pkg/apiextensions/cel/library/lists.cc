// Kubernetes' lists library (isSorted, sum, min, max, indexOf, lastIndexOf) and cel-go's sets
// extension.

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/apiextensions/cel/library/internal.h"

namespace apiextensions::cel::internal {

namespace {

bool SameKindComparable(const Value& a, const Value& b) { return Compare(a, b) != 2; }

Value ListMinMax(EvalContext& ctx, const Value& list, bool want_min) {
  const auto& items = list.items();
  ctx.AddCost(1 + static_cast<int64_t>(items.size()));
  if (items.empty())
    return Value::Error(std::string(want_min ? "min" : "max") + " called on empty list");
  const Value* best = &items[0];
  for (size_t k = 1; k < items.size(); ++k) {
    int c = Compare(*best, items[k]);
    if (c == 2) return Value::NoSuchOverload();
    if ((want_min && c == 1) || (!want_min && c == -1)) best = &items[k];
  }
  return *best;
}

}  // namespace

void RegisterLists(Builder& b) {
  auto A = Param("A");
  auto I = IntType(), B = BoolType();
  std::vector<TypeKind> comparable = {TypeKind::kInt,    TypeKind::kUint,     TypeKind::kDouble,
                                      TypeKind::kBool,   TypeKind::kDuration, TypeKind::kTimestamp,
                                      TypeKind::kString, TypeKind::kBytes};
  std::vector<TypeKind> summable = {TypeKind::kInt, TypeKind::kUint, TypeKind::kDouble,
                                    TypeKind::kDuration};
  b.Member(
      "isSorted", {ListOf(A)}, B,
      [](EvalContext& ctx, const Args& a) {
        const auto& items = a[0].items();
        ctx.AddCost(1 + static_cast<int64_t>(items.size()));
        for (size_t k = 1; k < items.size(); ++k) {
          int c = Compare(items[k - 1], items[k]);
          if (c == 2 && !SameKindComparable(items[k - 1], items[k])) return Value::NoSuchOverload();
          if (c == 1) return Value::Bool(false);
        }
        return Value::Bool(true);
      },
      comparable);
  b.Member(
      "sum", {ListOf(A)}, A,
      [](EvalContext& ctx, const Args& a) {
        const auto& items = a[0].items();
        ctx.AddCost(1 + static_cast<int64_t>(items.size()));
        if (items.empty()) return Value::Int(0);
        Value acc = items[0];
        for (size_t k = 1; k < items.size(); ++k) {
          const Value& x = items[k];
          if (x.kind != acc.kind) return Value::NoSuchOverload();
          switch (acc.kind) {
            case Kind::kInt: {
              int64_t r;
              if (__builtin_add_overflow(acc.i, x.i, &r)) return IntOverflow();
              acc = Value::Int(r);
              break;
            }
            case Kind::kUint: {
              uint64_t r;
              if (__builtin_add_overflow(acc.u, x.u, &r)) return UintOverflow();
              acc = Value::Uint(r);
              break;
            }
            case Kind::kDouble:
              acc = Value::Double(acc.d + x.d);
              break;
            case Kind::kDuration: {
              int64_t r;
              if (__builtin_add_overflow(acc.i, x.i, &r)) return IntOverflow();
              acc = Value::Duration(r);
              break;
            }
            default:
              return Value::NoSuchOverload();
          }
        }
        if (acc.kind != Kind::kInt && acc.kind != Kind::kUint && acc.kind != Kind::kDouble &&
            acc.kind != Kind::kDuration) {
          return Value::NoSuchOverload();
        }
        return acc;
      },
      summable);
  b.Member(
      "min", {ListOf(A)}, A,
      [](EvalContext& ctx, const Args& a) { return ListMinMax(ctx, a[0], true); }, comparable);
  b.Member(
      "max", {ListOf(A)}, A,
      [](EvalContext& ctx, const Args& a) { return ListMinMax(ctx, a[0], false); }, comparable);
  b.Member("indexOf", {ListOf(A), A}, I, [](EvalContext& ctx, const Args& a) {
    const auto& items = a[0].items();
    for (size_t k = 0; k < items.size(); ++k) {
      ctx.AddCost(1);
      if (Equal(items[k], a[1]).IsTrue()) return Value::Int(static_cast<int64_t>(k));
    }
    return Value::Int(-1);
  });
  b.Member("lastIndexOf", {ListOf(A), A}, I, [](EvalContext& ctx, const Args& a) {
    const auto& items = a[0].items();
    for (size_t k = items.size(); k-- > 0;) {
      ctx.AddCost(1);
      if (Equal(items[k], a[1]).IsTrue()) return Value::Int(static_cast<int64_t>(k));
    }
    return Value::Int(-1);
  });
  // ext.Sets
  auto contains_all = [](EvalContext& ctx, const Value& l, const Value& sub) {
    for (const auto& y : sub.items()) {
      bool found = false;
      for (const auto& x : l.items()) {
        ctx.AddCost(1);
        if (Equal(x, y).IsTrue()) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  };
  b.Global("sets.contains", {ListOf(A), ListOf(A)}, B,
           [contains_all](EvalContext& ctx, const Args& a) {
             return Value::Bool(contains_all(ctx, a[0], a[1]));
           });
  b.Global("sets.equivalent", {ListOf(A), ListOf(A)}, B,
           [contains_all](EvalContext& ctx, const Args& a) {
             return Value::Bool(contains_all(ctx, a[0], a[1]) && contains_all(ctx, a[1], a[0]));
           });
  b.Global("sets.intersects", {ListOf(A), ListOf(A)}, B, [](EvalContext& ctx, const Args& a) {
    for (const auto& y : a[1].items()) {
      for (const auto& x : a[0].items()) {
        ctx.AddCost(1);
        if (Equal(x, y).IsTrue()) return Value::Bool(true);
      }
    }
    return Value::Bool(false);
  });
}

}  // namespace apiextensions::cel::internal
