#include "pkg/genericserver/endpoints/request_info.h"

#include "pkg/util/strings.h"

namespace endpoints {
namespace {

bool ParseBool(std::string_view s) {
  return s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True";
}

// The name a list or watch narrows to with fieldSelector=metadata.name=X, so that
// authorization can allow watching one object by name.
std::string NameFromFieldSelector(const genericserver::QueryValues& query) {
  auto selector = query.Get("fieldSelector");
  if (!selector) return "";
  std::string name;
  for (const std::string& term : util::Split(*selector, ',')) {
    std::string_view t = term;
    size_t op = t.find("==");
    size_t len = 2;
    if (op == std::string_view::npos) {
      op = t.find('=');
      len = 1;
      if (op != std::string_view::npos && op > 0 && t[op - 1] == '!')
        return "";  // "!=" is not one name
    }
    if (op == std::string_view::npos) return "";
    if (util::TrimSpace(t.substr(0, op)) == "metadata.name") {
      name = std::string(util::TrimSpace(t.substr(op + len)));
    }
  }
  return name;
}

}  // namespace

RequestInfoResolver::RequestInfoResolver(std::set<std::string> api_prefixes,
                                         std::set<std::string> groupless_prefixes)
    : api_prefixes_(std::move(api_prefixes)), groupless_prefixes_(std::move(groupless_prefixes)) {}

std::expected<RequestInfo, std::string> RequestInfoResolver::Resolve(
    const genericserver::Request& request) const {
  RequestInfo info;
  info.path = request.path;
  info.verb = util::ToLower(request.method);

  std::string_view trimmed = request.path;
  while (!trimmed.empty() && trimmed.front() == '/') trimmed.remove_prefix(1);
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  std::vector<std::string> parts = util::Split(trimmed, '/');
  if (trimmed.empty()) parts.clear();

  auto take = [&parts]() {
    std::string first = std::move(parts.front());
    parts.erase(parts.begin());
    return first;
  };
  // Fewer than three segments ("/api/v1", "/apis/G") is discovery, not a resource.
  if (parts.size() < 3 || !api_prefixes_.contains(parts.front())) return info;
  info.api_prefix = take();
  if (!groupless_prefixes_.contains(info.api_prefix)) {
    if (parts.size() < 3) return info;  // "/apis/G/V"
    info.api_group = take();
  }
  info.is_resource_request = true;
  info.api_version = take();

  if (parts.front() == "watch" || parts.front() == "proxy") {
    if (parts.size() < 2) {
      return std::unexpected("unable to determine kind and namespace from url " +
                             util::Quote(request.path));
    }
    info.verb = take();
  } else if (request.method == "POST") {
    info.verb = "create";
  } else if (request.method == "GET" || request.method == "HEAD") {
    info.verb = "get";
  } else if (request.method == "PUT") {
    info.verb = "update";
  } else if (request.method == "PATCH") {
    info.verb = "patch";
  } else if (request.method == "DELETE") {
    info.verb = "delete";
  } else {
    info.verb = "";
  }

  // "/namespaces/NS/R/...": strip the namespace, except for the namespace object's
  // own subresources ("/namespaces/NS/status", "/namespaces/NS/finalize").
  if (parts.front() == "namespaces" && parts.size() > 1) {
    info.namespace_ = parts[1];
    if (parts.size() > 2 && parts[2] != "status" && parts[2] != "finalize") {
      parts.erase(parts.begin(), parts.begin() + 2);
    }
  }

  const bool proxy = info.verb == "proxy";
  if (parts.size() >= 3 && !proxy) info.subresource = parts[2];
  if (parts.size() >= 2) info.name = parts[1];
  info.resource = parts[0];
  info.parts = parts;

  if (parts.size() == 1 && info.verb == "get") {
    auto watch = request.query.Get("watch");
    info.verb = watch && ParseBool(*watch) ? "watch" : "list";
  }
  if (parts.size() == 1 && info.verb == "delete") info.verb = "deletecollection";
  if (info.name.empty() && (info.verb == "list" || info.verb == "watch")) {
    info.name = NameFromFieldSelector(request.query);
  }
  return info;
}

bool IsLongRunning(const RequestInfo& info) {
  if (!info.is_resource_request) return false;
  if (info.verb == "watch" || info.verb == "proxy") return true;
  const std::string& s = info.subresource;
  return s == "attach" || s == "exec" || s == "proxy" || s == "log" || s == "portforward";
}

bool IsReadOnly(const RequestInfo& info) {
  if (!info.is_resource_request) return info.verb == "get" || info.verb == "head";
  return info.verb == "get" || info.verb == "list" || info.verb == "watch";
}

RequestInfo ResourceRequest(std::string verb, std::string api_group, std::string resource,
                            std::string ns, std::string name, std::string subresource) {
  RequestInfo r;
  r.is_resource_request = true;
  r.verb = std::move(verb);
  r.api_group = std::move(api_group);
  r.resource = std::move(resource);
  r.namespace_ = std::move(ns);
  r.name = std::move(name);
  r.subresource = std::move(subresource);
  return r;
}

}  // namespace endpoints
