#pragma once
// Null-safe reads of JSON objects for this folder's .cc files (not a public header: it
// includes nlohmann/json). Pure.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace controller::resourcequota {

// object[key], or null when object is not an object or lacks the key.
inline const nlohmann::json& Sub(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// object[key] when it is a string, else "".
inline std::string Str(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json& v = Sub(object, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

}  // namespace controller::resourcequota
