#pragma once
// The core ("master") server: the legacy core group at /api and, later, the built-in
// named groups. Sits between the aggregator and the apiextensions server.

#include <memory>

#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/generic_apiserver.h"
#include "pkg/genericserver/storage/factory.h"

namespace master {

class Instance {
 public:
  // The delegate must outlive the server.
  // The storage must outlive the server.
  static std::unique_ptr<Instance> New(const genericserver::CompletedConfig& config,
                                       genericserver::DelegationTarget& delegate,
                                       storage::StorageFactory& storage);
  genericserver::GenericAPIServer& GenericServer() { return *generic_; }

 private:
  std::unique_ptr<genericserver::GenericAPIServer> generic_;
};

}  // namespace master
