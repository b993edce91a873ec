#include "pkg/controllermanager/controller_table.h"

#include "pkg/controller/bootstrap/bootstrap_signer.h"
#include "pkg/controller/bootstrap/token_cleaner.h"
#include "pkg/controller/certificates/approver.h"
#include "pkg/controller/certificates/cleaner.h"
#include "pkg/controller/certificates/signing_controller.h"
#include "pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.h"
#include "pkg/controller/garbagecollector/garbagecollector.h"
#include "pkg/controller/namespace/namespace_controller.h"
#include "pkg/controller/resourcequota/resource_quota_controller.h"
#include "pkg/controller/rootcacertpublisher/publisher.h"
#include "pkg/controller/serviceaccount/serviceaccounts_controller.h"
#include "pkg/controller/serviceaccount/tokens_controller.h"
#include "pkg/controller/ttlafterfinished/ttlafterfinished_controller.h"
#include "pkg/controller/volume/protection/protection.h"
#include "pkg/controllermanager/controller_names.h"

namespace controllermanager {

const std::map<std::string, controller::InitFunc>& ControllerInitializers() {
  static const std::map<std::string, controller::InitFunc> table = {
      {"bootstrap-signer-controller", controller::bootstrap::StartBootstrapSignerController},
      {"certificatesigningrequest-approving-controller",
       controller::certificates::StartCSRApprovingController},
      {"certificatesigningrequest-cleaner-controller",
       controller::certificates::StartCSRCleanerController},
      {"certificatesigningrequest-signing-controller",
       controller::certificates::StartCSRSigningController},
      {"clusterrole-aggregation-controller",
       controller::clusterroleaggregation::StartClusterRoleAggregationController},
      {"garbage-collector-controller",
       controller::garbagecollector::StartGarbageCollectorController},
      {"namespace-controller", controller::namespacecontroller::StartNamespaceController},
      {"persistentvolume-protection-controller",
       controller::volume::protection::StartPVProtectionController},
      {"persistentvolumeclaim-protection-controller",
       controller::volume::protection::StartPVCProtectionController},
      {"resourcequota-controller", controller::resourcequota::StartResourceQuotaController},
      {"root-ca-certificate-publisher-controller",
       controller::rootcacertpublisher::StartRootCACertPublisher},
      {"serviceaccount-controller", controller::serviceaccount::StartServiceAccountController},
      {"token-cleaner-controller", controller::bootstrap::StartTokenCleanerController},
      {"ttl-after-finished-controller",
       controller::ttlafterfinished::StartTTLAfterFinishedController},
      {kServiceAccountTokenController, controller::serviceaccount::StartTokensController},
  };
  return table;
}

}  // namespace controllermanager
