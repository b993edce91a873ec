#include "pkg/genericserver/apimachinery/protobuf/encoder.h"

#include <cstdint>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/well_known.h"
#include "pkg/genericserver/apimachinery/protobuf/wire.h"
#include "pkg/util/base64.h"

namespace apimachinery::protobuf {
namespace {

using nlohmann::json;

void Encode(const MessageSpec& spec, const json& object, std::string& out);

const std::string& StringOf(const json& value) {
  static const std::string kEmpty;
  return value.is_string() ? value.get_ref<const std::string&>() : kEmpty;
}

std::uint64_t IntOf(const json& value, Kind kind) {
  if (kind == Kind::kBool) return value.is_boolean() && value.get<bool>() ? 1 : 0;
  std::int64_t v = 0;
  if (value.is_number_integer()) {
    v = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    v = static_cast<std::int64_t>(value.get<double>());
  }
  if (kind == Kind::kInt32) v = static_cast<std::int32_t>(v);  // negative: sign-extended
  return static_cast<std::uint64_t>(v);
}

// One value of the field's kind (an element of a repeated field, a map value, or the field).
void Value(const FieldSpec& f, std::int32_t number, const json& value, std::string& out) {
  switch (f.kind) {
    case Kind::kInt32:
    case Kind::kInt64:
    case Kind::kBool:
      AppendVarintField(out, number, IntOf(value, f.kind));
      return;
    case Kind::kString:
      AppendLen(out, number, StringOf(value));
      return;
    case Kind::kBytes: {
      auto bytes = util::Base64Decode(StringOf(value));
      AppendLen(out, number, bytes ? *bytes : std::string());
      return;
    }
    case Kind::kMessage: {
      std::string inner;
      Encode(*f.message, value, inner);
      AppendLen(out, number, inner);
      return;
    }
    default:
      AppendLen(out, number, EncodeWellKnown(f.kind, value));
      return;
  }
}

void Encode(const MessageSpec& spec, const json& object, std::string& out) {
  static const json kNull;
  for (const FieldSpec& f : spec.fields) {
    if (f.kind == Kind::kInline) {
      std::string inner;
      Encode(*f.message, object, inner);
      AppendLen(out, f.number, inner);
      continue;
    }
    const json* value = &kNull;
    if (object.is_object()) {
      auto it = object.find(f.json_name);
      if (it != object.end()) value = &*it;
    }
    if (f.label == Label::kRepeated) {
      if (!value->is_array()) continue;
      for (const json& element : *value) Value(f, f.number, element, out);
    } else if (f.label == Label::kMap) {
      if (!value->is_object()) continue;
      for (const auto& [key, v] : value->items()) {  // a std::map: sorted by key, as Go sorts
        std::string entry;
        AppendLen(entry, 1, key);
        if (!v.is_null()) Value(f, 2, v, entry);
        AppendLen(out, f.number, entry);
      }
    } else if (!value->is_null() || !f.pointer) {
      Value(f, f.number, *value, out);
    }
  }
}

}  // namespace

std::string EncodeMessage(const MessageSpec& spec, const json& object) {
  std::string out;
  Encode(spec, object, out);
  return out;
}

}  // namespace apimachinery::protobuf
