#pragma once
// The tables that drive the decoder: for each protobuf message, its field numbers with the JSON
// name, the value kind and how Go's encoding/json writes the field (omitempty, pointer, ...).
// Adding a kind is adding a MessageSpec (see tables_*.cc) and a line in messages.cc.

#include <cstdint>
#include <span>
#include <string_view>

namespace apimachinery::protobuf {

// The value of one field (or of one element of a repeated field, or of a map entry's value).
enum class Kind : std::uint8_t {
  kString,        // string: JSON string (invalid UTF-8 replaced as Go's encoder does)
  kBytes,         // []byte: base64 JSON string
  kInt32,         // varint, truncated to 32 bits
  kInt64,         // varint
  kBool,          // varint, non-zero is true
  kMessage,       // embedded message: JSON object by its own table
  kTime,          // metav1.Time {1 seconds, 2 nanos}: RFC 3339 in UTC, null when zero
  kMicroTime,     // metav1.MicroTime: RFC 3339 with microseconds, null when zero
  kQuantity,      // resource.Quantity {1 string}: JSON string
  kIntOrString,   // intstr.IntOrString {1 type, 2 intVal, 3 strVal}: JSON number or string
  kRawExtension,  // runtime.RawExtension {1 raw}: the JSON document in raw, null when absent
  kFieldsV1,      // metav1.FieldsV1 {1 Raw}: the JSON document in Raw, null when absent
  kStringList,    // a nullable []string wrapper such as ExtraValue {1 items}: array or null
};

enum class Label : std::uint8_t {
  kSingle,
  kRepeated,  // one element per occurrence (numbers also packed)
  kMap,       // map<string, kind>: entries {1 key, 2 value}
};

// How the Go field is written by encoding/json. Struct-valued kinds (kMessage, kTime,
// kMicroTime, kQuantity, kIntOrString, kRawExtension) are never omitted unless they are
// pointers, whatever the tag says, so they take kAlways or a pointer mode.
enum class Emit : std::uint8_t {
  kOmitEmpty,        // `json:",omitempty"` on a value: omitted when zero or empty
  kAlways,           // no omitempty (or a struct): written even when absent, as its zero value
  kPointer,          // *T with omitempty: written only when present on the wire
  kNullablePointer,  // *T without omitempty: the value when present, else null
};

struct MessageSpec;

struct FieldSpec {
  std::int32_t number = 0;
  std::string_view json_name;
  Kind kind = Kind::kString;
  Label label = Label::kSingle;
  Emit emit = Emit::kOmitEmpty;
  const MessageSpec* message = nullptr;  // for Kind::kMessage
};

struct MessageSpec {
  std::string_view name;  // the Go type, for error messages
  std::span<const FieldSpec> fields;
};

// Builders that keep the tables short.
constexpr FieldSpec Field(std::int32_t number, std::string_view name, Kind kind,
                          Emit emit = Emit::kOmitEmpty) {
  return FieldSpec{number, name, kind, Label::kSingle, emit, nullptr};
}
constexpr FieldSpec Message(std::int32_t number, std::string_view name, const MessageSpec& spec,
                            Emit emit = Emit::kAlways) {
  return FieldSpec{number, name, Kind::kMessage, Label::kSingle, emit, &spec};
}
constexpr FieldSpec Repeated(std::int32_t number, std::string_view name, Kind kind,
                             Emit emit = Emit::kOmitEmpty) {
  return FieldSpec{number, name, kind, Label::kRepeated, emit, nullptr};
}
constexpr FieldSpec RepeatedMessage(std::int32_t number, std::string_view name,
                                    const MessageSpec& spec, Emit emit = Emit::kOmitEmpty) {
  return FieldSpec{number, name, Kind::kMessage, Label::kRepeated, emit, &spec};
}
constexpr FieldSpec Map(std::int32_t number, std::string_view name, Kind value,
                        Emit emit = Emit::kOmitEmpty) {
  return FieldSpec{number, name, value, Label::kMap, emit, nullptr};
}

}  // namespace apimachinery::protobuf
