// cel-go's optional types: optional.of(), optional.none(), optional.ofNonZeroValue(),
// hasValue(), value(), orValue() and or().

#include "pkg/apiextensions/cel/library/internal.h"

namespace apiextensions::cel::internal {

void RegisterOptional(Builder& b) {
  auto A = Param("A");
  b.Global("optional.of", {A}, OptionalOf(A),
           [](EvalContext&, const Args& a) { return Value::Optional(&a[0]); });
  b.Global("optional.none", {}, OptionalOf(DynType()),
           [](EvalContext&, const Args&) { return Value::Optional(nullptr); });
  b.Global("optional.ofNonZeroValue", {A}, OptionalOf(A), [](EvalContext&, const Args& a) {
    const Value& v = a[0];
    bool zero = false;
    switch (v.kind) {
      case Kind::kNull:
        zero = true;
        break;
      case Kind::kBool:
        zero = !v.b;
        break;
      case Kind::kInt:
      case Kind::kDuration:
        zero = v.i == 0;
        break;
      case Kind::kUint:
        zero = v.u == 0;
        break;
      case Kind::kDouble:
        zero = v.d == 0;
        break;
      case Kind::kString:
      case Kind::kBytes:
        zero = v.str().empty();
        break;
      case Kind::kList:
        zero = v.items().empty();
        break;
      case Kind::kMap:
      case Kind::kObject:
        zero = v.map->entries.empty();
        break;
      case Kind::kTimestamp:
        zero = v.i == 0 && v.nanos == 0;
        break;
      default:
        break;
    }
    return Value::Optional(zero ? nullptr : &v);
  });
  b.Member("hasValue", {OptionalOf(A)}, BoolType(),
           [](EvalContext&, const Args& a) { return Value::Bool(!a[0].items().empty()); });
  b.Member("value", {OptionalOf(A)}, A, [](EvalContext&, const Args& a) {
    if (a[0].items().empty()) return Value::Error("optional.none() dereference");
    return a[0].items()[0];
  });
  b.Member("orValue", {OptionalOf(A), A}, A, [](EvalContext&, const Args& a) {
    return a[0].items().empty() ? a[1] : a[0].items()[0];
  });
  b.Member("or", {OptionalOf(A), OptionalOf(A)}, OptionalOf(A),
           [](EvalContext&, const Args& a) { return a[0].items().empty() ? a[1] : a[0]; });
}

}  // namespace apiextensions::cel::internal
