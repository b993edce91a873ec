#pragma once
// The table-driven encoder: a JSON object into the protobuf message Go's generated marshalling
// writes for the same Go value (internal to apimachinery/protobuf).

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/protobuf/message_spec.h"

namespace apimachinery::protobuf {

// The message's fields in ascending number: a value present in `object` is written; an
// absent (or null) field is written as its zero value unless it is a pointer, a repeated
// field or a map (as Go writes every non-pointer field); map entries sorted by key. JSON
// keys without a field (apiVersion, kind, fields of later releases) are not written.
std::string EncodeMessage(const MessageSpec& spec, const nlohmann::json& object);

}  // namespace apimachinery::protobuf
