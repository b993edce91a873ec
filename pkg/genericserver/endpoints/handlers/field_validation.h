#pragma once
// fieldValidation (Ignore, Warn — the default — or Strict) of a body against the kind's
// schema: unknown fields are dropped, as typed decoding drops them upstream, and
// reported in Warning headers (Warn) or refused with 400 (Strict); so are fields given
// twice in the JSON text.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/handlers/handlers.h"

namespace endpoints::handlers {

// For create and update bodies: reads ?fieldValidation and the raw body.
registry::Result<nlohmann::json> CheckFields(const RequestContext& ctx, ResponseWriter& out,
                                             const registry::ResourceSpec& spec,
                                             nlohmann::json object);
// For an object computed from a patch: the warnings are collected, not added.
registry::Result<nlohmann::json> CheckFieldsCollecting(std::string_view directive,
                                                       const registry::ResourceSpec& spec,
                                                       nlohmann::json object,
                                                       std::vector<std::string>& warnings);
// `Warning: 299 - "<text>"` for each warning.
void AddWarnings(ResponseWriter& out, const std::vector<std::string>& warnings);

}  // namespace endpoints::handlers
