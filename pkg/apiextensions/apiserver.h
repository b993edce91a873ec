#pragma once
// The apiextensions server: apiextensions.k8s.io and, later, every CRD group. Last in
// the delegation chain; what it does not serve reaches the 404 at the chain's end.

#include <memory>

#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/generic_apiserver.h"

namespace apiextensions {

class CustomResourceDefinitions {
 public:
  // The delegate must outlive the server.
  static std::unique_ptr<CustomResourceDefinitions> New(
      const genericserver::CompletedConfig& config, genericserver::DelegationTarget& delegate);
  genericserver::GenericAPIServer& GenericServer() { return *generic_; }

 private:
  std::unique_ptr<genericserver::GenericAPIServer> generic_;
};

}  // namespace apiextensions
