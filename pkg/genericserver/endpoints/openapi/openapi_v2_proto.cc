// EncodeOpenAPIV2Proto: the field tables of gnostic's OpenAPIv2.proto messages (numbers as in
// the .proto) and the choices its oneofs make.

#include "pkg/genericserver/endpoints/openapi/openapi_v2_proto.h"

#include <regex>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/wire.h"
#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/genericserver/endpoints/openapi/json_proto.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v2_schema_proto.h"

namespace endpoints::openapi {
namespace {

using internal::ExternalDocs;
using internal::Field;
using internal::Kind;
using internal::Map;
using internal::Object;
using internal::Schema;
using internal::SchemaItem;
using internal::Spec;
using internal::Status;
using internal::Where;
using nlohmann::json;
namespace pb = apimachinery::protobuf;

using Names = std::span<const std::string_view>;

constexpr std::string_view kType[] = {"type"};
constexpr std::string_view kPrimitiveTypes[] = {"string", "number", "integer", "boolean", "array"};
constexpr std::string_view kFormDataTypes[] = {"string",  "number", "integer",
                                               "boolean", "array",  "file"};
constexpr std::string_view kFormats[] = {"csv", "ssv", "tsv", "pipes"};
constexpr std::string_view kQueryFormats[] = {"csv", "ssv", "tsv", "pipes", "multi"};
constexpr std::string_view kSchemes[] = {"http", "https", "ws", "wss"};

Status PrimitivesItems(const json& value, Where& where, std::string& out);

// The value of a NamedString (a string field 2 is written as the bytes of field 2).
Status String(const json& value, Where& where, std::string& out) {
  if (!value.is_string()) return internal::Fail(where, "has unexpected value: " + value.dump());
  out += value.get_ref<const std::string&>();
  return {};
}

// The value of a NamedAny: an Any's fields.
Status AnyFields(const json& value, Where&, std::string& out) {
  pb::AppendLen(out, 2, apimachinery::yaml::JSONToYAMLNodeV3(value));
  return {};
}

Status StringArray(const json& value, Where& where, std::string& out) {
  if (!value.is_array()) return internal::Fail(where, "has unexpected value: " + value.dump());
  for (const json& item : value) {
    if (item.is_string()) pb::AppendLen(out, 1, item.get_ref<const std::string&>());
  }
  return {};
}

// --- Small messages --------------------------------------------------------------------
constexpr std::string_view kName[] = {"name"};
const Field kContactFields[] = {
    {"name", 1, Kind::kString}, {"url", 2, Kind::kString}, {"email", 3, Kind::kString}};
const Spec kContact{kContactFields, 4, {}};
const Field kLicenseFields[] = {{"name", 1, Kind::kString}, {"url", 2, Kind::kString}};
const Spec kLicense{kLicenseFields, 3, kName};

constexpr std::string_view kTitleVersion[] = {"title", "version"};
const Field kInfoFields[] = {{"title", 1, Kind::kString},
                             {"version", 2, Kind::kString},
                             {"description", 3, Kind::kString},
                             {"termsOfService", 4, Kind::kString},
                             {"contact", 5, Kind::kMessage, Object<kContact>},
                             {"license", 6, Kind::kMessage, Object<kLicense>}};
const Spec kInfo{kInfoFields, 7, kTitleVersion};

const Field kTagFields[] = {{"name", 1, Kind::kString},
                            {"description", 2, Kind::kString},
                            {"externalDocs", 3, Kind::kMessage, ExternalDocs}};
const Spec kTag{kTagFields, 4, kName};

// --- Parameters, headers, responses ------------------------------------------------------

// `head`, then the fields PrimitivesItems, Header and the non-body parameters share (type to
// multipleOf) numbered from `first`, then `tail`.
std::vector<Field> WithPrimitives(std::vector<Field> head, int first, Names types, Names formats,
                                  std::vector<Field> tail = {}) {
  const Field shared[] = {{"type", 0, Kind::kString, nullptr, types},
                          {"format", 0, Kind::kString},
                          {"items", 0, Kind::kMessage, PrimitivesItems},
                          {"collectionFormat", 0, Kind::kString, nullptr, formats},
                          {"default", 0, Kind::kAny},
                          {"maximum", 0, Kind::kDouble},
                          {"exclusiveMaximum", 0, Kind::kBool},
                          {"minimum", 0, Kind::kDouble},
                          {"exclusiveMinimum", 0, Kind::kBool},
                          {"maxLength", 0, Kind::kInt64},
                          {"minLength", 0, Kind::kInt64},
                          {"pattern", 0, Kind::kString},
                          {"maxItems", 0, Kind::kInt64},
                          {"minItems", 0, Kind::kInt64},
                          {"uniqueItems", 0, Kind::kBool},
                          {"enum", 0, Kind::kAnys},
                          {"multipleOf", 0, Kind::kDouble}};
  for (Field field : shared) {
    field.number = first++;
    head.push_back(field);
  }
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// required, in (one value), description, name: the head of every non-body parameter.
std::vector<Field> ParameterHead(const std::string_view (&in)[1], bool allow_empty_value) {
  std::vector<Field> head = {{"required", 1, Kind::kBool},
                             {"in", 2, Kind::kString, nullptr, in},
                             {"description", 3, Kind::kString},
                             {"name", 4, Kind::kString}};
  if (allow_empty_value) head.push_back({"allowEmptyValue", 5, Kind::kBool});
  return head;
}

const std::vector<Field> kPrimitivesItemsFields = WithPrimitives({}, 1, kPrimitiveTypes, kFormats);
const Spec kPrimitivesItems{kPrimitivesItemsFields, 18, {}};

Status PrimitivesItems(const json& value, Where& where, std::string& out) {
  return internal::EncodeObject(value, kPrimitivesItems, where, out);
}

const std::vector<Field> kHeaderFields =
    WithPrimitives({}, 1, kPrimitiveTypes, kFormats, {{"description", 18, Kind::kString}});
const Spec kHeader{kHeaderFields, 19, kType};

constexpr std::string_view kInHeader[] = {"header"};
constexpr std::string_view kInFormData[] = {"formData"};
constexpr std::string_view kInQuery[] = {"query"};
constexpr std::string_view kInPath[] = {"path"};
constexpr std::string_view kInBody[] = {"body"};
constexpr std::string_view kRequired[] = {"required"};

const std::vector<Field> kHeaderParameterFields =
    WithPrimitives(ParameterHead(kInHeader, false), 5, kPrimitiveTypes, kFormats);
const std::vector<Field> kFormDataParameterFields =
    WithPrimitives(ParameterHead(kInFormData, true), 6, kFormDataTypes, kQueryFormats);
const std::vector<Field> kQueryParameterFields =
    WithPrimitives(ParameterHead(kInQuery, true), 6, kPrimitiveTypes, kQueryFormats);
const std::vector<Field> kPathParameterFields =
    WithPrimitives(ParameterHead(kInPath, false), 5, kPrimitiveTypes, kFormats);
// NonBodyParameter's oneof, by `in`: {in, field number, sub-schema}.
struct NonBodyKind {
  std::string_view in;
  int number;
  Spec spec;
};
const NonBodyKind kNonBodyKinds[] = {
    {"header", 1, {kHeaderParameterFields, 22, {}}},
    {"formData", 2, {kFormDataParameterFields, 23, {}}},
    {"query", 3, {kQueryParameterFields, 23, {}}},
    {"path", 4, {kPathParameterFields, 22, kRequired}},
};

constexpr std::string_view kBodyRequired[] = {"in", "name", "schema"};
const Field kBodyParameterFields[] = {{"description", 1, Kind::kString},
                                      {"name", 2, Kind::kString},
                                      {"in", 3, Kind::kString, nullptr, kInBody},
                                      {"required", 4, Kind::kBool},
                                      {"schema", 5, Kind::kMessage, Schema}};
const Spec kBodyParameter{kBodyParameterFields, 6, kBodyRequired};

// Parameter: a body parameter (1) or a non-body one (2) of the sub-schema its `in` names.
Status Parameter(const json& value, Where& where, std::string& out) {
  if (!value.is_object()) return internal::Fail(where, "has unexpected value: " + value.dump());
  const json in = value.value("in", json());
  if (in == "body") return internal::AppendMessage(out, 1, value, Object<kBodyParameter>, where);
  for (std::string_view key : {"in", "name", "type"}) {
    if (!value.contains(key)) {
      return internal::Fail(where, "is missing required property: " + std::string(key));
    }
  }
  for (const NonBodyKind& kind : kNonBodyKinds) {
    if (in != kind.in) continue;
    std::string sub;
    if (auto done = internal::EncodeObject(value, kind.spec, where, sub); !done) return done;
    std::string non_body;
    pb::AppendLen(non_body, kind.number, sub);
    pb::AppendLen(out, 2, non_body);
    return {};
  }
  return internal::Fail(where, "has unexpected value for in: " + in.dump());
}

const Field kJsonReferenceFields[] = {{"$ref", 1, Kind::kString},
                                      {"description", 2, Kind::kString}};
constexpr std::string_view kRef[] = {"$ref"};
const Spec kJsonReference{kJsonReferenceFields, 0, kRef};

// ParametersItem: {"$ref": ...} is a JsonReference (2), anything else a Parameter (1).
Status ParametersItem(const json& value, Where& where, std::string& out) {
  if (value.is_object() && value.contains("$ref")) {
    return internal::AppendMessage(out, 2, value, Object<kJsonReference>, where);
  }
  return internal::AppendMessage(out, 1, value, Parameter, where);
}

constexpr std::string_view kDescription[] = {"description"};
const Field kResponseFields[] = {{"description", 1, Kind::kString},
                                 {"schema", 2, Kind::kMessage, SchemaItem},
                                 {"headers", 3, Kind::kMessage, Map<Object<kHeader>>},
                                 {"examples", 4, Kind::kMessage, Map<AnyFields>}};
const Spec kResponse{kResponseFields, 5, kDescription};

// ResponseValue: {"$ref": ...} is a JsonReference (2), anything else a Response (1).
Status ResponseValue(const json& value, Where& where, std::string& out) {
  if (value.is_object() && value.contains("$ref")) {
    return internal::AppendMessage(out, 2, value, Object<kJsonReference>, where);
  }
  return internal::AppendMessage(out, 1, value, Object<kResponse>, where);
}

// Responses: status codes ("200", "default") as response_code (1), then "x-" extensions (2).
Status Responses(const json& value, Where& where, std::string& out) {
  static const std::regex kCode("^([0-9]{3})$|^(default)$");
  if (!value.is_object()) return internal::Fail(where, "has unexpected value: " + value.dump());
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (internal::IsExtension(it.key())) continue;
    if (!std::regex_match(it.key(), kCode)) {
      return internal::Fail(where, "has invalid property: " + it.key());
    }
    Where::Segment segment(where, it.key());
    std::string named;
    pb::AppendLen(named, 1, it.key());
    if (auto done = internal::AppendMessage(named, 2, it.value(), ResponseValue, where); !done) {
      return done;
    }
    pb::AppendLen(out, 1, named);
  }
  internal::AppendExtensions(out, 2, value);
  return {};
}

// --- Paths and operations ----------------------------------------------------------------

// SecurityRequirement: a map of scope lists.
Status SecurityRequirement(const json& value, Where& where, std::string& out) {
  return internal::EncodeNamed(value, StringArray, where, out);
}

constexpr std::string_view kResponsesRequired[] = {"responses"};
const Field kOperationFields[] = {
    {"tags", 1, Kind::kStrings},
    {"summary", 2, Kind::kString},
    {"description", 3, Kind::kString},
    {"externalDocs", 4, Kind::kMessage, ExternalDocs},
    {"operationId", 5, Kind::kString},
    {"produces", 6, Kind::kStrings},
    {"consumes", 7, Kind::kStrings},
    {"parameters", 8, Kind::kMessages, ParametersItem},
    {"responses", 9, Kind::kMessage, Responses},
    {"schemes", 10, Kind::kStrings, nullptr, kSchemes},
    {"deprecated", 11, Kind::kBool},
    {"security", 12, Kind::kMessages, SecurityRequirement},
};
const Spec kOperation{kOperationFields, 13, kResponsesRequired};

const Field kPathItemFields[] = {
    {"$ref", 1, Kind::kString},
    {"get", 2, Kind::kMessage, Object<kOperation>},
    {"put", 3, Kind::kMessage, Object<kOperation>},
    {"post", 4, Kind::kMessage, Object<kOperation>},
    {"delete", 5, Kind::kMessage, Object<kOperation>},
    {"options", 6, Kind::kMessage, Object<kOperation>},
    {"head", 7, Kind::kMessage, Object<kOperation>},
    {"patch", 8, Kind::kMessage, Object<kOperation>},
    {"parameters", 9, Kind::kMessages, ParametersItem},
};
const Spec kPathItem{kPathItemFields, 10, {}};

// Paths: "x-" extensions (1), then the paths (2, keys starting with "/").
Status Paths(const json& value, Where& where, std::string& out) {
  if (!value.is_object()) return internal::Fail(where, "has unexpected value: " + value.dump());
  internal::AppendExtensions(out, 1, value);
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (internal::IsExtension(it.key())) continue;
    if (!it.key().starts_with("/")) {
      return internal::Fail(where, "has invalid property: " + it.key());
    }
    Where::Segment segment(where, it.key());
    std::string named;
    pb::AppendLen(named, 1, it.key());
    if (auto done = internal::AppendMessage(named, 2, it.value(), Object<kPathItem>, where);
        !done) {
      return done;
    }
    pb::AppendLen(out, 2, named);
  }
  return {};
}

// --- Security definitions ----------------------------------------------------------------

constexpr std::string_view kBasic[] = {"basic"};
constexpr std::string_view kApiKey[] = {"apiKey"};
constexpr std::string_view kOauth2[] = {"oauth2"};
constexpr std::string_view kHeaderOrQuery[] = {"header", "query"};
constexpr std::string_view kImplicit[] = {"implicit"};
constexpr std::string_view kPassword[] = {"password"};
constexpr std::string_view kApplication[] = {"application"};
constexpr std::string_view kAccessCode[] = {"accessCode"};
constexpr std::string_view kBasicRequired[] = {"type"};
constexpr std::string_view kApiKeyRequired[] = {"in", "name", "type"};
constexpr std::string_view kImplicitRequired[] = {"authorizationUrl", "flow", "type"};
constexpr std::string_view kTokenRequired[] = {"flow", "tokenUrl", "type"};
constexpr std::string_view kAccessCodeRequired[] = {"authorizationUrl", "flow", "tokenUrl", "type"};

const Field kBasicFields[] = {{"type", 1, Kind::kString, nullptr, kBasic},
                              {"description", 2, Kind::kString}};
const Field kApiKeyFields[] = {{"type", 1, Kind::kString, nullptr, kApiKey},
                               {"name", 2, Kind::kString},
                               {"in", 3, Kind::kString, nullptr, kHeaderOrQuery},
                               {"description", 4, Kind::kString}};
const Field kImplicitFields[] = {{"type", 1, Kind::kString, nullptr, kOauth2},
                                 {"flow", 2, Kind::kString, nullptr, kImplicit},
                                 {"scopes", 3, Kind::kMessage, Map<String>},
                                 {"authorizationUrl", 4, Kind::kString},
                                 {"description", 5, Kind::kString}};
const Field kPasswordFields[] = {{"type", 1, Kind::kString, nullptr, kOauth2},
                                 {"flow", 2, Kind::kString, nullptr, kPassword},
                                 {"scopes", 3, Kind::kMessage, Map<String>},
                                 {"tokenUrl", 4, Kind::kString},
                                 {"description", 5, Kind::kString}};
const Field kApplicationFields[] = {{"type", 1, Kind::kString, nullptr, kOauth2},
                                    {"flow", 2, Kind::kString, nullptr, kApplication},
                                    {"scopes", 3, Kind::kMessage, Map<String>},
                                    {"tokenUrl", 4, Kind::kString},
                                    {"description", 5, Kind::kString}};
const Field kAccessCodeFields[] = {{"type", 1, Kind::kString, nullptr, kOauth2},
                                   {"flow", 2, Kind::kString, nullptr, kAccessCode},
                                   {"scopes", 3, Kind::kMessage, Map<String>},
                                   {"authorizationUrl", 4, Kind::kString},
                                   {"tokenUrl", 5, Kind::kString},
                                   {"description", 6, Kind::kString}};
// SecurityDefinitionsItem's oneof, in field-number order.
const Spec kSecuritySchemes[] = {
    {kBasicFields, 3, kBasicRequired},       {kApiKeyFields, 5, kApiKeyRequired},
    {kImplicitFields, 6, kImplicitRequired}, {kPasswordFields, 6, kTokenRequired},
    {kApplicationFields, 6, kTokenRequired}, {kAccessCodeFields, 7, kAccessCodeRequired},
};

// SecurityDefinitionsItem: the scheme its type (and flow) name; like gnostic, each is tried
// and the last that fits is kept.
Status SecurityDefinitionsItem(const json& value, Where& where, std::string& out) {
  Status first_error = {};
  std::string chosen;
  int number = 0;
  for (int i = 0; i < static_cast<int>(std::size(kSecuritySchemes)); ++i) {
    std::string body;
    if (auto done = internal::EncodeObject(value, kSecuritySchemes[i], where, body); done) {
      chosen = std::move(body);
      number = i + 1;
    } else if (first_error) {
      first_error = done;
    }
  }
  if (number == 0) return first_error;
  pb::AppendLen(out, number, chosen);
  return {};
}

// --- The document ------------------------------------------------------------------------

constexpr std::string_view kSwagger20[] = {"2.0"};
constexpr std::string_view kDocumentRequired[] = {"info", "paths", "swagger"};
const Field kDocumentFields[] = {
    {"swagger", 1, Kind::kString, nullptr, kSwagger20},
    {"info", 2, Kind::kMessage, Object<kInfo>},
    {"host", 3, Kind::kString},
    {"basePath", 4, Kind::kString},
    {"schemes", 5, Kind::kStrings, nullptr, kSchemes},
    {"consumes", 6, Kind::kStrings},
    {"produces", 7, Kind::kStrings},
    {"paths", 8, Kind::kMessage, Paths},
    {"definitions", 9, Kind::kMessage, Map<Schema>},
    {"parameters", 10, Kind::kMessage, Map<Parameter>},
    {"responses", 11, Kind::kMessage, Map<Object<kResponse>>},
    {"security", 12, Kind::kMessages, SecurityRequirement},
    {"securityDefinitions", 13, Kind::kMessage, Map<SecurityDefinitionsItem>},
    {"tags", 14, Kind::kMessages, Object<kTag>},
    {"externalDocs", 15, Kind::kMessage, ExternalDocs},
};
const Spec kDocument{kDocumentFields, 16, kDocumentRequired};

}  // namespace

std::expected<std::string, std::string> EncodeOpenAPIV2Proto(const json& document) {
  Where where;
  std::string out;
  if (auto done = internal::EncodeObject(document, kDocument, where, out); !done) {
    return std::unexpected(done.error());
  }
  return out;
}

}  // namespace endpoints::openapi
