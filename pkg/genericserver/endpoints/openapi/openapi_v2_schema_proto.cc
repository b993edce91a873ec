// The Schema messages of gnostic's OpenAPIv2.proto (Schema, FileSchema and the oneofs they
// hold) and ExternalDocs, as field tables (numbers as in the .proto).

#include "pkg/genericserver/endpoints/openapi/openapi_v2_schema_proto.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/wire.h"

namespace endpoints::openapi::internal {
namespace {

using nlohmann::json;
namespace pb = apimachinery::protobuf;

constexpr std::string_view kUrl[] = {"url"};
const Field kExternalDocsFields[] = {{"description", 1, Kind::kString}, {"url", 2, Kind::kString}};
const Spec kExternalDocs{kExternalDocsFields, 3, kUrl};

const Field kXmlFields[] = {{"name", 1, Kind::kString},
                            {"namespace", 2, Kind::kString},
                            {"prefix", 3, Kind::kString},
                            {"attribute", 4, Kind::kBool},
                            {"wrapped", 5, Kind::kBool}};
const Spec kXml{kXmlFields, 6, {}};

// TypeItem: a type name or a list of them.
Status TypeItem(const json& value, Where& where, std::string& out) {
  if (value.is_string()) {
    pb::AppendLen(out, 1, value.get_ref<const std::string&>());
    return {};
  }
  if (!value.is_array()) return Fail(where, "has unexpected value for string array");
  for (const json& item : value) {
    if (!item.is_string()) return Fail(where, "has unexpected value for string array");
    pb::AppendLen(out, 1, item.get_ref<const std::string&>());
  }
  return {};
}

// ItemsItem: exactly one schema.
Status ItemsItem(const json& value, Where& where, std::string& out) {
  if (!value.is_object()) return Fail(where, "has unexpected value for item array");
  Where::Segment segment(where, "<array>");
  return AppendMessage(out, 1, value, Schema, where);
}

// AdditionalPropertiesItem: a schema (1) or a boolean (2, written even when false).
Status AdditionalPropertiesItem(const json& value, Where& where, std::string& out) {
  if (value.is_boolean()) {
    pb::AppendVarintField(out, 2, value.get<bool>() ? 1 : 0);
    return {};
  }
  if (!value.is_object()) return Fail(where, "has unexpected value: " + value.dump());
  return AppendMessage(out, 1, value, Schema, where);
}

const Field kSchemaFields[] = {
    {"$ref", 1, Kind::kString},
    {"format", 2, Kind::kString},
    {"title", 3, Kind::kString},
    {"description", 4, Kind::kString},
    {"default", 5, Kind::kAny},
    {"multipleOf", 6, Kind::kDouble},
    {"maximum", 7, Kind::kDouble},
    {"exclusiveMaximum", 8, Kind::kBool},
    {"minimum", 9, Kind::kDouble},
    {"exclusiveMinimum", 10, Kind::kBool},
    {"maxLength", 11, Kind::kInt64},
    {"minLength", 12, Kind::kInt64},
    {"pattern", 13, Kind::kString},
    {"maxItems", 14, Kind::kInt64},
    {"minItems", 15, Kind::kInt64},
    {"uniqueItems", 16, Kind::kBool},
    {"maxProperties", 17, Kind::kInt64},
    {"minProperties", 18, Kind::kInt64},
    {"required", 19, Kind::kStrings},
    {"enum", 20, Kind::kAnys},
    {"additionalProperties", 21, Kind::kMessage, AdditionalPropertiesItem},
    {"type", 22, Kind::kMessage, TypeItem},
    {"items", 23, Kind::kMessage, ItemsItem},
    {"allOf", 24, Kind::kMessages, Schema},
    {"properties", 25, Kind::kMessage, Map<Schema>},
    {"discriminator", 26, Kind::kString},
    {"readOnly", 27, Kind::kBool},
    {"xml", 28, Kind::kMessage, Object<kXml>},
    {"externalDocs", 29, Kind::kMessage, ExternalDocs},
    {"example", 30, Kind::kAny},
};
const Spec kSchema{kSchemaFields, 31, {}};

constexpr std::string_view kFile[] = {"file"};
constexpr std::string_view kType[] = {"type"};
const Field kFileSchemaFields[] = {
    {"format", 1, Kind::kString},      {"title", 2, Kind::kString},
    {"description", 3, Kind::kString}, {"default", 4, Kind::kAny},
    {"required", 5, Kind::kStrings},   {"type", 6, Kind::kString, nullptr, kFile},
    {"readOnly", 7, Kind::kBool},      {"externalDocs", 8, Kind::kMessage, ExternalDocs},
    {"example", 9, Kind::kAny},
};
const Spec kFileSchema{kFileSchemaFields, 10, kType};

}  // namespace

Status ExternalDocs(const json& value, Where& where, std::string& out) {
  return EncodeObject(value, kExternalDocs, where, out);
}

Status Schema(const json& value, Where& where, std::string& out) {
  return EncodeObject(value, kSchema, where, out);
}

// SchemaItem: a file schema (2) when the value is one ({"type": "file"}), else a schema (1).
Status SchemaItem(const json& value, Where& where, std::string& out) {
  if (value.is_object() && value.value("type", json()) == "file") {
    std::string file;
    if (EncodeObject(value, kFileSchema, where, file)) {
      pb::AppendLen(out, 2, file);
      return {};
    }
  }
  return AppendMessage(out, 1, value, Schema, where);
}

}  // namespace endpoints::openapi::internal
