#pragma once
// The tables that drive the codec: for each protobuf message of the API, its fields with
// number, JSON name, value kind, and what Go's types say about them (a pointer or not;
// omitempty or not in the JSON tag). Generated from upstream's
// descriptors by tools/gen_protobuf.py into generated/; nothing here is per kind.

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
  kInline,        // embedded Go struct whose fields JSON writes in the parent (VolumeSource)
  kTime,          // metav1.Time {1 seconds, 2 nanos}: RFC 3339 in UTC, null when zero
  kMicroTime,     // metav1.MicroTime: RFC 3339 with microseconds, null when zero
  kDuration,      // metav1.Duration {1 duration (ns)}: Go's "1h2m3s" form
  kQuantity,      // resource.Quantity {1 string}: JSON string
  kIntOrString,   // intstr.IntOrString {1 type, 2 intVal, 3 strVal}: JSON number or string
  kRawExtension,  // runtime.RawExtension {1 raw}: the JSON document in raw, null when absent
  kFieldsV1,      // metav1.FieldsV1 {1 Raw}: the JSON document in Raw, null when absent
  kStringList,    // a []string wrapper such as ExtraValue {1 items}: array or null
};

enum class Label : std::uint8_t {
  kSingle,
  kRepeated,  // one element per occurrence (numbers also packed)
  kMap,       // map<string, kind>: entries {1 key, 2 value}
};

struct MessageSpec;

struct FieldSpec {
  std::int32_t number = 0;
  std::string_view json_name;
  Kind kind = Kind::kString;
  Label label = Label::kSingle;
  // A Go pointer (*int32, *PodSpec): on the wire only when set. Non-pointer fields are
  // always written, zero or not, as Go's generated marshalling writes them.
  bool pointer = false;
  // `json:",omitempty"`: Go's JSON leaves the field out when empty (structs excepted).
  bool omitempty = true;
  const MessageSpec* message = nullptr;  // for kMessage and kInline
};

struct MessageSpec {
  std::string_view name;              // the schema's name ("io.k8s.api.core.v1.Pod"), for messages
  std::span<const FieldSpec> fields;  // by ascending number
};

// The message of a kind: (apiVersion, kind) -> message.
struct KindMessage {
  std::string_view api_version;
  std::string_view kind;
  const MessageSpec* message;
};

}  // namespace apimachinery::protobuf
