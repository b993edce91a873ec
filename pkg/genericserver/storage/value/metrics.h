#pragma once
// apiserver_storage_transformation_operations_total as upstream counts it: each value a
// provider of --encryption-provider-config read (from_storage) or wrote (to_storage), by
// provider prefix and outcome. Process-wide, thread-safe.

#include <string>
#include <string_view>

namespace storage::value {

void CountTransformation(std::string_view type, std::string_view prefix, bool ok);
// The family in the Prometheus text format ("" before any value was transformed).
std::string RenderMetrics();

}  // namespace storage::value
