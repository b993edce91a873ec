#include "pkg/apiextensions/schema/structural.h"

#include <nlohmann/json.hpp>

namespace apiextensions::schema {

// Placeholder implementations; replaced by the schema work.
FieldErrors ValidateCustomResource(const nlohmann::json&, const nlohmann::json&) { return {}; }
std::vector<std::string> PruneCustomResource(nlohmann::json&, const nlohmann::json&) { return {}; }
void ApplyDefaults(nlohmann::json&, const nlohmann::json&) {}

}  // namespace apiextensions::schema
