#include "pkg/genericserver/apimachinery/protobuf/well_known.h"

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/go_json.h"
#include "pkg/genericserver/apimachinery/protobuf/wire.h"
#include "pkg/genericserver/apimachinery/schema/go_values.h"
#include "pkg/util/duration.h"

namespace apimachinery::protobuf {
namespace {

using nlohmann::json;

std::string WrongType(std::string_view message, int field, WireType type) {
  return "proto: wrong wireType = " + std::to_string(static_cast<int>(type)) + " for field " +
         std::to_string(field) + " of " + std::string(message);
}

// Reads the fields of a small message: varints into the slots of `varints` (by field number,
// 1-based) and length-delimited fields into `strings`; a repeated length-delimited field is
// collected into `list` when given. Unknown fields are skipped. Later occurrences win.
struct Small {
  std::optional<std::uint64_t> varints[4];
  std::optional<std::string_view> strings[4];
};

std::expected<Small, std::string> ReadSmall(std::string_view message, std::string_view bytes,
                                            unsigned varint_fields, unsigned string_fields,
                                            json* list = nullptr) {
  Small out;
  Reader reader(bytes);
  while (!reader.AtEnd()) {
    auto tag = reader.ReadTag();
    if (!tag) return std::unexpected(tag.error());
    const int field = tag->field;
    const bool is_varint = field < 4 && (varint_fields >> field & 1);
    const bool is_string = field < 4 && (string_fields >> field & 1);
    if (is_varint) {
      if (tag->type != WireType::kVarint) {
        return std::unexpected(WrongType(message, field, tag->type));
      }
      auto v = reader.ReadVarint();
      if (!v) return std::unexpected(v.error());
      out.varints[field] = *v;
    } else if (is_string) {
      if (tag->type != WireType::kLen) return std::unexpected(WrongType(message, field, tag->type));
      auto v = reader.ReadBytes();
      if (!v) return std::unexpected(v.error());
      out.strings[field] = *v;
      if (list != nullptr) list->push_back(gojson::SanitizeUTF8(*v));
    } else {
      auto skipped = reader.Skip(tag->type);
      if (!skipped) return std::unexpected(skipped.error());
    }
  }
  return out;
}

constexpr unsigned Bit(int field) { return 1U << field; }

std::expected<json, std::string> Timestamp(std::string_view bytes, bool micro) {
  if (bytes.empty()) return json(nullptr);  // Go's Time.Unmarshal: no data is the zero time
  auto m = ReadSmall("Timestamp", bytes, Bit(1) | Bit(2), 0);
  if (!m) return std::unexpected(m.error());
  const auto seconds = static_cast<std::int64_t>(m->varints[1].value_or(0));
  const auto nanos =
      static_cast<std::int32_t>(static_cast<std::uint32_t>(m->varints[2].value_or(0)));
  return gojson::Time(seconds, nanos, micro);
}

std::expected<json, std::string> Quantity(std::string_view bytes) {
  auto m = ReadSmall("Quantity", bytes, 0, Bit(1));
  if (!m) return std::unexpected(m.error());
  if (!m->strings[1]) return json("0");
  const std::string text(*m->strings[1]);
  // ParseQuantity, unlike Quantity's JSON decoding, does not trim white space.
  const bool padded = !text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) ||
                                        std::isspace(static_cast<unsigned char>(text.back())));
  if (auto err = schema::QuantityParseError(padded ? "" : text)) return std::unexpected(*err);
  return json(text);
}

std::expected<json, std::string> IntOrString(std::string_view bytes) {
  auto m = ReadSmall("IntOrString", bytes, Bit(1) | Bit(2), Bit(3));
  if (!m) return std::unexpected(m.error());
  const auto type = static_cast<std::int64_t>(m->varints[1].value_or(0));
  if (type == 0) {
    return json(static_cast<std::int32_t>(static_cast<std::uint32_t>(m->varints[2].value_or(0))));
  }
  if (type == 1) return json(gojson::SanitizeUTF8(m->strings[3].value_or("")));
  return std::unexpected("impossible IntOrString.Type");
}

std::expected<json, std::string> RawJSON(std::string_view message, std::string_view bytes) {
  auto m = ReadSmall(message, bytes, 0, Bit(1));
  if (!m) return std::unexpected(m.error());
  if (!m->strings[1]) return json(nullptr);
  json doc = json::parse(*m->strings[1], nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return std::unexpected("json: error calling MarshalJSON for type " + std::string(message) +
                           ": the raw bytes are not valid JSON");
  }
  return doc;
}

std::expected<json, std::string> Duration(std::string_view bytes) {
  auto m = ReadSmall("Duration", bytes, Bit(1), 0);
  if (!m) return std::unexpected(m.error());
  const auto ns = static_cast<std::int64_t>(m->varints[1].value_or(0));
  return json(util::FormatDuration(util::Duration(ns)));
}

std::expected<json, std::string> StringList(std::string_view bytes) {
  json items = json::array();
  auto m = ReadSmall("ExtraValue", bytes, 0, Bit(1), &items);
  if (!m) return std::unexpected(m.error());
  if (items.empty()) return json(nullptr);
  return items;
}

}  // namespace

bool IsWellKnown(Kind kind) {
  switch (kind) {
    case Kind::kTime:
    case Kind::kMicroTime:
    case Kind::kDuration:
    case Kind::kQuantity:
    case Kind::kIntOrString:
    case Kind::kRawExtension:
    case Kind::kFieldsV1:
    case Kind::kStringList:
      return true;
    default:
      return false;
  }
}

std::expected<json, std::string> DecodeWellKnown(Kind kind, std::string_view bytes) {
  switch (kind) {
    case Kind::kTime:
      return Timestamp(bytes, /*micro=*/false);
    case Kind::kMicroTime:
      return Timestamp(bytes, /*micro=*/true);
    case Kind::kDuration:
      return Duration(bytes);
    case Kind::kQuantity:
      return Quantity(bytes);
    case Kind::kIntOrString:
      return IntOrString(bytes);
    case Kind::kRawExtension:
      return RawJSON("runtime.RawExtension", bytes);
    case Kind::kFieldsV1:
      return RawJSON("v1.FieldsV1", bytes);
    case Kind::kStringList:
      return StringList(bytes);
    default:
      return std::unexpected("not a well-known type");
  }
}

json WellKnownZero(Kind kind) {
  switch (kind) {
    case Kind::kQuantity:
      return "0";
    case Kind::kIntOrString:
      return 0;
    case Kind::kDuration:
      return "0s";
    default:  // Time and MicroTime (zero time), RawExtension, FieldsV1, StringList (nil)
      return nullptr;
  }
}

std::string EncodeWellKnown(Kind kind, const json& value) {
  std::string out;
  switch (kind) {
    case Kind::kTime:
    case Kind::kMicroTime: {
      // A zero (null) time is no bytes; Timestamp's seconds and nanos are always written.
      if (!value.is_string()) break;
      auto t = gojson::ParseTime(value.get_ref<const std::string&>());
      if (!t) break;
      AppendVarintField(out, 1, static_cast<std::uint64_t>(t->seconds));
      AppendVarintField(out, 2, static_cast<std::uint64_t>(static_cast<std::int64_t>(t->nanos)));
      break;
    }
    case Kind::kDuration: {
      std::int64_t ns = 0;
      if (value.is_string()) {
        auto d = util::ParseDuration(value.get_ref<const std::string&>());
        if (d) ns = d->count();
      }
      AppendVarintField(out, 1, static_cast<std::uint64_t>(ns));
      break;
    }
    case Kind::kQuantity:
      AppendLen(out, 1, value.is_string() ? value.get_ref<const std::string&>() : "0");
      break;
    case Kind::kIntOrString: {
      const bool is_string = value.is_string();
      AppendVarintField(out, 1, is_string ? 1 : 0);
      const std::int64_t i = value.is_number() ? value.get<std::int64_t>() : 0;
      AppendVarintField(
          out, 2,
          static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(i))));
      AppendLen(out, 3, is_string ? value.get_ref<const std::string&>() : "");
      break;
    }
    case Kind::kRawExtension:
    case Kind::kFieldsV1:
      if (!value.is_null()) AppendLen(out, 1, value.dump());
      break;
    case Kind::kStringList:
      if (value.is_array()) {
        for (const json& item : value) {
          AppendLen(out, 1, item.is_string() ? item.get_ref<const std::string&>() : "");
        }
      }
      break;
    default:
      break;
  }
  return out;
}

}  // namespace apimachinery::protobuf
