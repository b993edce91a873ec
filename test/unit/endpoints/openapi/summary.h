#pragma once
// What the upstream comparisons compare of a path item: operation ids, tags, the
// x-kubernetes-* extensions, parameters ("in:name:type[:required]", at path or operation
// level), request body and response content types with their schemas. Descriptions are not
// compared, nor parameters upstream added after v1.26 (the reference's release):
// sendInitialEvents (1.27), ignoreStoreReadErrorWithClusterBreakingPotential and the pod log
// "stream" (1.32), nor requestBody.required (kube-openapi sets it since).

#include <nlohmann/json.hpp>

namespace openapi_test {

nlohmann::json Summary(const nlohmann::json& path_item);

}  // namespace openapi_test
