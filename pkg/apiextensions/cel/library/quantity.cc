// Kubernetes' quantity library.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/apiextensions/cel/library/internal.h"
#include "pkg/genericserver/apimachinery/schema/go_values.h"

namespace apiextensions::cel::internal {

namespace {

Value MakeQuantity(std::string_view text) {
  if (auto err = apimachinery::schema::QuantityParseError(text)) return Value::Error(*err);
  auto amount = apimachinery::schema::QuantityAmount(text);
  if (!amount)
    return Value::Error("quantity out of the range supported here: " + std::string(text));
  auto canonical = apimachinery::schema::QuantityCanonical(text);
  return Value::Quantity(canonical ? *canonical : std::string(text), *amount);
}

Value QuantityFromAmount(long double amount) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9Lf", amount);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return Value::Quantity(s, amount);
}

}  // namespace

void RegisterQuantity(Builder& b) {
  auto Q = QuantityType();
  auto I = IntType(), S = StringType(), B = BoolType(), D = DoubleType();
  b.Global("quantity", {S}, Q,
           [](EvalContext&, const Args& a) { return MakeQuantity(a[0].str()); });
  b.Global("isQuantity", {S}, B, [](EvalContext&, const Args& a) {
    return Value::Bool(!apimachinery::schema::QuantityParseError(a[0].str()).has_value());
  });
  b.Member("sign", {Q}, I, [](EvalContext&, const Args& a) {
    return Value::Int(a[0].q > 0 ? 1 : (a[0].q < 0 ? -1 : 0));
  });
  auto as_int = [](const Value& q) -> std::optional<int64_t> {
    long double v = q.q;
    if (v != std::floor(v) || v < -9223372036854775808.0L || v > 9223372036854775807.0L)
      return std::nullopt;
    return static_cast<int64_t>(v);
  };
  b.Member("isInteger", {Q}, B,
           [as_int](EvalContext&, const Args& a) { return Value::Bool(as_int(a[0]).has_value()); });
  b.Member("asInteger", {Q}, I, [as_int](EvalContext&, const Args& a) {
    auto v = as_int(a[0]);
    if (!v) return Value::Error("cannot convert value to integer");
    return Value::Int(*v);
  });
  b.Member("asApproximateFloat", {Q}, D,
           [](EvalContext&, const Args& a) { return Value::Double(static_cast<double>(a[0].q)); });
  b.Member("add", {Q, Q}, Q,
           [](EvalContext&, const Args& a) { return QuantityFromAmount(a[0].q + a[1].q); });
  b.Member("add", {Q, I}, Q, [](EvalContext&, const Args& a) {
    return QuantityFromAmount(a[0].q + static_cast<long double>(a[1].i));
  });
  b.Member("sub", {Q, Q}, Q,
           [](EvalContext&, const Args& a) { return QuantityFromAmount(a[0].q - a[1].q); });
  b.Member("sub", {Q, I}, Q, [](EvalContext&, const Args& a) {
    return QuantityFromAmount(a[0].q - static_cast<long double>(a[1].i));
  });
  b.Member("isLessThan", {Q, Q}, B,
           [](EvalContext&, const Args& a) { return Value::Bool(a[0].q < a[1].q); });
  b.Member("isGreaterThan", {Q, Q}, B,
           [](EvalContext&, const Args& a) { return Value::Bool(a[0].q > a[1].q); });
  b.Member("compareTo", {Q, Q}, I, [](EvalContext&, const Args& a) {
    return Value::Int(a[0].q < a[1].q ? -1 : (a[0].q > a[1].q ? 1 : 0));
  });
}

}  // namespace apiextensions::cel::internal
