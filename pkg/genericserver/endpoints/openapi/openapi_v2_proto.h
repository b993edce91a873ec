#pragma once
// The protobuf form of /openapi/v2: the gnostic `openapi.v2.Document` (OpenAPIv2.proto) that
// upstream's handler makes of the JSON document (gnostic's ParseDocument, then
// proto.Marshal), which is what kubectl unmarshals (client-go's OpenAPISchema asks for
// nothing else).
//
// The mapping is gnostic's: maps become repeated Named* entries in the document's order,
// "x-" properties NamedAny entries whose `Any.yaml` is the value as go-yaml v3 writes it
// (as are default, example and each enum value), a parameter {"$ref"} a JsonReference, a
// boolean additionalProperties the oneof's boolean (written even when false).

#include <expected>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace endpoints::openapi {

// The encoded Document of a Swagger 2.0 document. Fails where gnostic's ParseDocument would
// (a property the message does not have, a missing required one, a value of the wrong type
// or outside its enumeration), with where and why:
// "$root.paths./api/v1/pods.get: has invalid property: foo". Upstream has no protobuf form
// of such a document either (it answers 503).
std::expected<std::string, std::string> EncodeOpenAPIV2Proto(const nlohmann::json& document);

}  // namespace endpoints::openapi
