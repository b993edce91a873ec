// core/v1 endpoints: the addresses behind a service, as the endpoints controller (or the
// bootstrap controller, for `kubernetes`) writes them.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

// "ip:port" pairs, at most three, then " + N more...", as kubectl prints them.
std::string FormatEndpoints(const json& ep) {
  std::vector<std::string> all;
  for (const json& subset : List(ep, "subsets")) {
    const json& ports = List(subset, "ports");
    for (const json& address : List(subset, "addresses")) {
      const std::string ip = Str(address, "ip");
      if (ports.empty()) {
        all.push_back(ip);
        continue;
      }
      for (const json& port : ports) all.push_back(ip + ":" + std::to_string(Int(port, "port")));
    }
  }
  if (all.empty()) return "<none>";
  std::string out;
  for (size_t i = 0; i < all.size() && i < 3; ++i) out += (i ? "," : "") + all[i];
  if (all.size() > 3) out += " + " + std::to_string(all.size() - 3) + " more...";
  return out;
}

}  // namespace

registry::ResourceSpecPtr Endpoints() {
  KindHooks hooks;
  hooks.defaults = [](json& ep) {
    auto subsets = ep.find("subsets");
    if (subsets == ep.end() || !subsets->is_array()) return;
    for (json& subset : *subsets) {
      auto ports = subset.find("ports");
      if (ports == subset.end() || !ports->is_array()) continue;
      for (json& port : *ports) {
        if (port.is_object()) SetDefault(port, "protocol", "TCP");
      }
    }
  };
  hooks.create_on_update = true;
  auto spec = Builtin("v1", "endpoints", std::move(hooks));
  spec->singular = "endpoints";
  spec->short_names = {"ep"};
  spec->columns = {
      registry::NameColumn(),
      {"Endpoints", "string", "", "The addresses and ports behind the service.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& ep, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(ep, "name"), FormatEndpoints(ep),
                             registry::Age(ep, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
