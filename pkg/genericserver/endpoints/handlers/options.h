#pragma once
// Query parameters of the REST verbs, validated as upstream validates them.

#include <optional>

#include "pkg/genericserver/endpoints/handlers/handlers.h"

namespace endpoints::handlers {

// A whole decimal integer, as Go's strconv.ParseInt reads query parameters.
std::optional<int64_t> ParseInt(std::string_view s);

registry::Result<registry::ListOptions> ParseListOptions(const RequestContext& ctx, bool watch);
// dryRun and fieldManager of a write.
registry::Result<registry::WriteOptions> ParseWriteOptions(RequestContext& ctx);
// ?force of a PATCH: only for apply (422 otherwise), a Go boolean.
registry::Result<bool> ParseForce(const RequestContext& ctx, bool apply);
// An apply names its manager: ?fieldManager, or a 422.
registry::Result<void> RequireApplyFieldManager(const RequestContext& ctx);
// ?fieldValidation=Ignore|Warn|Strict ("" is the default); 400 for anything else.
registry::Result<std::string> ParseFieldValidation(const RequestContext& ctx);

}  // namespace endpoints::handlers
