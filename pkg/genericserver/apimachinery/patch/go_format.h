#pragma once
// How upstream's Go code prints decoded JSON values (map[string]interface{}, []interface{},
// string, int64, float64, bool, nil) inside patch error messages, so that our messages
// match upstream's byte for byte.

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace apimachinery::patch {

// fmt's %v: map[a:1 b:map[c:x]] (keys sorted), [x y], strings unquoted, <nil>, floats as
// strconv 'g' with the shortest precision (1e+06, 1.5).
std::string GoValue(const nlohmann::json& value);

// fmt's %s: strings as is, anything else as %!s(int64=1), %!s(bool=true), %!s(<nil>);
// maps and slices element by element.
std::string GoString(const nlohmann::json& value);

// reflect.TypeOf(value) printed with %s: map[string]interface {}, []interface {}, string,
// int64, float64, bool, and %!s(<nil>) for null.
std::string GoTypeName(const nlohmann::json& value);

// The Go type a decoded value has, for "same type" comparisons (int64 and float64 differ).
enum class GoKind { kNil, kBool, kInt, kFloat, kString, kMap, kSlice };
GoKind GoKindOf(const nlohmann::json& value);

}  // namespace apimachinery::patch
