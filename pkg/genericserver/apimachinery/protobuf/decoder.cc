#include "pkg/genericserver/apimachinery/protobuf/decoder.h"

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/go_json.h"
#include "pkg/genericserver/apimachinery/protobuf/well_known.h"
#include "pkg/genericserver/apimachinery/protobuf/wire.h"
#include "pkg/util/base64.h"

namespace apimachinery::protobuf {
namespace {

using nlohmann::json;

// Messages nest (JSONSchemaProps-like recursion aside) a few levels deep; a body nesting
// deeper than this is refused rather than followed.
constexpr int kMaxDepth = 64;

// Decoding runs in two passes. Read() fills a "raw" object with every field present on the wire
// under its JSON name (embedded messages as raw objects, repeated occurrences merged the way
// Go's generated code merges them, map keys as the bytes they were). Finish() then turns it into
// what encoding/json writes for the Go value: zero values filled in or omitted, pointers null or
// absent, map keys made valid UTF-8.

bool IsVarint(Kind kind) {
  return kind == Kind::kInt32 || kind == Kind::kInt64 || kind == Kind::kBool;
}

// Struct-valued kinds, which omitempty never omits.
bool IsStruct(const FieldSpec& f) {
  return f.label == Label::kSingle && (f.kind == Kind::kMessage || IsWellKnown(f.kind)) &&
         f.kind != Kind::kStringList;
}

// How Go's encoding/json writes the field, from what the tables know of the Go field.
enum class Emit : std::uint8_t {
  kOmitEmpty,        // `json:",omitempty"` on a value: omitted when zero or empty
  kAlways,           // no omitempty (or a struct): written even when absent, as its zero value
  kPointer,          // *T with omitempty: written only when present on the wire
  kNullablePointer,  // *T, slice or map without omitempty: the value when present, else null
};

Emit EmitOf(const FieldSpec& f) {
  if (f.label != Label::kSingle) return f.omitempty ? Emit::kOmitEmpty : Emit::kNullablePointer;
  if (f.pointer) return f.omitempty ? Emit::kPointer : Emit::kNullablePointer;
  if (IsStruct(f) || !f.omitempty) return Emit::kAlways;
  return Emit::kOmitEmpty;
}

json VarintValue(Kind kind, std::uint64_t v) {
  switch (kind) {
    case Kind::kInt32:  // Go accumulates into an int32: the low 32 bits
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    case Kind::kBool:
      return v != 0;
    default:
      return static_cast<std::int64_t>(v);
  }
}

std::string Where(const MessageSpec& spec, const FieldSpec& f) {
  return std::string(spec.name) + "." + std::string(f.json_name);
}

std::string WrongType(const MessageSpec& spec, const FieldSpec& f, WireType type) {
  return "proto: wrong wireType = " + std::to_string(static_cast<int>(type)) + " for field " +
         Where(spec, f);
}

void Finish(const MessageSpec& spec, json& obj);

class Decoder {
 public:
  std::expected<void, std::string> Read(const MessageSpec& spec, std::string_view bytes, json& raw,
                                        int depth) {
    if (depth > kMaxDepth) return std::unexpected("proto: messages nested too deeply");
    Reader reader(bytes);
    while (!reader.AtEnd()) {
      auto tag = reader.ReadTag();
      if (!tag) return std::unexpected(tag.error());
      const FieldSpec* f = Find(spec, tag->field);
      std::expected<void, std::string> r;
      if (f == nullptr) {
        r = reader.Skip(tag->type);
      } else if (f->kind == Kind::kInline) {
        r = Inline(spec, *f, tag->type, reader, raw, depth);
      } else if (f->label == Label::kSingle) {
        r = Single(spec, *f, tag->type, reader, raw, depth);
      } else if (f->label == Label::kRepeated) {
        r = Element(spec, *f, tag->type, reader, raw, depth);
      } else {
        r = MapEntry(spec, *f, tag->type, reader, raw, depth);
      }
      if (!r) return r;
    }
    return {};
  }

 private:
  static const FieldSpec* Find(const MessageSpec& spec, std::int32_t number) {
    for (const FieldSpec& f : spec.fields) {
      if (f.number == number) return &f;
    }
    return nullptr;
  }

  // A length-delimited value that is not an embedded table message.
  static std::expected<json, std::string> FromBytes(Kind kind, std::string_view bytes) {
    if (kind == Kind::kString) return json(gojson::SanitizeUTF8(bytes));
    if (kind == Kind::kBytes) return json(util::Base64Encode(bytes));
    return DecodeWellKnown(kind, bytes);
  }

  // One value of the field's kind at the reader (the field's wire type already checked).
  std::expected<json, std::string> Value(const FieldSpec& f, Reader& reader, json* merge_into,
                                         int depth) {
    if (IsVarint(f.kind)) {
      auto v = reader.ReadVarint();
      if (!v) return std::unexpected(v.error());
      return VarintValue(f.kind, *v);
    }
    auto bytes = reader.ReadBytes();
    if (!bytes) return std::unexpected(bytes.error());
    if (f.kind != Kind::kMessage) return FromBytes(f.kind, *bytes);
    json fresh = json::object();
    json& target = merge_into != nullptr ? *merge_into : fresh;
    if (!target.is_object()) target = json::object();
    auto r = Read(*f.message, *bytes, target, depth + 1);
    if (!r) return std::unexpected(r.error());
    return merge_into != nullptr ? json() : std::move(fresh);
  }

  // An inline struct's fields go into the object that holds it.
  std::expected<void, std::string> Inline(const MessageSpec& spec, const FieldSpec& f,
                                          WireType type, Reader& reader, json& raw, int depth) {
    if (type != WireType::kLen) return std::unexpected(WrongType(spec, f, type));
    auto bytes = reader.ReadBytes();
    if (!bytes) return std::unexpected(bytes.error());
    return Read(*f.message, *bytes, raw, depth + 1);
  }

  std::expected<void, std::string> Single(const MessageSpec& spec, const FieldSpec& f,
                                          WireType type, Reader& reader, json& raw, int depth) {
    const WireType want = IsVarint(f.kind) ? WireType::kVarint : WireType::kLen;
    if (type != want) return std::unexpected(WrongType(spec, f, type));
    json& slot = raw[std::string(f.json_name)];
    // An embedded message merges into an earlier occurrence; anything else replaces it.
    const bool merge = f.kind == Kind::kMessage;
    auto v = Value(f, reader, merge ? &slot : nullptr, depth);
    if (!v) return std::unexpected(v.error());
    if (!merge) slot = std::move(*v);
    return {};
  }

  std::expected<void, std::string> Element(const MessageSpec& spec, const FieldSpec& f,
                                           WireType type, Reader& reader, json& raw, int depth) {
    json& list = raw[std::string(f.json_name)];
    if (!list.is_array()) list = json::array();
    if (IsVarint(f.kind) && type == WireType::kLen) {  // packed
      auto bytes = reader.ReadBytes();
      if (!bytes) return std::unexpected(bytes.error());
      Reader packed(*bytes);
      while (!packed.AtEnd()) {
        auto v = packed.ReadVarint();
        if (!v) return std::unexpected(v.error());
        list.push_back(VarintValue(f.kind, *v));
      }
      return {};
    }
    const WireType want = IsVarint(f.kind) ? WireType::kVarint : WireType::kLen;
    if (type != want) return std::unexpected(WrongType(spec, f, type));
    auto v = Value(f, reader, nullptr, depth);
    if (!v) return std::unexpected(v.error());
    list.push_back(std::move(*v));
    return {};
  }

  // A map entry {1 key, 2 value}. A missing key is "", a missing value the kind's zero; a key
  // seen before is replaced.
  std::expected<void, std::string> MapEntry(const MessageSpec& spec, const FieldSpec& f,
                                            WireType type, Reader& reader, json& raw, int depth) {
    if (type != WireType::kLen) return std::unexpected(WrongType(spec, f, type));
    auto entry = reader.ReadBytes();
    if (!entry) return std::unexpected(entry.error());
    std::string key;
    json value;
    bool has_value = false;
    Reader r(*entry);
    while (!r.AtEnd()) {
      auto tag = r.ReadTag();
      if (!tag) return std::unexpected(tag.error());
      if (tag->field == 1) {
        if (tag->type != WireType::kLen) return std::unexpected(WrongType(spec, f, tag->type));
        auto k = r.ReadBytes();
        if (!k) return std::unexpected(k.error());
        key.assign(*k);
      } else if (tag->field == 2) {
        const WireType want = IsVarint(f.kind) ? WireType::kVarint : WireType::kLen;
        if (tag->type != want) return std::unexpected(WrongType(spec, f, tag->type));
        auto v = Value(f, r, nullptr, depth);
        if (!v) return std::unexpected(v.error());
        value = std::move(*v);
        has_value = true;
      } else {
        auto skipped = r.Skip(tag->type);
        if (!skipped) return std::unexpected(skipped.error());
      }
    }
    if (!has_value) {
      if (IsVarint(f.kind)) {
        value = VarintValue(f.kind, 0);
      } else if (f.kind == Kind::kMessage) {
        value = json::object();
      } else {
        auto zero = FromBytes(f.kind, "");
        if (!zero) return std::unexpected(zero.error());
        value = std::move(*zero);
      }
    }
    json& map = raw[std::string(f.json_name)];
    if (!map.is_object()) map = json::object();
    map[key] = std::move(value);
    return {};
  }
};

// The JSON of the Go zero value of a field that is absent from the wire.
json Zero(const FieldSpec& f) {
  if (f.label != Label::kSingle) return nullptr;  // nil slice or map
  switch (f.kind) {
    case Kind::kString:
      return "";
    case Kind::kBytes:
      return nullptr;  // nil []byte
    case Kind::kInt32:
    case Kind::kInt64:
      return 0;
    case Kind::kBool:
      return false;
    case Kind::kMessage: {
      json obj = json::object();
      Finish(*f.message, obj);
      return obj;
    }
    default:
      return WellKnownZero(f.kind);
  }
}

// Whether omitempty drops the (present, non-struct) value.
bool IsEmpty(const FieldSpec& f, const json& v) {
  if (v.is_null()) return true;
  if (f.label != Label::kSingle || v.is_array() || v.is_object()) return v.empty();
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number()) return v == 0;
  return false;
}

// A map's keys as encoding/json writes them (valid UTF-8; of keys equal after that, the one
// sorting last wins, as when the JSON is decoded) and its message values finished.
json FinishMap(const FieldSpec& f, json& raw) {
  json out = json::object();
  for (auto& [key, value] : raw.items()) {
    if (f.kind == Kind::kMessage) Finish(*f.message, value);
    out[gojson::SanitizeUTF8(key)] = std::move(value);
  }
  return out;
}

void Finish(const MessageSpec& spec, json& obj) {
  for (const FieldSpec& f : spec.fields) {
    if (f.kind == Kind::kInline) {
      Finish(*f.message, obj);
      continue;
    }
    const std::string name(f.json_name);
    auto it = obj.find(name);
    bool present = it != obj.end();
    if (present) {
      json& v = *it;
      if (f.label == Label::kMap) {
        v = FinishMap(f, v);
      } else if (f.label == Label::kRepeated && f.kind == Kind::kMessage) {
        for (json& element : v) Finish(*f.message, element);
      } else if (f.kind == Kind::kMessage) {
        Finish(*f.message, v);
      }
      // A packed repeated field with no elements leaves the Go slice nil.
      if (f.label != Label::kSingle && v.empty()) {
        obj.erase(it);
        present = false;
      }
    }
    switch (EmitOf(f)) {
      case Emit::kPointer:
        break;
      case Emit::kNullablePointer:
        if (!present) obj[name] = nullptr;
        break;
      case Emit::kAlways:
        if (!present) obj[name] = Zero(f);
        break;
      case Emit::kOmitEmpty:
        if (IsStruct(f)) {
          if (!present) obj[name] = Zero(f);
        } else if (present && IsEmpty(f, obj[name])) {
          obj.erase(name);
        }
        break;
    }
  }
}

}  // namespace

std::expected<json, std::string> DecodeMessage(const MessageSpec& spec, std::string_view bytes) {
  json raw = json::object();
  Decoder decoder;
  auto r = decoder.Read(spec, bytes, raw, 0);
  if (!r) return std::unexpected(r.error());
  Finish(spec, raw);
  return raw;
}

}  // namespace apimachinery::protobuf
