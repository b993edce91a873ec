#pragma once
// Routes to an OpenAPI "paths" object, laid out as kube-openapi's builder3 lays them out:
// one path item per path; parameters every operation of a path shares move to the path item;
// parameters sorted by name then location; the common 401 on every operation.

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/openapi/routes.h"
#include "pkg/genericserver/endpoints/openapi/schema_set.h"

namespace endpoints::openapi {

// Schemas are resolved through `schemas` (which may borrow what they refer to).
// Deviation: "fieldValidation" never moves off a PATCH operation (a path with nothing but a
// PATCH would otherwise hide it from kubectl, which reads only the operation's own list).
nlohmann::json RenderPaths(const std::vector<Route>& routes, SchemaSet& schemas);

}  // namespace endpoints::openapi
