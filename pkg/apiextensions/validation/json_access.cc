// field.Path rendering and tolerant access to the CRD's JSON.

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation::internal {

using nlohmann::json;

std::string Child(std::string_view path, std::string_view name) {
  if (path.empty()) return std::string(name);
  std::string out(path);
  out += '.';
  out += name;
  return out;
}

std::string Key(std::string_view path, std::string_view key) {
  std::string out(path);
  out += '[';
  out += key;
  out += ']';
  return out;
}

std::string Index(std::string_view path, size_t i) { return Key(path, std::to_string(i)); }

const json* Get(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

const json* Get(const json* obj, std::string_view key) {
  return obj == nullptr ? nullptr : Get(*obj, key);
}

std::string Str(const json* obj, std::string_view key) {
  const json* v = Get(obj, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

bool Bool(const json* obj, std::string_view key) {
  const json* v = Get(obj, key);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

std::vector<std::string> Strings(const json* obj, std::string_view key) {
  std::vector<std::string> out;
  const json* v = Get(obj, key);
  if (v == nullptr || !v->is_array()) return out;
  for (const json& e : *v) out.push_back(e.is_string() ? e.get<std::string>() : std::string());
  return out;
}

bool NonEmpty(const json* obj, std::string_view key) {
  const json* v = Get(obj, key);
  return v != nullptr && (v->is_array() || v->is_object()) && !v->empty();
}

}  // namespace apiextensions::validation::internal
