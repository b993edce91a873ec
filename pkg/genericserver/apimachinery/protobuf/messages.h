#pragma once
// Kubernetes objects sent as protobuf (kubectl 1.32's typed clients do so for the generator forms
// of `kubectl create`, `auth can-i` and `auth whoami`), turned into the JSON object the rest of
// the server works with.

#include <expected>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/protobuf/envelope.h"

namespace apimachinery::protobuf {

// Whether ToJSON knows the kind of this group-version ("v1", "authorization.k8s.io/v1").
bool KnowsKind(std::string_view api_version, std::string_view kind);

// The object in envelope.raw as JSON, exactly as the same object sent as JSON would decode:
// {"apiVersion","kind","metadata":{...},...} with the fields Go's encoding/json writes for it
// (omitempty fields at their zero value left out, structs always present, nil slices and maps
// of fields without omitempty as null, "creationTimestamp":null for an unset one). Unknown
// field numbers are skipped. An unknown kind or malformed bytes give an error message.
std::expected<nlohmann::json, std::string> ToJSON(const Envelope& envelope);

}  // namespace apimachinery::protobuf
