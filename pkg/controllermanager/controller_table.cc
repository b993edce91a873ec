#include "pkg/controllermanager/controller_table.h"

#include "pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.h"
#include "pkg/controller/garbagecollector/garbagecollector.h"
#include "pkg/controller/namespace/namespace_controller.h"
#include "pkg/controller/rootcacertpublisher/publisher.h"
#include "pkg/controller/serviceaccount/serviceaccounts_controller.h"
#include "pkg/controller/serviceaccount/tokens_controller.h"
#include "pkg/controllermanager/controller_names.h"

namespace controllermanager {

const std::map<std::string, controller::InitFunc>& ControllerInitializers() {
  static const std::map<std::string, controller::InitFunc> table = {
      {"clusterrole-aggregation-controller",
       controller::clusterroleaggregation::StartClusterRoleAggregationController},
      {"garbage-collector-controller",
       controller::garbagecollector::StartGarbageCollectorController},
      {"namespace-controller", controller::namespacecontroller::StartNamespaceController},
      {"root-ca-certificate-publisher-controller",
       controller::rootcacertpublisher::StartRootCACertPublisher},
      {"serviceaccount-controller", controller::serviceaccount::StartServiceAccountController},
      {kServiceAccountTokenController, controller::serviceaccount::StartTokensController},
  };
  return table;
}

}  // namespace controllermanager
