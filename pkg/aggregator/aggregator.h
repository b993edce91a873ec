#pragma once
// The aggregator: first in the delegation chain. Serves /apis (every group of the chain)
// and apiregistration.k8s.io; later it proxies remote APIServices.

#include <memory>

#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/generic_apiserver.h"

namespace aggregator {

class APIAggregator {
 public:
  // The delegate must outlive the server.
  static std::unique_ptr<APIAggregator> New(const genericserver::CompletedConfig& config,
                                            genericserver::DelegationTarget& delegate);
  genericserver::GenericAPIServer& GenericServer() { return *generic_; }

 private:
  std::unique_ptr<genericserver::GenericAPIServer> generic_;
};

}  // namespace aggregator
