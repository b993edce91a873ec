#include "pkg/genericserver/endpoints/handlers/decode.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/genericserver/endpoints/negotiation.h"

namespace endpoints::handlers {

using nlohmann::json;

std::string BodyMediaType(const RequestContext& ctx) {
  auto type = ctx.request.headers.Get("Content-Type");
  if (!type) return "";
  auto parsed = ParseMediaType(*type);
  return parsed ? parsed->Essence() : std::string(*type);
}

registry::Result<json> ParseJSON(std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, ...".
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    return std::unexpected(
        apimachinery::NewBadRequest("couldn't get version/kind; json parse error: " + what));
  }
}

registry::Result<json> DecodeObject(const RequestContext& ctx) {
  const std::string type = BodyMediaType(ctx);
  registry::Result<json> body;
  if (type.empty() || type == "application/json") {
    body = ParseJSON(ctx.request.body);
  } else if (type == "application/yaml" || type == "application/x-yaml") {
    auto converted = apimachinery::yaml::YAMLToJSON(ctx.request.body);
    if (!converted) {
      return std::unexpected(apimachinery::NewBadRequest(converted.error()));
    }
    body = std::move(*converted);
  } else {
    return std::unexpected(
        apimachinery::NewUnsupportedMediaType(type, {"application/json", "application/yaml"}));
  }
  if (!body) return body;
  if (!body->is_object()) {
    return std::unexpected(apimachinery::NewBadRequest("Object 'Kind' is missing in '" +
                                                       ctx.request.body.substr(0, 256) + "'"));
  }
  return body;
}

}  // namespace endpoints::handlers
