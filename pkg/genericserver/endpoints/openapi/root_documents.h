#pragma once
// The documents upstream's index lists beside the group-versions: "api" (GET /api/),
// "apis" (GET /apis/), "apis/<group>" (GET /apis/<group>/) and "version" (GET /version/).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace endpoints::openapi {

// The root document keys for these groups ("" is the core group), sorted.
std::vector<std::string> RootDocumentKeys(const std::vector<std::string>& groups);

// The document of a key RootDocumentKeys returns.
nlohmann::json BuildRootDocument(std::string_view key);

}  // namespace endpoints::openapi
