#pragma once
// The Swagger 2.0 document of /openapi/v2 as upstream's generic server publishes it, derived
// from our OpenAPI v3 documents: paths with v2 parameters, bodies and responses;
// components.schemas as definitions in their v2 form. Every definition passes kubectl's v2
// parser (kube-openapi's proto.NewOpenAPIData) and gnostic's document parser:
// - references are plain {"$ref": "#/definitions/X"} (v3's lone allOf is unwrapped) with no
//   `type` or `properties` beside them;
// - no `default` anywhere (upstream prunes them from v2), no `nullable`, no junctors
//   (oneOf, anyOf, not); the types v3 describes with junctors have upstream's v2 form
//   (IntOrString {"type": "string", "format": "int-or-string"}, Quantity {"type": "string"});
// - no empty `properties` (kubectl would read an object that allows no field).

#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace endpoints::openapi {

// The v2 document of `v3_documents` (group-version and root documents, in the order their
// paths and definitions are taken: the first of a name wins). `definitions_v2` (an object,
// may be null) holds definitions already in v2 form that replace the derived ones of the
// same name (custom resources).
nlohmann::json ToSwagger(const std::vector<nlohmann::json>& v3_documents,
                         const nlohmann::json* definitions_v2 = nullptr);

// A v3 schema in v2 form, as above.
nlohmann::json SchemaToV2(const nlohmann::json& schema);

}  // namespace endpoints::openapi
