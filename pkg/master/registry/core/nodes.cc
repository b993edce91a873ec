// core/v1 nodes: cluster-scoped, written by kubelets (status through /status); kubectl's
// STATUS/ROLES/VERSION table.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

// Ready/NotReady/Unknown from the Ready condition, plus SchedulingDisabled when cordoned.
std::string NodeStatus(const json& node) {
  std::string status = "Unknown";
  for (const json& c : List(Sub(node, "status"), "conditions")) {
    if (Str(c, "type") != "Ready") continue;
    status = Str(c, "status") == "True" ? "Ready" : "NotReady";
  }
  if (Sub(node, "spec").value("unschedulable", false) == true) status += ",SchedulingDisabled";
  return status;
}

// From node-role.kubernetes.io/<role> labels (and kubernetes.io/role), sorted.
std::string Roles(const json& node) {
  std::vector<std::string> roles;
  for (const auto& [key, value] : Sub(Sub(node, "metadata"), "labels").items()) {
    constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
    if (key.starts_with(kPrefix) && key.size() > kPrefix.size()) {
      roles.push_back(key.substr(kPrefix.size()));
    } else if (key == "kubernetes.io/role" && value.is_string() && !value.empty()) {
      roles.push_back(value);
    }
  }
  std::sort(roles.begin(), roles.end());
  std::string out;
  for (const std::string& r : roles) out += (out.empty() ? "" : ",") + r;
  return out.empty() ? "<none>" : out;
}

std::string Address(const json& node, const char* type) {
  for (const json& a : List(Sub(node, "status"), "addresses")) {
    if (Str(a, "type") == type) return Str(a, "address");
  }
  return "<none>";
}

}  // namespace

registry::ResourceSpecPtr Nodes() {
  auto spec = Builtin("v1", "nodes");
  spec->short_names = {"no"};
  spec->columns = {
      registry::NameColumn(),
      {"Status", "string", "", "Ready, NotReady or Unknown, and whether pods may be scheduled.", 0},
      {"Roles", "string", "", "The node's roles, from its node-role labels.", 0},
      registry::AgeColumn(),
      {"Version", "string", "", "The kubelet's version.", 0},
      {"Internal-IP", "string", "", "The node's internal address.", 1},
      {"External-IP", "string", "", "The node's external address.", 1},
      {"OS-Image", "string", "", "The operating system the node runs.", 1},
      {"Kernel-Version", "string", "", "The node's kernel.", 1},
      {"Container-Runtime", "string", "", "The container runtime and its version.", 1},
  };
  spec->row = [](const json& node, std::chrono::system_clock::time_point now) {
    const json& info = Sub(Sub(node, "status"), "nodeInfo");
    auto or_unknown = [](std::string s) { return s.empty() ? std::string("<unknown>") : s; };
    return std::vector<json>{registry::MetaString(node, "name"),
                             NodeStatus(node),
                             Roles(node),
                             registry::Age(node, now),
                             Str(info, "kubeletVersion"),
                             Address(node, "InternalIP"),
                             Address(node, "ExternalIP"),
                             or_unknown(Str(info, "osImage")),
                             or_unknown(Str(info, "kernelVersion")),
                             or_unknown(Str(info, "containerRuntimeVersion"))};
  };
  spec->fields["spec.unschedulable"] = [](const json& node) {
    return Sub(node, "spec").value("unschedulable", false) == true ? std::string("true")
                                                                   : std::string("false");
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
