#pragma once
// Writing objects and lists in the form the client negotiated (JSON, YAML, protobuf, Table,
// PartialObjectMetadata). Stored JSON is sent as it is whenever the form allows: a GET
// costs a copy of the bytes, not an encode.

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/negotiation.h"
#include "pkg/genericserver/storage/interface.h"

namespace endpoints::handlers {

// The negotiated output for this request (protobuf only for a resource whose kind has a
// message); on failure the 406 was written.
Awaitable<std::optional<OutputTarget>> Negotiate(RequestContext& ctx, ResponseWriter& out,
                                                 const Scope& scope, bool streaming);
// Whether the resource's objects have a protobuf form (built-in kinds).
bool ServesProtobuf(const registry::ResourceSpec& spec);
inline constexpr char kProtobufType[] = "application/vnd.kubernetes.protobuf";
// ?pretty=true, or a human's client (curl, wget, a browser), as upstream decides.
bool Pretty(const RequestContext& ctx);

Awaitable<void> WriteObject(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                            const OutputTarget& target, int code, const storage::Object& object);
Awaitable<void> WriteList(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                          const OutputTarget& target, const storage::ListResult& list);
// Any document (a Status, a list of deleted objects, a Table) in the negotiated form: YAML,
// protobuf when the target asks for it and the document's kind has a message, else JSON.
Awaitable<void> WriteDocument(RequestContext& ctx, ResponseWriter& out, const OutputTarget& target,
                              int code, const nlohmann::json& document);
// The PartialObjectMetadata of one object of the scope's resource (a 406 when the target asks
// for a list).
Awaitable<void> WriteObjectMetadata(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                                    const OutputTarget& target, int code,
                                    const nlohmann::json& object);
// An API error about the scope's resource: the Status in JSON, YAML when asked for, or
// protobuf when asked for and the resource is served in protobuf (never for custom
// resources, whose errors are JSON as upstream's).
Awaitable<void> WriteError(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                           const apimachinery::Status& status);

// The object's protobuf message, encoded once per stored version and then shared (see
// storage::Object::protobuf); null when its kind has no message.
std::shared_ptr<const std::string> ProtobufMessage(const storage::Object& object);

// The content type of a response in this form.
std::string ContentType(const OutputTarget& target);

}  // namespace endpoints::handlers
