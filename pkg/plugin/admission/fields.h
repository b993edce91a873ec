#pragma once
// Reading the objects admission plugins get without assuming their shape (a field that is
// absent or of another type reads as null), and quantities written as strings or numbers.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/util/quantity.h"

namespace plugin::admission {

// object[key]; null when object is not an object or lacks the key.
inline const nlohmann::json& Field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kNull;
  auto it = object.is_object() ? object.find(key) : object.end();
  return it != object.end() ? *it : kNull;
}

// A resource.Quantity from its JSON ("500m", or a number); std::nullopt otherwise.
inline std::optional<util::Quantity> ParseQuantity(const nlohmann::json& v) {
  if (v.is_string()) return util::Quantity::Parse(v.get<std::string>());
  if (v.is_number()) return util::Quantity::Parse(v.dump());
  return std::nullopt;
}

}  // namespace plugin::admission
