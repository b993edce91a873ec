#pragma once
// The three servers chained by delegation: aggregator -> master -> apiextensions -> 404.

#include <memory>

#include "pkg/aggregator/aggregator.h"
#include "pkg/apiextensions/apiserver.h"
#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/delegation_target.h"
#include "pkg/master/master.h"

namespace app {

// Members are declared delegate first: destroyed in reverse, every server dies before
// the delegate it borrows.
struct ServerChain {
  std::unique_ptr<genericserver::EmptyDelegate> not_found;
  std::unique_ptr<apiextensions::CustomResourceDefinitions> extensions;
  std::unique_ptr<master::Instance> master;
  std::unique_ptr<aggregator::APIAggregator> aggregator;

  // The server that listens and runs every hook of the chain.
  genericserver::GenericAPIServer& Outermost() { return aggregator->GenericServer(); }
};

// The storage must outlive the chain.
ServerChain CreateServerChain(const genericserver::CompletedConfig& config,
                              storage::StorageFactory& storage, const master::Config& master = {},
                              const aggregator::Config& aggregator = {});

}  // namespace app
