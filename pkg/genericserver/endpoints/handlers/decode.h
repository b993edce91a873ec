#pragma once
// Request bodies: JSON (the default), YAML or protobuf into JSON. Other media types are
// 415, malformed bodies 400, with the problem named.

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/handlers/handlers.h"

namespace endpoints::handlers {

// An object body for create and update (of `spec`'s resource: protobuf only for kinds that
// have messages; null for meta.k8s.io bodies such as DeleteOptions).
registry::Result<nlohmann::json> DecodeObject(const RequestContext& ctx,
                                              const registry::ResourceSpec* spec);
// The patch media types.
inline constexpr char kJSONPatch[] = "application/json-patch+json";
inline constexpr char kMergePatch[] = "application/merge-patch+json";
inline constexpr char kStrategicPatch[] = "application/strategic-merge-patch+json";
inline constexpr char kApplyPatch[] = "application/apply-patch+yaml";
// The patch media types a resource takes, as a 415 lists them.
std::vector<std::string> AcceptedPatchTypes(bool strategic);
// An apply body (YAML, of which JSON is a form) as JSON; a 400 otherwise.
registry::Result<nlohmann::json> ParseApplyBody(std::string_view body);

// The media type of the body, lower-case, without parameters ("" when absent).
std::string BodyMediaType(const RequestContext& ctx);
// What POST and PUT read: the write options and the body, decoded and field-checked.
struct WriteRequest {
  registry::WriteOptions options;
  nlohmann::json object;
};
registry::Result<WriteRequest> ReadWriteRequest(RequestContext& ctx, ResponseWriter& out,
                                                const registry::ResourceSpec& spec);
// Parses JSON text; a 400 Status naming the problem otherwise.
registry::Result<nlohmann::json> ParseJSON(std::string_view text);

}  // namespace endpoints::handlers
