#pragma once
// The apimachinery types whose protobuf message and JSON form differ (internal to
// apimachinery/protobuf): metav1.Time, MicroTime and Duration, resource.Quantity,
// intstr.IntOrString, runtime.RawExtension, metav1.FieldsV1 and the []string wrappers such as
// ExtraValue.

#include <expected>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/protobuf/message_spec.h"

namespace apimachinery::protobuf {

// Whether kind is one of the types above (decoded by DecodeWellKnown, not by a table).
bool IsWellKnown(Kind kind);

// The JSON value of one occurrence of such a message, as its Go type's unmarshalling and then
// MarshalJSON would give it:
// - Time / MicroTime: empty bytes or Go's zero time give null; otherwise RFC 3339 in UTC.
// - Duration: Go's form of the nanoseconds ("1m30s").
// - Quantity: its string; an absent string is the zero Quantity, "0"; an unparsable one an error.
// - IntOrString: intVal when type is 0, strVal when 1; any other type is an error.
// - RawExtension / FieldsV1: the JSON document in the raw bytes (null when there are none); an
//   error when they are not JSON.
// - StringList: the items as an array, null when there are none.
std::expected<nlohmann::json, std::string> DecodeWellKnown(Kind kind, std::string_view bytes);

// The JSON value of the type's Go zero value (for a field absent from the wire).
nlohmann::json WellKnownZero(Kind kind);

// The message of such a JSON value, as Go's marshalling writes it (the inverse of
// DecodeWellKnown; a zero Time is no bytes at all). A value of the wrong JSON type is
// written as the zero value.
std::string EncodeWellKnown(Kind kind, const nlohmann::json& value);

}  // namespace apimachinery::protobuf
