#include "pkg/genericserver/endpoints/openapi/json_proto.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/wire.h"
#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"

namespace endpoints::openapi::internal {
namespace {

using nlohmann::json;
namespace pb = apimachinery::protobuf;

// Go's %+v (%T) of a value, short: what gnostic's "has unexpected value" messages print.
std::string Describe(const json& value) {
  std::string text = value.dump();
  if (text.size() > 64) text = text.substr(0, 61) + "...";
  return text;
}

std::unexpected<std::string> Unexpected(const Where& where, std::string_view key,
                                        const json& value) {
  return Fail(where, "has unexpected value for " + std::string(key) + ": " + Describe(value));
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

Status EncodeField(const Field& field, const json& value, Where& where, std::string& out) {
  switch (field.kind) {
    case Kind::kString: {
      if (!value.is_string()) return Unexpected(where, field.key, value);
      const std::string& text = value.get_ref<const std::string&>();
      if (!field.only.empty() && std::ranges::find(field.only, text) == field.only.end()) {
        return Unexpected(where, field.key, value);
      }
      if (!text.empty()) pb::AppendLen(out, field.number, text);
      return {};
    }
    case Kind::kBool:
      if (!value.is_boolean()) return Unexpected(where, field.key, value);
      if (value.get<bool>()) pb::AppendVarintField(out, field.number, 1);
      return {};
    case Kind::kInt64: {
      if (!value.is_number_integer()) return Unexpected(where, field.key, value);
      const auto v = value.is_number_unsigned() ? static_cast<std::int64_t>(value.get<uint64_t>())
                                                : value.get<std::int64_t>();
      if (v != 0) pb::AppendVarintField(out, field.number, static_cast<std::uint64_t>(v));
      return {};
    }
    case Kind::kDouble: {
      if (!value.is_number()) return Unexpected(where, field.key, value);
      const auto bits = std::bit_cast<std::uint64_t>(value.get<double>());
      if (bits == 0) return {};
      pb::AppendTag(out, field.number, pb::WireType::kFixed64);
      for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(bits >> (8 * i)));
      return {};
    }
    case Kind::kStrings:
      if (!value.is_array()) return Unexpected(where, field.key, value);
      for (const json& item : value) {
        if (!field.only.empty() && item.is_string() &&
            std::ranges::find(field.only, item.get_ref<const std::string&>()) == field.only.end()) {
          return Unexpected(where, field.key, value);
        }
      }
      for (const json& item : value) {
        if (item.is_string()) pb::AppendLen(out, field.number, item.get_ref<const std::string&>());
      }
      return {};
    case Kind::kAny:
      AppendAny(out, field.number, value);
      return {};
    case Kind::kAnys:
      if (!value.is_array()) return Unexpected(where, field.key, value);
      for (const json& item : value) AppendAny(out, field.number, item);
      return {};
    case Kind::kMessage: {
      Where::Segment segment(where, field.key);
      return AppendMessage(out, field.number, value, field.message, where);
    }
    case Kind::kMessages: {
      if (!value.is_array()) return Unexpected(where, field.key, value);
      Where::Segment segment(where, field.key);
      for (const json& item : value) {
        if (auto done = AppendMessage(out, field.number, item, field.message, where); !done) {
          return done;
        }
      }
      return {};
    }
  }
  return {};
}

}  // namespace

std::string Where::Text() const {
  std::string out = "$root";
  for (const std::string& name : names_) out += "." + name;
  return out;
}

std::unexpected<std::string> Fail(const Where& where, std::string_view message) {
  return std::unexpected(where.Text() + ": " + std::string(message));
}

Status EncodeObject(const json& value, const Spec& spec, Where& where, std::string& out) {
  if (!value.is_object()) return Fail(where, "has unexpected value: " + Describe(value));
  std::vector<std::string> missing;
  for (std::string_view key : spec.required) {
    if (!value.contains(key)) missing.emplace_back(key);
  }
  if (!missing.empty()) {
    return Fail(where, std::string(missing.size() == 1 ? "is missing required property: "
                                                       : "is missing required properties: ") +
                           Join(missing));
  }
  std::vector<std::string> invalid;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (spec.extensions != 0 && IsExtension(it.key())) continue;
    if (std::ranges::none_of(spec.fields, [&](const Field& f) { return f.key == it.key(); })) {
      invalid.push_back(it.key());
    }
  }
  if (!invalid.empty()) {
    return Fail(where, std::string(invalid.size() == 1 ? "has invalid property: "
                                                       : "has invalid properties: ") +
                           Join(invalid));
  }
  for (const Field& field : spec.fields) {
    auto it = value.find(field.key);
    if (it == value.end()) continue;
    if (auto done = EncodeField(field, *it, where, out); !done) return done;
  }
  if (spec.extensions != 0) AppendExtensions(out, spec.extensions, value);
  return {};
}

Status EncodeNamed(const json& value, MessageFn message, Where& where, std::string& out) {
  if (!value.is_object()) return Fail(where, "has unexpected value: " + Describe(value));
  for (auto it = value.begin(); it != value.end(); ++it) {
    Where::Segment segment(where, it.key());
    std::string named;
    pb::AppendLen(named, 1, it.key());
    if (auto done = AppendMessage(named, 2, it.value(), message, where); !done) return done;
    pb::AppendLen(out, 1, named);
  }
  return {};
}

Status AppendMessage(std::string& out, int number, const json& value, MessageFn message,
                     Where& where) {
  std::string body;
  if (auto done = message(value, where, body); !done) return done;
  pb::AppendLen(out, number, body);
  return {};
}

void AppendAny(std::string& out, int number, const json& value) {
  std::string any;
  pb::AppendLen(any, 2, apimachinery::yaml::JSONToYAMLNodeV3(value));
  pb::AppendLen(out, number, any);
}

void AppendExtensions(std::string& out, int number, const json& value) {
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!IsExtension(it.key())) continue;
    std::string named;
    pb::AppendLen(named, 1, it.key());
    AppendAny(named, 2, it.value());
    pb::AppendLen(out, number, named);
  }
}

}  // namespace endpoints::openapi::internal
