#pragma once
// The table-driven decoder: one protobuf message, by its MessageSpec, into the JSON object Go's
// encoding/json would write for the same Go value (internal to apimachinery/protobuf).

#include <expected>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/protobuf/message_spec.h"

namespace apimachinery::protobuf {

// Decodes bytes as the message spec describes, with the semantics of Go's generated
// unmarshalling (a repeated occurrence of an embedded message merges into it, of a scalar
// replaces it; unknown fields are skipped), then writes each field as encoding/json would
// (omitempty, pointers, null slices and maps, Time and the other custom marshalers). Truncated
// or malformed bytes, and a known field with the wrong wire type, give an error message.
std::expected<nlohmann::json, std::string> DecodeMessage(const MessageSpec& spec,
                                                         std::string_view bytes);

}  // namespace apimachinery::protobuf
