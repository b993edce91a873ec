#pragma once
// JSON objects as protobuf messages described by field tables, with the checks gnostic's
// generated constructors make (allowed and required properties, value types, enumerated
// values) and protobuf-go's encoding (fields in the table's order, which is by number; proto3
// zero values left out; sub-messages written even when empty). Internal to the OpenAPI v2
// encoder (openapi_v2_proto.cc).

#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace endpoints::openapi::internal {

// Where the encoder is, for errors: "$root.paths./api/v1/pods.get".
class Where {
 public:
  std::string Text() const;
  // Scoped: the segment is removed when the returned guard goes.
  class Segment {
   public:
    Segment(Where& where, std::string_view name) : where_(where) {
      where.names_.emplace_back(name);
    }
    ~Segment() { where_.names_.pop_back(); }
    Segment(const Segment&) = delete;
    Segment& operator=(const Segment&) = delete;

   private:
    Where& where_;
  };

 private:
  std::vector<std::string> names_;
};

using Status = std::expected<void, std::string>;

// "<where>: <message>", as gnostic's errors read.
std::unexpected<std::string> Fail(const Where& where, std::string_view message);

// Appends the fields of the message `value` maps to (no tag, no length) to `out`.
using MessageFn = Status (*)(const nlohmann::json& value, Where& where, std::string& out);

enum class Kind {
  kString,    // string; "" is left out
  kBool,      // boolean; false is left out
  kInt64,     // integer (varint); 0 is left out
  kDouble,    // number (fixed64); +0 is left out
  kStrings,   // array of strings, one record each (other items are dropped, as gnostic does)
  kAny,       // any value: an Any message whose yaml (2) is the value as gnostic writes it
  kAnys,      // array: one Any each
  kMessage,   // an object: `message` writes it
  kMessages,  // array: one message each
};

struct Field {
  std::string_view key;  // the JSON property
  int number;
  Kind kind;
  MessageFn message = nullptr;                  // kMessage, kMessages
  std::span<const std::string_view> only = {};  // kString(s): the values allowed (empty: any)
};

struct Spec {
  std::span<const Field> fields;               // in field-number order
  int extensions = 0;                          // NamedAny field of "x-" properties; 0: none
  std::span<const std::string_view> required;  // properties that must be present
};

// The message `value` (an object) is under `spec`, fields in the spec's order, then the
// vendor extensions in the object's order. Properties neither in the spec nor "x-" (when
// extensions are allowed) are an error, as is a missing required one.
Status EncodeObject(const nlohmann::json& value, const Spec& spec, Where& where, std::string& out);

// A map message (Definitions, Properties, ...): field 1 repeated, one {1: name, 2: value}
// per property of `value` in its order, each value written by `message`.
Status EncodeNamed(const nlohmann::json& value, MessageFn message, Where& where, std::string& out);

// Field `number` holding the message `message` writes for `value` (written even when empty).
Status AppendMessage(std::string& out, int number, const nlohmann::json& value, MessageFn message,
                     Where& where);

// Field `number` holding an Any of `value` ({2: yaml}).
void AppendAny(std::string& out, int number, const nlohmann::json& value);

// A NamedAny per "x-" property of `value`, in field `number`.
void AppendExtensions(std::string& out, int number, const nlohmann::json& value);

// MessageFns for a message whose fields are the table kSpec, and for a map message
// (Definitions, Properties, ...) of kValue messages.
template <const Spec& kSpec>
Status Object(const nlohmann::json& value, Where& where, std::string& out) {
  return EncodeObject(value, kSpec, where, out);
}
template <MessageFn kValue>
Status Map(const nlohmann::json& value, Where& where, std::string& out) {
  return EncodeNamed(value, kValue, where, out);
}

// Whether `key` names a vendor extension ("x-...").
inline bool IsExtension(std::string_view key) { return key.starts_with("x-"); }

}  // namespace endpoints::openapi::internal
