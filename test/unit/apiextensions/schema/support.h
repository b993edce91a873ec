#pragma once
// Helpers shared by the [crd-schema] tests.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/structural.h"

namespace crd_schema_test {

// The errors rendered as upstream's field.Error.Error() strings.
std::vector<std::string> Rendered(const apiextensions::schema::FieldErrors& errors);

// ValidateCustomResource of `object` against a root schema {type: object, properties: {spec:
// <spec>}}, rendered.
std::vector<std::string> ValidateSpec(const nlohmann::json& spec_schema,
                                      const nlohmann::json& spec);

}  // namespace crd_schema_test
