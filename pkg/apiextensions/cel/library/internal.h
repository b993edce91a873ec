#pragma once
// Shared by the files of the CEL function library (library.cc and library/*.cc), not part of
// its interface (functions.h).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/apiextensions/cel/functions.h"

namespace apiextensions::cel::internal {

using Args = std::vector<Value>;

// --- Registry -------------------------------------------------------------------------------

using Registry = std::unordered_map<std::string, std::vector<Overload>>;

class Builder {
 public:
  explicit Builder(Registry& r) : r_(r) {}
  void Global(const std::string& fn, std::vector<TypePtr> params, TypePtr result, Impl impl,
              std::vector<TypeKind> a_allowed = {}) {
    r_[fn].push_back(Overload{fn, false, std::move(params), std::move(result), std::move(impl),
                              std::move(a_allowed)});
  }
  void Member(const std::string& fn, std::vector<TypePtr> params, TypePtr result, Impl impl,
              std::vector<TypeKind> a_allowed = {}) {
    r_[fn].push_back(Overload{fn, true, std::move(params), std::move(result), std::move(impl),
                              std::move(a_allowed)});
  }

 private:
  Registry& r_;
};

// Each library adds its overloads; library.cc calls them in this order.
void RegisterOperators(Builder& b);    // library/operators.cc
void RegisterConversions(Builder& b);  // library/conversions.cc
void RegisterTime(Builder& b);         // library/time.cc
void RegisterStrings(Builder& b);      // library/strings.cc
void RegisterLists(Builder& b);        // library/lists.cc
void RegisterOptional(Builder& b);     // library/optional.cc
void RegisterQuantity(Builder& b);     // library/quantity.cc
void RegisterUrls(Builder& b);         // library/urls.cc
void RegisterNet(Builder& b);          // library/net.cc

// --- Costs ----------------------------------------------------------------------------------

inline int64_t StrCost(size_t len) {
  return static_cast<int64_t>(std::ceil(0.1 * static_cast<double>(len)));
}

// --- Arithmetic -------------------------------------------------------------------------------

inline Value IntOverflow() { return Value::Error("integer overflow"); }
inline Value UintOverflow() { return Value::Error("unsigned integer overflow"); }

// --- UTF-8 helpers (library/utf8.cc) ----------------------------------------------------------

size_t CpLen(unsigned char c);  // the length of the code point a lead byte starts
int64_t CpCount(std::string_view s);
bool ValidUtf8(std::string_view s);

// --- Time (library/time.cc) -------------------------------------------------------------------

inline constexpr int64_t kNanosPerSecond = 1000000000;

// A timestamp, normalized; an error value outside the years 0001..9999.
Value MakeTimestamp(int64_t seconds, int64_t nanos);

// --- Strings (library/strings.cc, library/format.cc) ------------------------------------------

// The double-quoted literal strings.quote() returns (also in error texts).
std::string Quote(std::string_view s);

// The strings library's format(): the clauses of fmt applied to the list's values.
Value Format(EvalContext& ctx, const std::string& fmt, const Value& list);

}  // namespace apiextensions::cel::internal
