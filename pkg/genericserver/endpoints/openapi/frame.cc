#include "pkg/genericserver/endpoints/openapi/frame.h"

#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/server/version.h"

namespace endpoints::openapi {
namespace {

// The release without our suffix: "v1.32.0-cpp.1" -> "v1.32.0".
std::string Release() {
  const std::string& version = genericserver::BuildVersion().git_version;
  return version.substr(0, version.find('-'));
}

}  // namespace

nlohmann::json NewDocument(nlohmann::json paths, nlohmann::json schemas, bool custom_resources) {
  nlohmann::json doc = {{"openapi", "3.0.0"}, {"paths", std::move(paths)}};
  nlohmann::json components = {{"schemas", std::move(schemas)}};
  if (custom_resources) {
    doc["info"] = {{"title", "Kubernetes CRD Swagger"}, {"version", "v0.1.0"}};
  } else {
    doc["info"] = {{"title", "Kubernetes"}, {"version", Release()}};
    components["securitySchemes"] = {{"BearerToken",
                                      {{"description", "Bearer Token authentication"},
                                       {"in", "header"},
                                       {"name", "authorization"},
                                       {"type", "apiKey"}}}};
  }
  doc["components"] = std::move(components);
  return doc;
}

}  // namespace endpoints::openapi
