#pragma once
// What ConfigMaps and Secrets share: key rules for data maps, the size limit, and
// immutability (`immutable: true` freezes the data).

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/strategy.h"

namespace master::resources {

// Upstream's MaxSecretSize, which also bounds ConfigMaps: 1 MiB.
inline constexpr size_t kMaxDataSize = 1024 * 1024;

// Errors for the keys of object[field] (data, binaryData): each a valid config key.
void ValidateDataKeys(const nlohmann::json& object, const std::string& field,
                      registry::FieldErrors& errors);
// The decoded size of a map of base64 values (Secret data, ConfigMap binaryData) or of
// plain strings (ConfigMap data).
size_t DataSize(const nlohmann::json& object, const std::string& field, bool base64);
// Forbidden changes once the old object was immutable.
void ValidateImmutable(const nlohmann::json& object, const nlohmann::json& old,
                       std::initializer_list<const char*> fields, registry::FieldErrors& errors);
// The reason a map of base64 values does not decode as Go's []byte would, else "".
std::string CheckBase64Map(const nlohmann::json& object, const std::string& field);
// Drops object[field] when it is empty or null (as upstream's omitempty encoding).
void DropEmpty(nlohmann::json& object, const char* field);
// The number of entries of object[field] (0 when absent).
size_t Count(const nlohmann::json& object, const char* field);

}  // namespace master::resources
