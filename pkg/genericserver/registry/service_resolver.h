#pragma once
// Where a Service's port can be reached from this server: an endpoint address of the
// Service (its Endpoints object), as upstream's --enable-aggregator-routing resolves
// webhook and APIService backends. There is no kube-proxy in front of this server, so a
// cluster IP would not be routable. Reads the stored core/v1 Services and Endpoints.

#include <expected>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/storage/factory.h"

namespace registry {

class ServiceResolver {
 public:
  // storage must outlive the resolver.
  explicit ServiceResolver(storage::StorageFactory& storage) : storage_(storage) {}
  // "host:port" to dial for port `port` of Service `name` in `ns` (an ExternalName
  // Service: its external name); otherwise upstream's message ("service \"x\" not
  // found", "no endpoints available for service \"x\"", ...).
  Awaitable<std::expected<std::string, std::string>> Resolve(std::string ns, std::string name,
                                                             int port) const;
  // The Service's cluster IP and `port` (ExternalName: its external name), as upstream
  // resolves with --enable-aggregator-routing=false.
  Awaitable<std::expected<std::string, std::string>> ResolveCluster(std::string ns,
                                                                    std::string name,
                                                                    int port) const;

 private:
  storage::StorageFactory& storage_;
};

// The object stored at `key` under the storage of `prefix` ("/services/"), parsed; null when
// there is none.
Awaitable<std::expected<nlohmann::json, std::string>> ReadStored(storage::StorageFactory& storage,
                                                                 std::string prefix,
                                                                 std::string key);

}  // namespace registry
