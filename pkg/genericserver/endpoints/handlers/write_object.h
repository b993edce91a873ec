#pragma once
// Writing objects and lists in the form the client negotiated (JSON, YAML, Table,
// PartialObjectMetadata). Stored JSON is sent as it is whenever the form allows: a GET
// costs a copy of the bytes, not an encode.

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/negotiation.h"
#include "pkg/genericserver/storage/interface.h"

namespace endpoints::handlers {

// The negotiated output for this request; on failure the 406 was written.
Awaitable<std::optional<OutputTarget>> Negotiate(RequestContext& ctx, ResponseWriter& out,
                                                 bool streaming);
// ?pretty=true, or a human's client (curl, wget, a browser), as upstream decides.
bool Pretty(const RequestContext& ctx);

Awaitable<void> WriteObject(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                            const OutputTarget& target, int code, const storage::Object& object);
Awaitable<void> WriteList(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                          const OutputTarget& target, const storage::ListResult& list);
// Any JSON document (a Status, a list of deleted objects) in JSON or YAML.
Awaitable<void> WriteDocument(RequestContext& ctx, ResponseWriter& out, const OutputTarget& target,
                              int code, const nlohmann::json& document);
// An API error: the Status in JSON (YAML when asked for).
Awaitable<void> WriteError(RequestContext& ctx, ResponseWriter& out,
                           const apimachinery::Status& status);

// The content type of a response in this form.
std::string ContentType(const OutputTarget& target);

}  // namespace endpoints::handlers
