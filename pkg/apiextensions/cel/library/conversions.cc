// CEL's type conversions: int(), uint(), double(), string(), bytes(), bool(), duration(),
// timestamp(), type() and dyn().

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "pkg/apiextensions/cel/library/internal.h"

namespace apiextensions::cel {

using internal::ValidUtf8;

Value StringOf(const Value& v) {
  switch (v.kind) {
    case Kind::kString:
      return v;
    case Kind::kInt:
      return Value::String(std::to_string(v.i));
    case Kind::kUint:
      return Value::String(std::to_string(v.u));
    case Kind::kDouble:
      return Value::String(FormatDouble(v.d));
    case Kind::kBool:
      return Value::String(v.b ? "true" : "false");
    case Kind::kBytes:
      if (!ValidUtf8(v.str()))
        return Value::Error("invalid UTF-8 in bytes, cannot convert to string");
      return Value::String(v.str());
    case Kind::kTimestamp:
      return Value::String(FormatTimestamp(v));
    case Kind::kDuration:
      return Value::String(FormatDuration(v.i));
    case Kind::kType:
      return Value::String(v.str());
    default:
      return Value::Error("type conversion error from '" + TypeName(v) + "' to 'string'");
  }
}

namespace internal {

void RegisterConversions(Builder& b) {
  auto A = Param("A");
  auto I = IntType(), U = UintType(), D = DoubleType(), S = StringType(), B = BoolType(),
       Y = BytesType();
  auto Dur = DurationType(), Ts = TimestampType();

  b.Global("int", {I}, I, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("int", {U}, I, [](EvalContext&, const Args& a) {
    if (a[0].u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return IntOverflow();
    return Value::Int(static_cast<int64_t>(a[0].u));
  });
  b.Global("int", {D}, I, [](EvalContext&, const Args& a) {
    double d = a[0].d;
    if (std::isnan(d) || d <= -9223372036854775808.0 || d >= 9223372036854775807.0)
      return IntOverflow();
    return Value::Int(static_cast<int64_t>(d));
  });
  b.Global("int", {S}, I, [](EvalContext&, const Args& a) {
    const std::string& s = a[0].str();
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() ||
        std::isspace(static_cast<unsigned char>(s[0])) ||
        (s[0] == '+' && s.size() > 1 && s[1] == '-')) {
      return Value::Error("type conversion error from 'string' to 'int'");
    }
    if (errno == ERANGE) return Value::Error("type conversion error from 'string' to 'int'");
    return Value::Int(v);
  });
  b.Global("int", {Ts}, I, [](EvalContext&, const Args& a) { return Value::Int(a[0].i); });
  b.Global("int", {Dur}, I, [](EvalContext&, const Args& a) { return Value::Int(a[0].i); });
  b.Global("uint", {U}, U, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("uint", {I}, U, [](EvalContext&, const Args& a) {
    if (a[0].i < 0) return UintOverflow();
    return Value::Uint(static_cast<uint64_t>(a[0].i));
  });
  b.Global("uint", {D}, U, [](EvalContext&, const Args& a) {
    double d = a[0].d;
    if (std::isnan(d) || d < 0 || d >= 18446744073709551616.0) return UintOverflow();
    return Value::Uint(static_cast<uint64_t>(d));
  });
  b.Global("uint", {S}, U, [](EvalContext&, const Args& a) {
    const std::string& s = a[0].str();
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() ||
        !std::isdigit(static_cast<unsigned char>(s[0]))) {
      return Value::Error("type conversion error from 'string' to 'uint'");
    }
    if (errno == ERANGE) return Value::Error("type conversion error from 'string' to 'uint'");
    return Value::Uint(v);
  });
  b.Global("double", {D}, D, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("double", {I}, D,
           [](EvalContext&, const Args& a) { return Value::Double(static_cast<double>(a[0].i)); });
  b.Global("double", {U}, D,
           [](EvalContext&, const Args& a) { return Value::Double(static_cast<double>(a[0].u)); });
  b.Global("double", {S}, D, [](EvalContext&, const Args& a) {
    const std::string& s = a[0].str();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() ||
        std::isspace(static_cast<unsigned char>(s[0]))) {
      return Value::Error("type conversion error from 'string' to 'double'");
    }
    return Value::Double(v);
  });
  for (const auto& t : {S, I, U, D, B, Y, Ts, Dur}) {
    b.Global("string", {t}, S, [](EvalContext& ctx, const Args& a) {
      if (a[0].kind == Kind::kBytes) ctx.AddCost(StrCost(a[0].str().size()));
      return StringOf(a[0]);
    });
  }
  b.Global("bytes", {Y}, Y, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("bytes", {S}, Y, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    return Value::Bytes(a[0].str());
  });
  b.Global("bool", {B}, B, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("bool", {S}, B, [](EvalContext&, const Args& a) {
    const std::string& s = a[0].str();
    if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True")
      return Value::Bool(true);
    if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False")
      return Value::Bool(false);
    return Value::Error("type conversion error from 'string' to 'bool'");
  });
  b.Global("duration", {Dur}, Dur, [](EvalContext&, const Args& a) { return a[0]; });
  // cel-go's string conversions report only the types.
  b.Global("duration", {S}, Dur, [](EvalContext&, const Args& a) {
    Value d = ParseDuration(a[0].str());
    return d.IsError()
               ? Value::Error("type conversion error from 'string' to 'google.protobuf.Duration'")
               : d;
  });
  b.Global("timestamp", {Ts}, Ts, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("timestamp", {S}, Ts, [](EvalContext&, const Args& a) {
    Value t = ParseTimestamp(a[0].str());
    return t.IsError()
               ? Value::Error("type conversion error from 'string' to 'google.protobuf.Timestamp'")
               : t;
  });
  b.Global("timestamp", {I}, Ts,
           [](EvalContext&, const Args& a) { return MakeTimestamp(a[0].i, 0); });
  b.Global("type", {A}, TypeOf(A),
           [](EvalContext&, const Args& a) { return Value::TypeValue(TypeName(a[0])); });
  b.Global("dyn", {A}, DynType(), [](EvalContext&, const Args& a) { return a[0]; });
}

}  // namespace internal

}  // namespace apiextensions::cel
