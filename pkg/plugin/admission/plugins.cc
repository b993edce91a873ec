#include "pkg/plugin/admission/plugins.h"

#include <mutex>

#include "pkg/genericserver/admission/namespace_lifecycle.h"
#include "pkg/plugin/admission/certificates.h"
#include "pkg/plugin/admission/default_classes.h"
#include "pkg/plugin/admission/limit_ranger.h"
#include "pkg/plugin/admission/pod_plugins.h"
#include "pkg/plugin/admission/resource_quota.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace plugin::admission {
namespace {

using ::admission::Plugin;
using ::admission::PluginPtr;

// NamespaceLifecycle, reading the namespaces store when it is asked (the stores are filled
// after the plugins are made).
class LateNamespaceLifecycle final : public Plugin {
 public:
  explicit LateNamespaceLifecycle(std::shared_ptr<const ::admission::Stores> stores)
      : stores_(std::move(stores)) {}

  Awaitable<std::optional<apimachinery::Status>> Admit(const ::admission::Attributes& a,
                                                       nlohmann::json& object) const override {
    std::call_once(once_, [this] {
      if (auto namespaces = stores_->Get("namespaces")) {
        plugin_ = ::admission::NewNamespaceLifecycle(std::move(namespaces));
      }
    });
    if (!plugin_) co_return apimachinery::NewInternalError("no namespace store");
    co_return co_await plugin_->Admit(a, object);
  }

 private:
  std::shared_ptr<const ::admission::Stores> stores_;
  mutable std::once_flag once_;
  mutable PluginPtr plugin_;
};

}  // namespace

std::vector<PluginPtr> NewPlugins(const std::vector<std::string>& names,
                                  std::shared_ptr<const ::admission::Stores> stores,
                                  authz::AuthorizerPtr authorizer, const PluginSettings& settings) {
  std::vector<PluginPtr> plugins;
  std::vector<std::string> missing;
  for (const std::string& name : names) {
    if (name == "NamespaceLifecycle") {
      plugins.push_back(std::make_shared<LateNamespaceLifecycle>(stores));
    } else if (name == "LimitRanger") {
      plugins.push_back(NewLimitRanger(stores));
    } else if (name == "ServiceAccount") {
      plugins.push_back(NewServiceAccount(stores));
    } else if (name == "Priority") {
      plugins.push_back(NewPriority(stores));
    } else if (name == "DefaultTolerationSeconds") {
      plugins.push_back(
          NewDefaultTolerationSeconds(settings.default_not_ready_toleration_seconds,
                                      settings.default_unreachable_toleration_seconds));
    } else if (name == "TaintNodesByCondition") {
      plugins.push_back(NewTaintNodesByCondition());
    } else if (name == "DefaultStorageClass") {
      plugins.push_back(NewDefaultStorageClass(stores));
    } else if (name == "PersistentVolumeClaimResize") {
      plugins.push_back(NewPersistentVolumeClaimResize(stores));
    } else if (name == "DefaultIngressClass") {
      plugins.push_back(NewDefaultIngressClass(stores));
    } else if (name == "CertificateApproval") {
      plugins.push_back(NewCertificateApproval(authorizer));
    } else if (name == "CertificateSigning") {
      plugins.push_back(NewCertificateSigning(authorizer));
    } else if (name == "CertificateSubjectRestriction") {
      plugins.push_back(NewCertificateSubjectRestriction());
    } else if (name == "AlwaysPullImages") {
      plugins.push_back(NewAlwaysPullImages());
    } else if (name == "RuntimeClass") {
      plugins.push_back(NewRuntimeClass(stores));
    } else if (name == "ResourceQuota") {
      plugins.push_back(NewResourceQuota(stores));
    } else if (name != "AlwaysAdmit") {
      missing.push_back(name);
    }
  }
  if (!missing.empty()) {
    KLOG_WARNING << "Admission plugins not implemented yet, not run: " << util::Join(missing, ",");
  }
  return plugins;
}

}  // namespace plugin::admission
