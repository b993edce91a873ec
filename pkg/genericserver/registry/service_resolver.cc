#include "pkg/genericserver/registry/service_resolver.h"

#include <optional>

#include <nlohmann/json.hpp>

namespace registry {

using nlohmann::json;

Awaitable<std::expected<json, std::string>> ReadStored(storage::StorageFactory& storage,
                                                       std::string prefix, std::string key) {
  auto store = storage.ForResource(prefix);
  storage::GetOptions options;
  auto got = co_await store->Get(std::move(key), options);
  if (!got) {
    if (got.error().code == storage::ErrorCode::kNotFound) co_return json();
    co_return std::unexpected(got.error().message);
  }
  json parsed = json::parse(*(*got)->json, nullptr, false);
  if (parsed.is_discarded()) co_return std::unexpected("unreadable object at " + (*got)->key);
  co_return parsed;
}

namespace {

std::string HostPort(const std::string& host, int64_t port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

Awaitable<std::expected<std::string, std::string>> ServiceResolver::Resolve(std::string ns,
                                                                            std::string name,
                                                                            int port) const {
  auto service = co_await ReadStored(storage_, "/services/", "/services/" + ns + "/" + name);
  if (!service) co_return std::unexpected(service.error());
  if (service->is_null()) co_return std::unexpected("service \"" + name + "\" not found");
  const json& spec = service->value("spec", json::object());
  if (spec.value("type", "") == "ExternalName") {
    co_return HostPort(spec.value("externalName", ""), port);
  }
  std::optional<json> service_port;
  for (const json& p : spec.value("ports", json::array())) {
    if (p.is_object() && p.value("port", int64_t{0}) == port) service_port = p;
  }
  if (!service_port) {
    co_return std::unexpected("no service port " + std::to_string(port) + " found for service \"" +
                              name + "\"");
  }
  const std::string port_name = service_port->value("name", "");
  auto endpoints = co_await ReadStored(storage_, "/endpoints/", "/endpoints/" + ns + "/" + name);
  if (!endpoints) co_return std::unexpected(endpoints.error());
  if (!endpoints->is_null()) {
    for (const json& subset : endpoints->value("subsets", json::array())) {
      for (const json& p : subset.value("ports", json::array())) {
        if (p.value("name", "") != port_name) continue;
        for (const json& address : subset.value("addresses", json::array())) {
          if (address.contains("ip") && address["ip"].is_string()) {
            co_return HostPort(address["ip"].get<std::string>(), p.value("port", int64_t{0}));
          }
        }
      }
    }
  }
  co_return std::unexpected("no endpoints available for service \"" + name + "\"");
}

Awaitable<std::expected<std::string, std::string>> ServiceResolver::ResolveCluster(std::string ns,
                                                                                   std::string name,
                                                                                   int port) const {
  auto service = co_await ReadStored(storage_, "/services/", "/services/" + ns + "/" + name);
  if (!service) co_return std::unexpected(service.error());
  if (service->is_null()) co_return std::unexpected("service \"" + name + "\" not found");
  const json& spec = service->value("spec", json::object());
  if (spec.value("type", "") == "ExternalName") {
    co_return HostPort(spec.value("externalName", ""), port);
  }
  bool has_port = false;
  for (const json& p : spec.value("ports", json::array())) {
    if (p.is_object() && p.value("port", int64_t{0}) == port) has_port = true;
  }
  if (!has_port) {
    co_return std::unexpected("no service port " + std::to_string(port) + " found for service \"" +
                              name + "\"");
  }
  const std::string ip = spec.value("clusterIP", "");
  if (ip.empty() || ip == "None") {
    co_return std::unexpected("service \"" + name + "\" has no cluster IP");
  }
  co_return HostPort(ip, port);
}

}  // namespace registry
