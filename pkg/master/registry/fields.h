#pragma once
// Reading fields of built-in objects that may be missing or of the wrong type (a stored
// object is valid, a table row or a defaulter may see anything).

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace master::resources {

// object[key] when it is an object, else an empty object.
inline const nlohmann::json& Sub(const nlohmann::json& object, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  if (!object.is_object()) return empty;
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : empty;
}

// object[key] unless absent or null (a Go pointer that is set).
inline const nlohmann::json* Present(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it != object.end() && !it->is_null() ? &*it : nullptr;
}

// object[key] when it is a string, else "".
inline std::string Str(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// object[key] when it is an integer, else fallback.
inline int64_t Int(const nlohmann::json& object, const char* key, int64_t fallback = 0) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

// object[key] when it is an array, else an empty array.
inline const nlohmann::json& List(const nlohmann::json& object, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!object.is_object()) return empty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : empty;
}

// object[key], made an object when absent or not one.
inline nlohmann::json& Child(nlohmann::json& object, const char* key) {
  nlohmann::json& child = object[key];
  if (!child.is_object()) child = nlohmann::json::object();
  return child;
}

// Sets key to value when the object lacks it (or has null there).
inline void SetDefault(nlohmann::json& object, const char* key, const nlohmann::json& value) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) object[key] = value;
}

// A request-only kind's answer (the reviews): the request as sent, its metadata as Go writes
// an unset one, with `status`.
inline nlohmann::json AnswerWithStatus(nlohmann::json request, nlohmann::json status) {
  nlohmann::json& meta = Child(request, "metadata");
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
  request["status"] = std::move(status);
  return request;
}

}  // namespace master::resources
