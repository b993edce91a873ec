#include "pkg/genericserver/admission/plugins.h"

#include <algorithm>
#include <set>

#include "pkg/util/strings.h"

namespace admission {

const std::vector<std::string>& AllOrderedPlugins() {
  static const std::vector<std::string> all = {
      "AlwaysAdmit",
      "NamespaceAutoProvision",
      "NamespaceLifecycle",
      "NamespaceExists",
      "LimitPodHardAntiAffinityTopology",
      "LimitRanger",
      "ServiceAccount",
      "NodeRestriction",
      "TaintNodesByCondition",
      "AlwaysPullImages",
      "ImagePolicyWebhook",
      "PodSecurity",
      "PodNodeSelector",
      "Priority",
      "DefaultTolerationSeconds",
      "PodTolerationRestriction",
      "EventRateLimit",
      "ExtendedResourceToleration",
      "DefaultStorageClass",
      "StorageObjectInUseProtection",
      "OwnerReferencesPermissionEnforcement",
      "PersistentVolumeClaimResize",
      "RuntimeClass",
      "CertificateApproval",
      "CertificateSigning",
      "ClusterTrustBundleAttest",
      "CertificateSubjectRestriction",
      "DefaultIngressClass",
      "DenyServiceExternalIPs",
      // Webhooks, quota and deny go last, as upstream orders them.
      "MutatingAdmissionPolicy",
      "MutatingAdmissionWebhook",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionWebhook",
      "ResourceQuota",
      "AlwaysDeny",
  };
  return all;
}

const std::vector<std::string>& DefaultOnPlugins() {
  static const std::vector<std::string> on = {
      "NamespaceLifecycle",
      "LimitRanger",
      "ServiceAccount",
      "TaintNodesByCondition",
      "PodSecurity",
      "Priority",
      "DefaultTolerationSeconds",
      "DefaultStorageClass",
      "StorageObjectInUseProtection",
      "PersistentVolumeClaimResize",
      "RuntimeClass",
      "CertificateApproval",
      "CertificateSigning",
      "ClusterTrustBundleAttest",
      "CertificateSubjectRestriction",
      "DefaultIngressClass",
      "MutatingAdmissionPolicy",
      "MutatingAdmissionWebhook",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionWebhook",
      "ResourceQuota",
  };
  return on;
}

std::expected<std::vector<std::string>, std::vector<std::string>> EnabledPlugins(
    const std::vector<std::string>& enable, const std::vector<std::string>& disable) {
  const std::vector<std::string>& all = AllOrderedPlugins();
  std::vector<std::string> errors;
  for (auto [flag, names] : {std::pair{"enable-admission-plugins", &enable},
                             std::pair{"disable-admission-plugins", &disable}}) {
    for (const std::string& name : *names) {
      if (std::ranges::find(all, name) == all.end()) {
        errors.push_back(std::string(flag) + " plugin " + util::Quote(name) + " is unknown");
      }
    }
  }
  std::set<std::string> both;
  for (const std::string& name : enable) {
    if (std::ranges::find(disable, name) != disable.end()) both.insert(name);
  }
  if (!both.empty()) {
    errors.push_back("[" + util::Join(std::vector<std::string>(both.begin(), both.end()), " ") +
                     "] in enable-admission-plugins and disable-admission-plugins overlapped");
  }
  if (!errors.empty()) return std::unexpected(std::move(errors));
  std::vector<std::string> on;
  for (const std::string& name : all) {
    const bool wanted = std::ranges::find(DefaultOnPlugins(), name) != DefaultOnPlugins().end() ||
                        std::ranges::find(enable, name) != enable.end();
    if (wanted && std::ranges::find(disable, name) == disable.end()) on.push_back(name);
  }
  return on;
}

}  // namespace admission
