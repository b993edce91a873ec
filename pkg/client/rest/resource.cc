#include "pkg/client/rest/resource.h"

#include "pkg/util/percent_encode.h"

namespace client {

std::string GroupVersionPath(const GroupVersionResource& gvr) {
  return gvr.group.empty() ? "/api/" + gvr.version : "/apis/" + gvr.group + "/" + gvr.version;
}

std::string ResourcePath(const GroupVersionResource& gvr, std::string_view namespace_name,
                         std::string_view name, std::string_view subresource) {
  std::string path = GroupVersionPath(gvr);
  if (!namespace_name.empty()) {
    path += "/namespaces/";
    path += namespace_name;
  }
  path += "/" + gvr.resource;
  if (!name.empty()) {
    path += "/";
    path += name;
    if (!subresource.empty()) {
      path += "/";
      path += subresource;
    }
  }
  return path;
}

std::string QueryEscape(std::string_view value) { return util::PercentEncode(value, "-_.~"); }

std::pair<std::string, std::string> ParseApiVersion(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) return {"", std::string(api_version)};
  return {std::string(api_version.substr(0, slash)), std::string(api_version.substr(slash + 1))};
}

}  // namespace client
