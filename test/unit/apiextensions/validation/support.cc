#include "test/unit/apiextensions/validation/support.h"

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/crd_validation.h"

namespace crdval_test {

namespace val = apiextensions::validation;
using nlohmann::json;

namespace {

std::vector<std::string> Render(const val::FieldErrors& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(apimachinery::validation::ErrorString(e));
  return out;
}

}  // namespace

json ValidCRD() {
  return json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
      "group": "example.com",
      "scope": "Namespaced",
      "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                "listKind": "WidgetList"},
      "versions": [{
        "name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {
          "type": "object",
          "properties": {"spec": {"type": "object",
                                  "properties": {"replicas": {"type": "integer"}}}}
        }}
      }],
      "conversion": {"strategy": "None"}
    },
    "status": {"storedVersions": ["v1"]}
  })");
}

json WithSchema(const json& schema) {
  json crd = ValidCRD();
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = schema;
  return crd;
}

json SpecSchema(const json& spec) {
  return json{{"type", "object"}, {"properties", {{"spec", spec}}}};
}

std::vector<std::string> Create(const json& crd) {
  return Render(val::ValidateCustomResourceDefinition(crd));
}

std::vector<std::string> Update(const json& crd, const json& old) {
  return Render(val::ValidateCustomResourceDefinitionUpdate(crd, old));
}

std::vector<std::string> StatusUpdate(const json& crd, const json& old) {
  return Render(val::ValidateCustomResourceDefinitionStatusUpdate(crd, old));
}

}  // namespace crdval_test
