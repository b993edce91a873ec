#include "test/unit/apiextensions/schema/support.h"

namespace crd_schema_test {

std::vector<std::string> Rendered(const apiextensions::schema::FieldErrors& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(apimachinery::validation::ErrorString(e));
  return out;
}

std::vector<std::string> ValidateSpec(const nlohmann::json& spec_schema,
                                      const nlohmann::json& spec) {
  nlohmann::json schema = {{"type", "object"}, {"properties", {{"spec", spec_schema}}}};
  nlohmann::json object = {{"apiVersion", "example.com/v1"},
                           {"kind", "Widget"},
                           {"metadata", {{"name", "w"}}},
                           {"spec", spec}};
  return Rendered(apiextensions::schema::ValidateCustomResource(schema, object));
}

}  // namespace crd_schema_test
