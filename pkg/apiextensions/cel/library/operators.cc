// CEL's operators: arithmetic, comparison, equality, membership, indexing and size().

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "pkg/apiextensions/cel/library/internal.h"

namespace apiextensions::cel::internal {

namespace {

Value AddTsDur(const Value& ts, int64_t dur) {
  int64_t secs = dur / kNanosPerSecond;
  int64_t nanos = dur % kNanosPerSecond;
  int64_t s;
  if (__builtin_add_overflow(ts.i, secs, &s)) return IntOverflow();
  return MakeTimestamp(s, ts.nanos + nanos);
}

Value Concat(EvalContext& ctx, const Value& a, const Value& b) {
  const auto& la = a.items();
  const auto& lb = b.items();
  ctx.AddCost(1 + StrCost(la.size() + lb.size()));
  std::vector<Value> out;
  ListType type = a.list->list_type;
  if (type == ListType::kSet) {
    out = la;
    for (const auto& y : lb) {
      bool found = false;
      for (const auto& x : la) {
        if (Equal(x, y).IsTrue()) {
          found = true;
          break;
        }
      }
      ctx.AddCost(static_cast<int64_t>(la.size() / 10));
      if (!found) out.push_back(y);
    }
    return Value::List(std::move(out), type);
  }
  if (type == ListType::kMap) {
    // Map lists merge by their keys: an element of b replaces a's element with the same keys.
    const auto& keys = a.list->map_keys;
    auto key_of = [&](const Value& v) {
      std::vector<Value> k;
      if (v.kind != Kind::kObject && v.kind != Kind::kMap) return k;
      for (const auto& name : keys) {
        const Value* f = v.map->FindString(name);
        k.push_back(f ? *f : Value::Null());
      }
      return k;
    };
    out = la;
    for (const auto& y : lb) {
      auto ky = key_of(y);
      bool replaced = false;
      for (auto& x : out) {
        auto kx = key_of(x);
        bool same = kx.size() == ky.size() && !kx.empty();
        for (size_t k = 0; same && k < kx.size(); ++k) same = Equal(kx[k], ky[k]).IsTrue();
        if (same) {
          x = y;
          replaced = true;
          break;
        }
      }
      ctx.AddCost(static_cast<int64_t>(out.size() / 10));
      if (!replaced) out.push_back(y);
    }
    return Value::List(std::move(out), type, keys);
  }
  out.reserve(la.size() + lb.size());
  out.insert(out.end(), la.begin(), la.end());
  out.insert(out.end(), lb.begin(), lb.end());
  return Value::List(std::move(out));
}

}  // namespace

void RegisterOperators(Builder& b) {
  auto A = Param("A");
  auto K = Param("K");
  auto V = Param("V");
  auto I = IntType(), U = UintType(), D = DoubleType(), S = StringType(), B = BoolType(),
       Y = BytesType();
  auto Dur = DurationType(), Ts = TimestampType();

  // +
  b.Global("_+_", {I, I}, I, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_add_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Int(r);
  });
  b.Global("_+_", {U, U}, U, [](EvalContext&, const Args& a) {
    uint64_t r;
    if (__builtin_add_overflow(a[0].u, a[1].u, &r)) return UintOverflow();
    return Value::Uint(r);
  });
  b.Global("_+_", {D, D}, D,
           [](EvalContext&, const Args& a) { return Value::Double(a[0].d + a[1].d); });
  b.Global("_+_", {S, S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size() + a[1].str().size()));
    return Value::String(a[0].str() + a[1].str());
  });
  b.Global("_+_", {Y, Y}, Y, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size() + a[1].str().size()));
    return Value::Bytes(a[0].str() + a[1].str());
  });
  b.Global("_+_", {ListOf(A), ListOf(A)}, ListOf(A),
           [](EvalContext& ctx, const Args& a) { return Concat(ctx, a[0], a[1]); });
  b.Global("_+_", {Ts, Dur}, Ts,
           [](EvalContext&, const Args& a) { return AddTsDur(a[0], a[1].i); });
  b.Global("_+_", {Dur, Ts}, Ts,
           [](EvalContext&, const Args& a) { return AddTsDur(a[1], a[0].i); });
  b.Global("_+_", {Dur, Dur}, Dur, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_add_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Duration(r);
  });
  // -
  b.Global("_-_", {I, I}, I, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_sub_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Int(r);
  });
  b.Global("_-_", {U, U}, U, [](EvalContext&, const Args& a) {
    uint64_t r;
    if (__builtin_sub_overflow(a[0].u, a[1].u, &r)) return UintOverflow();
    return Value::Uint(r);
  });
  b.Global("_-_", {D, D}, D,
           [](EvalContext&, const Args& a) { return Value::Double(a[0].d - a[1].d); });
  b.Global("_-_", {Ts, Ts}, Dur, [](EvalContext&, const Args& a) {
    __int128 n =
        (static_cast<__int128>(a[0].i) - a[1].i) * kNanosPerSecond + (a[0].nanos - a[1].nanos);
    if (n > std::numeric_limits<int64_t>::max() || n < std::numeric_limits<int64_t>::min())
      return IntOverflow();
    return Value::Duration(static_cast<int64_t>(n));
  });
  b.Global("_-_", {Ts, Dur}, Ts, [](EvalContext&, const Args& a) {
    if (a[1].i == std::numeric_limits<int64_t>::min()) return IntOverflow();
    return AddTsDur(a[0], -a[1].i);
  });
  b.Global("_-_", {Dur, Dur}, Dur, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_sub_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Duration(r);
  });
  // * / %
  b.Global("_*_", {I, I}, I, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_mul_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Int(r);
  });
  b.Global("_*_", {U, U}, U, [](EvalContext&, const Args& a) {
    uint64_t r;
    if (__builtin_mul_overflow(a[0].u, a[1].u, &r)) return UintOverflow();
    return Value::Uint(r);
  });
  b.Global("_*_", {D, D}, D,
           [](EvalContext&, const Args& a) { return Value::Double(a[0].d * a[1].d); });
  b.Global("_/_", {I, I}, I, [](EvalContext&, const Args& a) {
    if (a[1].i == 0) return Value::Error("division by zero");
    if (a[0].i == std::numeric_limits<int64_t>::min() && a[1].i == -1) return IntOverflow();
    return Value::Int(a[0].i / a[1].i);
  });
  b.Global("_/_", {U, U}, U, [](EvalContext&, const Args& a) {
    if (a[1].u == 0) return Value::Error("division by zero");
    return Value::Uint(a[0].u / a[1].u);
  });
  b.Global("_/_", {D, D}, D,
           [](EvalContext&, const Args& a) { return Value::Double(a[0].d / a[1].d); });
  b.Global("_%_", {I, I}, I, [](EvalContext&, const Args& a) {
    if (a[1].i == 0) return Value::Error("modulus by zero");
    if (a[0].i == std::numeric_limits<int64_t>::min() && a[1].i == -1) return IntOverflow();
    return Value::Int(a[0].i % a[1].i);
  });
  b.Global("_%_", {U, U}, U, [](EvalContext&, const Args& a) {
    if (a[1].u == 0) return Value::Error("modulus by zero");
    return Value::Uint(a[0].u % a[1].u);
  });
  b.Global("-_", {I}, I, [](EvalContext&, const Args& a) {
    if (a[0].i == std::numeric_limits<int64_t>::min()) return IntOverflow();
    return Value::Int(-a[0].i);
  });
  b.Global("-_", {D}, D, [](EvalContext&, const Args& a) { return Value::Double(-a[0].d); });
  b.Global("-_", {Dur}, Dur, [](EvalContext&, const Args& a) {
    if (a[0].i == std::numeric_limits<int64_t>::min()) return IntOverflow();
    return Value::Duration(-a[0].i);
  });
  b.Global("!_", {B}, B, [](EvalContext&, const Args& a) { return Value::Bool(!a[0].b); });

  // Logical operators and the conditional are evaluated by the interpreter; their signatures
  // serve the checker.
  b.Global("_&&_", {B, B}, B, nullptr);
  b.Global("_||_", {B, B}, B, nullptr);
  b.Global("_?_:_", {B, A, A}, A, nullptr);

  // Equality (heterogeneous at run time).
  b.Global("_==_", {A, A}, B, [](EvalContext&, const Args& a) { return Equal(a[0], a[1]); });
  b.Global("_!=_", {A, A}, B, [](EvalContext&, const Args& a) {
    Value e = Equal(a[0], a[1]);
    return e.IsError() ? e : Value::Bool(!e.b);
  });

  // Ordering: same types, and the numeric types across each other (cross-type numeric
  // comparisons are enabled in Kubernetes' environment since 1.28).
  struct Rel {
    const char* fn;
    bool (*test)(int);
  };
  static const Rel kRels[] = {
      {"_<_", [](int c) { return c == -1; }},
      {"_<=_", [](int c) { return c == -1 || c == 0; }},
      {"_>_", [](int c) { return c == 1; }},
      {"_>=_", [](int c) { return c == 1 || c == 0; }},
  };
  std::vector<std::pair<TypePtr, TypePtr>> pairs = {{I, I}, {U, U},   {D, D},     {S, S}, {Y, Y},
                                                    {B, B}, {Ts, Ts}, {Dur, Dur}, {I, U}, {I, D},
                                                    {U, I}, {U, D},   {D, I},     {D, U}};
  for (const auto& rel : kRels) {
    for (const auto& [x, y] : pairs) {
      auto test = rel.test;
      b.Global(rel.fn, {x, y}, B, [test](EvalContext& ctx, const Args& a) {
        if (a[0].kind == Kind::kString || a[0].kind == Kind::kBytes) {
          ctx.AddCost(StrCost(std::min(a[0].str().size(), a[1].str().size())));
        }
        int c = Compare(a[0], a[1]);
        if (c == 2) return Value::Bool(false);  // NaN
        return Value::Bool(test(c));
      });
    }
  }

  // in
  b.Global("@in", {A, ListOf(A)}, B, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(1 + static_cast<int64_t>(a[1].items().size()));
    for (const auto& x : a[1].items()) {
      if (Equal(a[0], x).IsTrue()) return Value::Bool(true);
    }
    return Value::Bool(false);
  });
  b.Global("@in", {K, MapOf(K, V)}, B, [](EvalContext&, const Args& a) {
    if (a[0].kind == Kind::kString) return Value::Bool(a[1].map->FindString(a[0].str()) != nullptr);
    for (const auto& [k, v] : a[1].map->entries) {
      if (Equal(a[0], k).IsTrue()) return Value::Bool(true);
    }
    return Value::Bool(false);
  });

  // Indexing is evaluated by the interpreter (maps, objects, lists, optional indexing).
  b.Global("_[_]", {ListOf(A), I}, A, nullptr);
  b.Global("_[_]", {MapOf(K, V), K}, V, nullptr);
  b.Global("_[?_]", {ListOf(A), I}, OptionalOf(A), nullptr);
  b.Global("_[?_]", {MapOf(K, V), K}, OptionalOf(V), nullptr);
  b.Global("_[?_]", {OptionalOf(ListOf(A)), I}, OptionalOf(A), nullptr);
  b.Global("_[?_]", {OptionalOf(MapOf(K, V)), K}, OptionalOf(V), nullptr);

  // size
  auto size_string = [](EvalContext&, const Args& a) { return Value::Int(CpCount(a[0].str())); };
  auto size_bytes = [](EvalContext&, const Args& a) {
    return Value::Int(static_cast<int64_t>(a[0].str().size()));
  };
  auto size_list = [](EvalContext&, const Args& a) {
    return Value::Int(static_cast<int64_t>(a[0].items().size()));
  };
  auto size_map = [](EvalContext&, const Args& a) {
    return Value::Int(static_cast<int64_t>(a[0].map->entries.size()));
  };
  for (bool member : {false, true}) {
    auto add = [&](std::vector<TypePtr> p, Impl impl) {
      if (member) {
        b.Member("size", std::move(p), I, std::move(impl));
      } else {
        b.Global("size", std::move(p), I, std::move(impl));
      }
    };
    add({S}, size_string);
    add({Y}, size_bytes);
    add({ListOf(A)}, size_list);
    add({MapOf(K, V)}, size_map);
  }
}

}  // namespace apiextensions::cel::internal
