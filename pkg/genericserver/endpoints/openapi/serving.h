#pragma once
// What the OpenAPI v2 and v3 handlers share: Accept matching and the schemas custom
// resources borrow.

#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/discovery.h"

namespace endpoints::openapi {

// Whether an Accept header allows the JSON form (no Accept is */*).
bool AcceptsJSON(std::optional<std::string_view> accept);

// The first components map that has the meta schemas (ObjectMeta, Status, ...): what
// custom resources borrow. Null when no served group has one.
const nlohmann::json* SharedSchemas(const std::vector<APIGroupInfo>& groups);

}  // namespace endpoints::openapi
