#pragma once
// metadata.resourceVersion is the storage revision, not part of the stored bytes: it is
// removed before a write and set on every read, as upstream's APIObjectVersioner does.
// Editing the JSON text in place costs one copy, not a parse and an encode.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace storage {

// json with metadata.resourceVersion set to the decimal revision (added if missing), or
// removed when revision is 0. std::nullopt when json is not a JSON object.
std::optional<std::string> WithResourceVersion(std::string_view json, int64_t revision);

// The values of metadata.uid and metadata.resourceVersion ("" when absent).
struct MetaFields {
  std::string uid;
  std::string resource_version;
};
std::optional<MetaFields> ReadMetaFields(std::string_view json);

}  // namespace storage
