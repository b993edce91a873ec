#pragma once
// The Schema message of gnostic's OpenAPIv2.proto (with everything it holds), for the
// document encoder (openapi_v2_proto.cc). Internal to the OpenAPI v2 encoder.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/openapi/json_proto.h"

namespace endpoints::openapi::internal {

// MessageFns: Schema, SchemaItem (a Schema, or a FileSchema for {"type": "file"}) and
// ExternalDocs.
Status Schema(const nlohmann::json& value, Where& where, std::string& out);
Status SchemaItem(const nlohmann::json& value, Where& where, std::string& out);
Status ExternalDocs(const nlohmann::json& value, Where& where, std::string& out);

}  // namespace endpoints::openapi::internal
