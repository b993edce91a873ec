#include "pkg/controllermanager/controller_names.h"

#include <algorithm>

namespace controllermanager {

const std::vector<ControllerName>& ControllerNames() {
  static const std::vector<ControllerName> names = {
      {kServiceAccountTokenController, {"serviceaccount-token"}, false, false, true},
      {"endpoints-controller", {"endpoint"}},
      {"endpointslice-controller", {"endpointslice"}},
      {"endpointslice-mirroring-controller", {"endpointslicemirroring"}},
      {"replicationcontroller-controller", {"replicationcontroller"}},
      {"pod-garbage-collector-controller", {"podgc"}},
      {"resourcequota-controller", {"resourcequota"}},
      {"namespace-controller", {"namespace"}},
      {"serviceaccount-controller", {"serviceaccount"}},
      {"garbage-collector-controller", {"garbagecollector"}},
      {"daemonset-controller", {"daemonset"}},
      {"job-controller", {"job"}},
      {"deployment-controller", {"deployment"}},
      {"replicaset-controller", {"replicaset"}},
      {"horizontal-pod-autoscaler-controller", {"horizontalpodautoscaling"}},
      {"disruption-controller", {"disruption"}},
      {"statefulset-controller", {"statefulset"}},
      {"cronjob-controller", {"cronjob"}},
      {"certificatesigningrequest-signing-controller", {"csrsigning"}},
      {"certificatesigningrequest-approving-controller", {"csrapproving"}},
      {"certificatesigningrequest-cleaner-controller", {"csrcleaner"}},
      {"ttl-controller", {"ttl"}},
      {"bootstrap-signer-controller", {"bootstrapsigner"}, true},
      {"token-cleaner-controller", {"tokencleaner"}, true},
      {"node-ipam-controller", {"nodeipam"}},
      {"node-lifecycle-controller", {"nodelifecycle"}},
      {"service-lb-controller", {"service"}, false, true},
      {"node-route-controller", {"route"}, false, true},
      {"cloud-node-lifecycle-controller", {"cloud-node-lifecycle"}, false, true},
      {"persistentvolume-binder-controller", {"persistentvolume-binder"}},
      {"persistentvolume-attach-detach-controller", {"attachdetach"}},
      {"persistentvolume-expander-controller", {"persistentvolume-expander"}},
      {"clusterrole-aggregation-controller", {"clusterrole-aggregation"}},
      {"persistentvolumeclaim-protection-controller", {"pvc-protection"}},
      {"persistentvolume-protection-controller", {"pv-protection"}},
      {"volumeattributesclass-protection-controller", {}},
      {"ttl-after-finished-controller", {"ttl-after-finished"}},
      {"root-ca-certificate-publisher-controller", {"root-ca-cert-publisher"}},
      {"kube-apiserver-serving-clustertrustbundle-publisher-controller", {}},
      {"ephemeral-volume-controller", {"ephemeral-volume"}},
      {"storageversion-garbage-collector-controller", {"storage-version-gc"}},
      {"resourceclaim-controller", {"resource-claim-controller"}},
      {"legacy-serviceaccount-token-cleaner-controller", {"legacy-service-account-token-cleaner"}},
      {"validatingadmissionpolicy-status-controller", {}},
      {"taint-eviction-controller", {}},
      {"service-cidr-controller", {}},
      {"storage-version-migrator-controller", {"svm"}},
      {"selinux-warning-controller", {}, true},
  };
  return names;
}

std::vector<std::string> KnownControllers() {
  std::vector<std::string> out;
  for (const auto& c : ControllerNames()) out.emplace_back(c.name);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ControllersDisabledByDefault() {
  std::vector<std::string> out;
  for (const auto& c : ControllerNames()) {
    if (c.disabled_by_default) out.emplace_back(c.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::map<std::string, std::string, std::less<>>& ControllerAliases() {
  static const auto aliases = [] {
    std::map<std::string, std::string, std::less<>> out;
    for (const auto& c : ControllerNames()) {
      for (auto alias : c.aliases) out.emplace(alias, c.name);
    }
    return out;
  }();
  return aliases;
}

}  // namespace controllermanager
