#pragma once
// JSON values as upstream's Go code holds and prints them.
//
// Custom resources are decoded upstream into unstructured Go values (k8s.io/apimachinery
// util/json): objects become map[string]interface{}, arrays []interface{}, and a number becomes
// an int64 when its literal is an integer that fits (strconv.ParseInt succeeds), a float64
// otherwise ("1.0", "1e3" and 2^63 are float64). Error messages then print those values with
// fmt's %v / %#v and encoding/json; the functions here reproduce that.

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace apiextensions::schema {

// The Go type an unstructured JSON value has upstream.
enum class GoKind { kNull, kBool, kInt64, kFloat64, kString, kSlice, kMap };

GoKind KindOf(const nlohmann::json& value);
// The number as a float64 (any number kind); 0 for non-numbers.
double AsFloat64(const nlohmann::json& value);
// The number as an int64 (kInt64 only; 0 otherwise).
int64_t AsInt64(const nlohmann::json& value);

// Go's int64(f) conversion on amd64: truncation toward zero; NaN and values out of range give
// math.MinInt64 (what CVTTSD2SQ yields).
int64_t GoFloatToInt64(double f);

// fmt's %v (and %#v) of a float64: strconv 'g' with the shortest digits, in exponent form when
// the decimal exponent is < -4 or >= 6 ("1", "1.5", "123456", "1e+06", "0.0001", "1e-05").
std::string GoFloatV(double f);

// encoding/json's float64 encoding: 'f' for 1e-6 <= |f| < 1e21, else 'e' with "e-07" shortened
// to "e-7" ("1", "1.5", "1e+21", "1e-7").
std::string GoJSONFloat(double f);

// %v of an int64, float64 or bool value; for other kinds GoSharpV.
std::string GoScalarV(const nlohmann::json& value);

// %#v of an unstructured value held in an interface{}: `map[string]interface {}{"a":1}`,
// `[]interface {}{"x", 1.5}`, `"s"`, `true`, `interface {}(nil)`. Map keys sorted, as fmt sorts
// them.
std::string GoSharpV(const nlohmann::json& value);

// encoding/json.Marshal of an unstructured value: compact, keys sorted, <, > and & escaped as
// \u003c, \u003e and \u0026, floats as GoJSONFloat.
std::string GoJSONMarshal(const nlohmann::json& value);

// Sets error.bad_value and error.value_form so that ErrorBody prints `value` as upstream's
// field.Error.ErrorBody prints the interface{} holding it: a string with %q, int64 / float64 /
// bool with %v, nil as "null" (quoted, since ErrorBody substitutes the string "null"), maps and
// slices with %#v.
void SetBadValue(apimachinery::validation::FieldError& error, const nlohmann::json& value);

// The same for a value that upstream holds as a Go int (sizes, counts): printed with %v.
void SetBadValueInt(apimachinery::validation::FieldError& error, int64_t value);

}  // namespace apiextensions::schema
