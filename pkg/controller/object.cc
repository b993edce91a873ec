#include "pkg/controller/object.h"

#include <nlohmann/json.hpp>

namespace controller {

using nlohmann::json;

const json& Field(const json& object, std::string_view key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string Str(const json& object, std::string_view key) {
  const json& v = Field(object, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::string Meta(const json& object, std::string_view field) {
  return Str(Field(object, "metadata"), field);
}

std::string Annotation(const json& object, std::string_view key) {
  return Str(Field(Field(object, "metadata"), "annotations"), key);
}

json DeleteOptionsWithUID(std::string_view uid, std::string_view propagation_policy) {
  json options = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!propagation_policy.empty()) options["propagationPolicy"] = std::string(propagation_policy);
  if (!uid.empty()) options["preconditions"] = {{"uid", std::string(uid)}};
  return options;
}

}  // namespace controller
