#pragma once
// The aggregator: first in the delegation chain. Serves apiregistration.k8s.io (APIServices),
// keeps Local APIServices for the chain's own group-versions, proxies the group-versions of
// remote APIServices to their extension API servers and checks their availability, and
// serves /apis (the chain's groups and the remote ones) and OpenAPI.

#include <memory>

#include <string>

#include "pkg/aggregator/apiservice_table.h"
#include "pkg/genericserver/registry/service_resolver.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/generic_apiserver.h"
#include "pkg/genericserver/storage/factory.h"

namespace aggregator {

// What the aggregator needs beyond the generic configuration.
struct Config {
  // PEM files of the client certificate (and its key) the proxy presents to extension
  // API servers: --proxy-client-cert-file / --proxy-client-key-file.
  std::string proxy_client_cert_file;
  std::string proxy_client_key_file;
  // --enable-aggregator-routing: proxy to an endpoint of the Service rather than to its
  // cluster IP.
  bool enable_aggregator_routing = true;
  // The admission chain APIService writes pass, as every other resource's.
  registry::Admission admission;
};

class APIAggregator {
 public:
  // The delegate and the storage must outlive the server.
  static std::unique_ptr<APIAggregator> New(const genericserver::CompletedConfig& config,
                                            genericserver::DelegationTarget& delegate,
                                            storage::StorageFactory& storage,
                                            const Config& aggregator);
  genericserver::GenericAPIServer& GenericServer() { return *generic_; }

 private:
  std::unique_ptr<genericserver::GenericAPIServer> generic_;
  std::unique_ptr<APIServiceTable> table_;
  std::unique_ptr<registry::ServiceResolver> resolver_;
};

}  // namespace aggregator
