#pragma once
// The ConversionReview exchange of a CRD conversion webhook without the network: the request
// body, and the checks upstream's webhookConverter (apiextensions-apiserver
// pkg/apiserver/conversion/webhook_converter.go) and client-go's rest.Result.Into run on the
// answer, with their error messages. webhook.cc does the HTTP/TLS part.

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/transport/webhook_client.h"

namespace apiextensions::conversion {

// schema.ParseGroupVersion: "" and "/" are empty, "v1" has no group, "g/v"; more slashes fail
// with `unexpected GroupVersion string: a/b/c`.
struct GroupVersion {
  std::string group;
  std::string version;
  bool operator==(const GroupVersion&) const = default;
};
std::expected<GroupVersion, std::string> ParseGroupVersion(std::string_view api_version);
// GroupVersion.String(): "version" without a group, else "group/version".
std::string GroupVersionString(const GroupVersion& gv);
// GroupVersionKind.String() of an object as upstream's unstructured sees it: "g/v, Kind=K"
// ("/, Kind=" parts empty when apiVersion does not parse or a field is not a string).
std::string ObjectGVKString(const nlohmann::json& object);

// The ConversionReview (apiextensions.k8s.io/v1) request for `objects`.
nlohmann::json NewConversionReview(std::string_view uid, std::string_view desired_api_version,
                                   const std::vector<nlohmann::json>& objects);

using HttpAnswer = transport::HttpAnswer;

// rest.Result.Into(&v1.ConversionReview{}): the decoded review for a 2xx answer, else the error
// client-go gives (a Status message, a generic "the server ..." message, a decoding error).
std::expected<nlohmann::json, std::string> DecodeReviewAnswer(const HttpAnswer& answer);

// getConvertedObjectsFromResponse for a v1 review: the GVK, response, uid and result checks.
std::expected<std::vector<nlohmann::json>, std::string> ConvertedObjectsOf(
    const nlohmann::json& review, std::string_view uid);

// Everything after the HTTP exchange. `sent` are the objects that went out (in order), `single`
// whether the caller converts one object (upstream's non-list path, with its own messages) rather
// than a list, and `label` the GVK string errors name ("conversion webhook for <label> ...").
// Returns the converted objects, each checked (apiVersion, kind, name, namespace, uid) and with
// the original's metadata restored except labels and annotations, or upstream's error.
std::expected<std::vector<nlohmann::json>, std::string> ReadConversionAnswer(
    const HttpAnswer& answer, std::string_view uid, std::string_view desired_api_version,
    const std::vector<nlohmann::json>& sent, bool single, std::string_view label);

// restoreObjectMeta: `converted` gets `original`'s metadata, with labels and annotations taken
// from `converted` (validated when they changed). The error has no prefix.
std::expected<void, std::string> RestoreObjectMeta(const nlohmann::json& original,
                                                   nlohmann::json& converted);

// Go's %T of a value decoded into interface{} by unstructured: "string", "int64", "float64",
// "bool", "<nil>", "[]interface {}", "map[string]interface {}".
std::string GoTypeName(const nlohmann::json& value);

}  // namespace apiextensions::conversion
