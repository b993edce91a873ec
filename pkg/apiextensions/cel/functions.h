#pragma once
// The function library: every overload with its static signature (for the checker) and its
// implementation (for the interpreter). Covers CEL's standard functions and operators, the
// cel-go extension libraries Kubernetes enables for CRD rules (strings v2, sets, two-variable
// comprehensions' helpers) and Kubernetes' own (lists, regex, urls, quantity).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/apiextensions/cel/value.h"

namespace apiextensions::cel {

// Thrown when an evaluation goes over its cost limit; the message is cel-go's.
struct CostLimitExceeded {};

// The runtime context an implementation may charge cost to.
class EvalContext {
 public:
  explicit EvalContext(int64_t limit) : limit_(limit) {}
  void AddCost(int64_t c) {
    cost_ += c;
    if (cost_ > limit_) throw CostLimitExceeded{};
  }
  int64_t cost() const { return cost_; }

 private:
  int64_t cost_ = 0;
  int64_t limit_;
};

using Impl = std::function<Value(EvalContext&, const std::vector<Value>&)>;

struct Overload {
  std::string function;
  bool member = false;
  std::vector<TypePtr> params;  // the receiver first for member overloads
  TypePtr result;
  Impl impl;
  // When set, the kinds the type parameter "A" may bind to (dyn always may).
  std::vector<TypeKind> a_allowed;
};

// The overloads of a function name (both global and member), nullptr when none.
const std::vector<Overload>* FindFunction(std::string_view name);

// Whether argument values fit the overload's parameters by kind (for dispatch at run time,
// where dyn values meet several candidate overloads).
bool RuntimeMatches(const Overload& o, const std::vector<Value>& args);

// Qualified global functions written as `ns.fn(...)`: "optional.of", "sets.contains", ...
bool IsQualifiedFunction(std::string_view name);

// Helpers shared with the interpreter.
Value ParseDuration(std::string_view text);   // Go's time.ParseDuration; error value if invalid
Value ParseTimestamp(std::string_view text);  // RFC 3339; error value if invalid
std::string FormatTimestamp(const Value& ts);
std::string FormatDuration(int64_t nanos);
Value StringOf(const Value& v);  // string(v); error value when not convertible

}  // namespace apiextensions::cel
