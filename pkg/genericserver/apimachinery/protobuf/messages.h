#pragma once
// Kubernetes objects in protobuf (application/vnd.kubernetes.protobuf): every built-in kind's
// message from the generated tables, decoded into the JSON object the rest of the server
// works with, and the server's JSON objects encoded as upstream encodes them.

#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/protobuf/envelope.h"
#include "pkg/genericserver/apimachinery/protobuf/message_spec.h"

namespace apimachinery::protobuf {

// The message of a kind ("apps/v1", "Deployment"), or nullptr when the kind has none
// (custom resources, Table).
const MessageSpec* FindKind(std::string_view api_version, std::string_view kind);
inline bool KnowsKind(std::string_view api_version, std::string_view kind) {
  return FindKind(api_version, kind) != nullptr;
}

// The object in envelope.raw as JSON, exactly as the same object sent as JSON would decode:
// {"apiVersion","kind","metadata":{...},...} with the fields Go's encoding/json writes for it
// (omitempty fields at their zero value left out, structs always present, nil slices and maps
// of fields without omitempty as null, "creationTimestamp":null for an unset one). Unknown
// field numbers are skipped. An unknown kind or malformed bytes give an error message.
std::expected<nlohmann::json, std::string> ToJSON(const Envelope& envelope);

// The object (with its apiVersion and kind) as a protobuf body: the magic, the envelope and
// its message; std::nullopt when its kind has no message.
std::optional<std::string> EncodeObject(const nlohmann::json& object);

// The object's message alone (no envelope), by its apiVersion and kind: what a list holds
// for each item; std::nullopt as above.
std::optional<std::string> EncodeMessageOf(const nlohmann::json& object);
// A list body (magic, envelope and message) from the list's metadata and the messages of
// its items; std::nullopt when the list kind has no message.
std::optional<std::string> EncodeList(std::string_view api_version, std::string_view list_kind,
                                      const nlohmann::json& list_metadata,
                                      const std::vector<std::shared_ptr<const std::string>>& items);
// An object body from its message (EncodeMessageOf).
std::string EncodeObjectFromMessage(std::string_view api_version, std::string_view kind,
                                    std::string_view message);
// A watch event frame's message from the object's body (EncodeObject); see below.
std::string EncodeWatchEventFromBody(std::string_view type, std::string_view body);

// A watch event as the message of one protobuf watch frame (metav1.WatchEvent, without
// envelope: {1 type, 2 object}, the object a protobuf body); std::nullopt as above.
std::optional<std::string> EncodeWatchEvent(std::string_view type, const nlohmann::json& object);

}  // namespace apimachinery::protobuf
