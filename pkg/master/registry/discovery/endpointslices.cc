// discovery.k8s.io/v1 endpoint slices: the scalable form of endpoints; the address type
// is fixed at creation, ports default to TCP.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/endpoint_addresses.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

std::string Ports(const json& slice) {
  std::string out;
  for (const json& p : List(slice, "ports")) {
    out += (out.empty() ? "" : ",") + (p.contains("port") ? std::to_string(Int(p, "port")) : "");
  }
  return out.empty() ? "<unset>" : out;
}

std::string Addresses(const json& slice) {
  std::vector<std::string> all;
  for (const json& e : List(slice, "endpoints")) {
    for (const json& a : List(e, "addresses")) {
      if (a.is_string()) all.push_back(a);
    }
  }
  if (all.empty()) return "<unset>";
  std::string out;
  for (size_t i = 0; i < all.size() && i < 3; ++i) out += (i ? "," : "") + all[i];
  if (all.size() > 3) out += " + " + std::to_string(all.size() - 3) + " more...";
  return out;
}

}  // namespace

registry::FieldErrors ValidateEndpointSliceAddresses(const json& slice) {
  registry::FieldErrors errors;
  const std::string type = Str(slice, "addressType");
  if (type != "IPv4" && type != "IPv6") return errors;  // FQDNs are not checked here
  const json& endpoints = List(slice, "endpoints");
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const json& addresses = List(endpoints[i], "addresses");
    for (size_t j = 0; j < addresses.size(); ++j) {
      const std::string field =
          "endpoints[" + std::to_string(i) + "].addresses[" + std::to_string(j) + "]";
      const std::string ip = addresses[j].is_string() ? addresses[j].get<std::string>() : "";
      for (auto& e : type == "IPv4" ? ValidateIPv4(field, ip) : ValidateIPv6(field, ip)) {
        errors.push_back(std::move(e));
      }
      for (auto& e : ValidateNonSpecialIP(field, ip)) errors.push_back(std::move(e));
    }
  }
  return errors;
}

registry::ResourceSpecPtr EndpointSlices() {
  KindHooks hooks;
  hooks.defaults = [](json& slice) {
    auto ports = slice.find("ports");
    if (ports == slice.end() || !ports->is_array()) return;
    for (json& p : *ports) {
      if (p.is_object()) SetDefault(p, "protocol", "TCP");
    }
  };
  hooks.validate = [](const json& slice) {
    registry::FieldErrors errors;
    const std::string type = Str(slice, "addressType");
    if (type.empty()) {
      errors.push_back(v::FieldRequired("addressType", ""));
    } else if (type != "IPv4" && type != "IPv6" && type != "FQDN") {
      errors.push_back(v::FieldNotSupported("addressType", type, {"FQDN", "IPv4", "IPv6"}));
    }
    for (auto& e : ValidateEndpointSliceAddresses(slice)) errors.push_back(std::move(e));
    return errors;
  };
  hooks.validate_update = [](const json& slice, const json& old) {
    registry::FieldErrors errors;
    if (Str(slice, "addressType") != Str(old, "addressType")) {
      errors.push_back(
          v::FieldInvalid("addressType", Str(slice, "addressType"), "field is immutable"));
    }
    return errors;
  };
  hooks.generation = true;
  auto spec = Builtin("discovery.k8s.io/v1", "endpointslices", std::move(hooks));
  spec->columns = {
      registry::NameColumn(),
      {"AddressType", "string", "", "IPv4, IPv6 or FQDN.", 0},
      {"Ports", "string", "", "The ports of the endpoints.", 0},
      {"Endpoints", "string", "", "The addresses of the endpoints.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& slice, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(slice, "name"), Str(slice, "addressType"),
                             Ports(slice), Addresses(slice), registry::Age(slice, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
