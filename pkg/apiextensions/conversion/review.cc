// The ConversionReview body and the checks of a webhook's answer, worded as upstream's
// webhookConverter (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go),
// client-go's rest.Result.Into / errors.NewGenericServerResponse, and the JSON decoding
// underneath them (apimachinery's json serializer, unstructured) word them.
#include "pkg/apiextensions/conversion/review.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/names.h"

namespace apiextensions::conversion {

using json = nlohmann::json;
namespace v = apimachinery::validation;

namespace {

constexpr std::string_view kGroup = "apiextensions.k8s.io";
constexpr std::string_view kReviewKind = "ConversionReview";
// client-go's maxUnstructuredResponseTextBytes.

struct GVK {
  std::string group;
  std::string version;
  std::string kind;
};

std::string GVKString(const GVK& gvk) {
  return gvk.group + "/" + gvk.version + ", Kind=" + gvk.kind;
}

// unstructured's NestedString: "" when absent or not a string.
std::string StringAt(const json& object, std::string_view key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string MetaString(const json& object, std::string_view key) {
  if (!object.is_object()) return "";
  auto it = object.find("metadata");
  return it == object.end() ? "" : StringAt(*it, key);
}

// Unstructured.GroupVersionKind(): empty altogether when apiVersion does not parse.
GVK ObjectGVK(const json& object) {
  auto gv = ParseGroupVersion(StringAt(object, "apiVersion"));
  if (!gv) return {};
  return GVK{gv->group, gv->version, StringAt(object, "kind")};
}

// The JSON kind encoding/json names in an UnmarshalTypeError.
std::string JsonKindName(const json& value) {
  if (value.is_number()) return "number";
  if (value.is_boolean()) return "bool";
  if (value.is_string()) return "string";
  if (value.is_array()) return "array";
  return "object";
}

std::string StructFieldTypeError(const json& value, std::string_view struct_name,
                                 std::string_view field, std::string_view go_type) {
  return "json: cannot unmarshal " + JsonKindName(value) + " into Go struct field " +
         std::string(struct_name) + "." + std::string(field) + " of type " + std::string(go_type);
}

std::string ValueTypeError(const json& value, std::string_view go_type) {
  return "json: cannot unmarshal " + JsonKindName(value) + " into Go value of type " +
         std::string(go_type);
}

// Go's quoteChar in encoding/json syntax errors.
std::string QuoteChar(char c) {
  if (c == '\'') return R"('\'')";
  if (c == '"') return R"('"')";
  const std::string q = v::GoQuote(std::string_view(&c, 1));
  return "'" + q.substr(1, q.size() - 2) + "'";
}

// encoding/json's SyntaxError for text that does not parse, as far as the common cases go
// (an HTML page, a truncated body); other positions get a generic wording.
std::string SyntaxErrorText(std::string_view text) {
  size_t i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
    ++i;
  }
  if (i == text.size()) return "unexpected end of JSON input";
  const char c = text[i];
  if (std::string_view("{[\"-0123456789tfn").find(c) == std::string_view::npos) {
    return "invalid character " + QuoteChar(c) + " looking for beginning of value";
  }
  try {
    const json parsed = json::parse(text);
    (void)parsed;
  } catch (const json::parse_error& e) {
    if (e.byte >= text.size()) return "unexpected end of JSON input";
    const size_t at = e.byte > 0 ? e.byte - 1 : 0;
    return "invalid character " + QuoteChar(text[at]) + " in JSON input";
  }
  return "invalid JSON input";
}

// The type errors decoding into a v1.ConversionReview can give, for the fields that matter.
std::optional<std::string> ReviewTypeError(const json& doc) {
  if (auto it = doc.find("request"); it != doc.end() && !it->is_null() && !it->is_object()) {
    return StructFieldTypeError(*it, "ConversionReview", "request", "v1.ConversionRequest");
  }
  auto response = doc.find("response");
  if (response == doc.end() || response->is_null()) return std::nullopt;
  if (!response->is_object()) {
    return StructFieldTypeError(*response, "ConversionReview", "response", "v1.ConversionResponse");
  }
  if (auto it = response->find("uid");
      it != response->end() && !it->is_null() && !it->is_string()) {
    return StructFieldTypeError(*it, "ConversionResponse", "response.uid", "types.UID");
  }
  if (auto it = response->find("convertedObjects");
      it != response->end() && !it->is_null() && !it->is_array()) {
    return StructFieldTypeError(*it, "ConversionResponse", "response.convertedObjects",
                                "[]runtime.RawExtension");
  }
  auto result = response->find("result");
  if (result == response->end() || result->is_null()) return std::nullopt;
  if (!result->is_object()) {
    return StructFieldTypeError(*result, "ConversionResponse", "response.result", "v1.Status");
  }
  for (const char* field : {"status", "message"}) {
    if (auto it = result->find(field); it != result->end() && !it->is_null() && !it->is_string()) {
      return StructFieldTypeError(*it, "Status", std::string("response.result.") + field, "string");
    }
  }
  return std::nullopt;
}

// Unstructured.UnmarshalJSON of one RawExtension of convertedObjects.
std::expected<json, std::string> UnstructuredFromRaw(const json& raw) {
  if (raw.is_null()) return std::unexpected("unexpected end of JSON input");
  if (!raw.is_object()) return std::unexpected(ValueTypeError(raw, "map[string]interface {}"));
  if (ObjectGVK(raw).kind.empty()) {
    return std::unexpected("Object 'Kind' is missing in '" +
                           raw.dump(-1, ' ', false, json::error_handler_t::replace) + "'");
  }
  return raw;
}

// validateConvertedObject.
std::optional<std::string> ValidateConvertedObject(const json& in, const json& out) {
  const auto same = [](std::string_view what, const std::string& e,
                       const std::string& a) -> std::optional<std::string> {
    if (e == a) return std::nullopt;
    return "must have the same " + std::string(what) + ": " + e + " != " + a;
  };
  if (auto err = same("kind", StringAt(in, "kind"), StringAt(out, "kind"))) return err;
  if (auto err = same("name", MetaString(in, "name"), MetaString(out, "name"))) return err;
  if (auto err = same("namespace", MetaString(in, "namespace"), MetaString(out, "namespace"))) {
    return err;
  }
  return same("UID", MetaString(in, "uid"), MetaString(out, "uid"));
}

}  // namespace

std::expected<GroupVersion, std::string> ParseGroupVersion(std::string_view gv) {
  if (gv.empty() || gv == "/") return GroupVersion{};
  const size_t slashes = static_cast<size_t>(std::count(gv.begin(), gv.end(), '/'));
  if (slashes == 0) return GroupVersion{"", std::string(gv)};
  if (slashes == 1) {
    const size_t i = gv.find('/');
    return GroupVersion{std::string(gv.substr(0, i)), std::string(gv.substr(i + 1))};
  }
  return std::unexpected("unexpected GroupVersion string: " + std::string(gv));
}

std::string GroupVersionString(const GroupVersion& gv) {
  if (!gv.group.empty()) return gv.group + "/" + gv.version;
  return gv.version;
}

std::string ObjectGVKString(const json& object) { return GVKString(ObjectGVK(object)); }

std::string GoTypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "<nil>";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::number_integer:
      return "int64";
    case json::value_t::number_unsigned:
      return value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ? "float64" : "int64";
    case json::value_t::number_float:
      return "float64";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "[]interface {}";
    default:
      return "map[string]interface {}";
  }
}

json NewConversionReview(std::string_view uid, std::string_view desired_api_version,
                         const std::vector<json>& objects) {
  json review = json::object();
  review["kind"] = kReviewKind;
  review["apiVersion"] = std::string(kGroup) + "/v1";
  review["request"] =
      json{{"uid", uid}, {"desiredAPIVersion", desired_api_version}, {"objects", json::array()}};
  for (const json& o : objects) review["request"]["objects"].push_back(o);
  // Upstream sends an empty response along with the request.
  review["response"] =
      json{{"uid", ""}, {"convertedObjects", nullptr}, {"result", {{"metadata", json::object()}}}};
  return review;
}

std::expected<json, std::string> DecodeReviewAnswer(const HttpAnswer& answer) {
  const std::string content_type =
      answer.content_type.empty() ? "application/json" : answer.content_type;
  if (answer.status < 200 || answer.status > 206) {
    return std::unexpected(transport::ErrorAnswerText(answer));
  }
  if (answer.body.empty()) {
    return std::unexpected("0-length response with status code: " + std::to_string(answer.status) +
                           " and content type: " + content_type);
  }
  json doc = json::parse(answer.body, nullptr, false);
  const std::string kind_error = "couldn't get version/kind; json parse error: ";
  if (doc.is_discarded()) return std::unexpected(kind_error + SyntaxErrorText(answer.body));
  if (doc.is_null()) doc = json::object();  // decoding null changes nothing
  if (!doc.is_object()) {
    return std::unexpected(kind_error +
                           ValueTypeError(doc,
                                          "struct { APIVersion string "
                                          "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                                          "\"json:\\\"kind,omitempty\\\"\" }"));
  }
  for (const char* field : {"apiVersion", "kind"}) {
    auto it = doc.find(field);
    if (it != doc.end() && !it->is_null() && !it->is_string()) {
      return std::unexpected(kind_error + StructFieldTypeError(*it, "", field, "string"));
    }
  }
  auto gv = ParseGroupVersion(StringAt(doc, "apiVersion"));
  if (!gv) return std::unexpected(gv.error());
  // The kind and group/version default to those of the object decoded into.
  GVK actual{gv->group, gv->version, StringAt(doc, "kind")};
  if (actual.kind.empty()) actual.kind = kReviewKind;
  if (actual.version.empty() && actual.group.empty()) {
    actual.group = kGroup;
    actual.version = "v1";
  } else if (actual.version.empty() && actual.group == kGroup) {
    actual.version = "v1";
  }
  if (actual.group == kGroup && actual.version == "v1" && actual.kind == kReviewKind) {
    if (auto err = ReviewTypeError(doc)) return std::unexpected(*err);
    return doc;
  }
  // Other kinds the webhook client's scheme knows decode, then fail to convert.
  static const std::map<std::string, std::vector<std::string>> kKnown = {
      {"apiextensions.k8s.io/v1",
       {"ConversionReview", "CustomResourceDefinition", "CustomResourceDefinitionList"}},
      {"apiextensions.k8s.io/v1beta1",
       {"ConversionReview", "CustomResourceDefinition", "CustomResourceDefinitionList"}},
      {"v1", {"Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"}},
  };
  const std::string gv_string = GroupVersionString(GroupVersion{actual.group, actual.version});
  if (auto it = kKnown.find(gv_string); it != kKnown.end()) {
    if (std::find(it->second.begin(), it->second.end(), actual.kind) != it->second.end()) {
      return std::unexpected("converting (" + actual.version + "." + actual.kind +
                             ") to (v1.ConversionReview): unknown conversion");
    }
  }
  return std::unexpected("no kind " + v::GoQuote(actual.kind) + " is registered for version " +
                         v::GoQuote(gv_string));
}

std::expected<std::vector<json>, std::string> ConvertedObjectsOf(const json& review,
                                                                 std::string_view uid) {
  // TypeMeta as decoded: schema.FromAPIVersionAndKind.
  GVK got{"", "", StringAt(review, "kind")};
  if (auto gv = ParseGroupVersion(StringAt(review, "apiVersion"))) {
    got.group = gv->group;
    got.version = gv->version;
  }
  const GVK want{std::string(kGroup), "v1", std::string(kReviewKind)};
  if (got.group != want.group || got.version != want.version || got.kind != want.kind) {
    return std::unexpected("expected webhook response of " + GVKString(want) + ", got " +
                           GVKString(got));
  }
  auto response = review.find("response");
  if (response == review.end() || !response->is_object()) {
    return std::unexpected("no response provided");
  }
  const std::string got_uid = StringAt(*response, "uid");
  if (got_uid != uid) {
    return std::unexpected("expected response.uid=" + v::GoQuote(uid) + ", got " +
                           v::GoQuote(got_uid));
  }
  json result = json::object();
  if (auto it = response->find("result"); it != response->end() && it->is_object()) result = *it;
  const std::string status = StringAt(result, "status");
  if (status != "Success") {
    const std::string message = StringAt(result, "message");
    if (!message.empty()) return std::unexpected(message);
    return std::unexpected("response.result.status was '" + status + "', not 'Success'");
  }
  std::vector<json> out;
  if (auto it = response->find("convertedObjects"); it != response->end() && it->is_array()) {
    out.assign(it->begin(), it->end());
  }
  return out;
}

std::expected<void, std::string> RestoreObjectMeta(const json& original, json& converted) {
  auto cm = converted.is_object() ? converted.find("metadata") : converted.end();
  if (!converted.is_object() || cm == converted.end()) {
    return std::unexpected("missing metadata in converted object");
  }
  if (!cm->is_object()) {
    return std::unexpected("invalid metadata of type " + GoTypeName(*cm) + " in converted object");
  }
  const json response_meta = *cm;
  json result_meta = json::object();
  if (auto om = original.find("metadata"); om != original.end()) result_meta = *om;
  if (!result_meta.is_object()) {
    return std::unexpected("invalid metadata of type " + GoTypeName(result_meta) +
                           " in input object");
  }
  for (const std::string field : {"labels", "annotations"}) {
    auto response_field = response_meta.find(field);
    if (response_field == response_meta.end() || response_field->is_null()) {
      result_meta.erase(field);
      continue;
    }
    if (!response_field->is_object()) {
      return std::unexpected("invalid metadata." + field + " of type " +
                             GoTypeName(*response_field) + " in converted object");
    }
    const json* original_field = nullptr;
    if (auto it = result_meta.find(field); it != result_meta.end() && !it->is_null()) {
      if (!it->is_object()) {
        return std::unexpected("invalid metadata." + field + " of type " + GoTypeName(*it) +
                               " in original object");
      }
      original_field = &*it;
    }
    const size_t original_size = original_field != nullptr ? original_field->size() : 0;
    bool changed = original_size != response_field->size();
    std::map<std::string, std::string> values;
    for (auto it = response_field->begin(); it != response_field->end(); ++it) {
      if (!it->is_string()) {
        return std::unexpected("metadata." + field + "[" + it.key() +
                               "] must be a string, but is " + GoTypeName(*it) +
                               " in converted object");
      }
      values[it.key()] = it->get<std::string>();
      if (original_field == nullptr || !original_field->contains(it.key()) ||
          (*original_field)[it.key()] != *it) {
        changed = true;
      }
    }
    if (changed) {
      // Upstream names the annotations path "metadata.annotation".
      const std::vector<v::FieldError> errors =
          field == "labels" ? v::ValidateLabels(values, "metadata.labels")
                            : v::ValidateAnnotations(values, "metadata.annotation");
      if (!errors.empty()) return std::unexpected(v::AggregateMessage(errors));
    }
    result_meta[field] = *response_field;
  }
  converted["metadata"] = std::move(result_meta);
  return {};
}

std::expected<std::vector<json>, std::string> ReadConversionAnswer(
    const HttpAnswer& answer, std::string_view uid, std::string_view desired_api_version,
    const std::vector<json>& sent, bool single, std::string_view label) {
  const std::string prefix = "conversion webhook for " + std::string(label);
  auto review = DecodeReviewAnswer(answer);
  if (!review) return std::unexpected(prefix + " failed: " + review.error());
  auto converted = ConvertedObjectsOf(*review, uid);
  if (!converted) return std::unexpected(prefix + " failed: " + converted.error());
  if (converted->size() != sent.size()) {
    return std::unexpected(prefix + " returned " + std::to_string(converted->size()) +
                           " objects, expected " + std::to_string(sent.size()));
  }
  GroupVersion to_gv;
  if (auto gv = ParseGroupVersion(desired_api_version)) to_gv = *gv;
  const std::string expected_gv = GroupVersionString(to_gv);

  std::vector<json> out;
  out.reserve(sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    const json& original = sent[i];
    // Upstream's single-object path words its errors differently from the list path.
    const std::string at =
        single ? " returned invalid object at index 0: "
               : " returned invalid converted object at index " + std::to_string(i) + ": ";
    auto object = UnstructuredFromRaw((*converted)[i]);
    if (!object) {
      if (single) return std::unexpected(object.error());  // upstream adds no context here
      return std::unexpected(prefix + at + object.error());
    }
    const GVK got = ObjectGVK(*object);
    const GroupVersion got_gv{got.group, got.version};
    if (!(got_gv == to_gv)) {
      return std::unexpected(prefix + at + "invalid groupVersion (expected " + expected_gv +
                             ", received " + GroupVersionString(got_gv) + ")");
    }
    const std::string original_kind = ObjectGVK(original).kind;
    if (original_kind != got.kind) {
      return std::unexpected(prefix + at + "invalid kind (expected " + original_kind +
                             ", received " + got.kind + ")");
    }
    if (auto err = ValidateConvertedObject(original, *object)) {
      if (single) return std::unexpected(prefix + " returned invalid object: " + *err);
      return std::unexpected(prefix + at + *err);
    }
    if (auto r = RestoreObjectMeta(original, *object); !r) {
      if (single) return std::unexpected(prefix + " returned invalid metadata: " + r.error());
      return std::unexpected(prefix + " returned invalid metadata in object at index " +
                             std::to_string(i) + ": " + r.error());
    }
    out.push_back(std::move(*object));
  }
  return out;
}

}  // namespace apiextensions::conversion
