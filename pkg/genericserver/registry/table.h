#pragma once
// Server-side printing: meta.k8s.io Table and PartialObjectMetadata from a
// ResourceSpec's columns and row function (kubectl get prints what these say).

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace registry {

enum class IncludeObject { kNone, kMetadata, kObject };

// ?includeObject=None|Metadata|Object (default Metadata); std::nullopt when invalid.
std::optional<IncludeObject> ParseIncludeObject(std::string_view value);

// The column definitions (the spec's, or Name and Created At when it has none).
nlohmann::json TableColumnDefinitions(const ResourceSpec& spec);
// One row: cells plus the object in the requested form.
nlohmann::json TableRow(const ResourceSpec& spec, const nlohmann::json& object,
                        IncludeObject include, const std::string& meta_version,
                        std::chrono::system_clock::time_point now);
// A Table of rows. list_metadata: resourceVersion/continue/remainingItemCount; columns
// may be left out (watch events after the first).
nlohmann::json Table(const ResourceSpec& spec, nlohmann::json rows, nlohmann::json list_metadata,
                     const std::string& meta_version, bool with_columns);
nlohmann::json PartialObjectMetadata(const nlohmann::json& object, const std::string& meta_version);

// Ages as kubectl shows them: "45s", "5m10s", "3h", "2d5h", "3y".
std::string HumanDuration(std::chrono::system_clock::duration d);
// HumanDuration(now - creationTimestamp) of an object ("<unknown>" without one).
std::string Age(const nlohmann::json& object, std::chrono::system_clock::time_point now);

}  // namespace registry
