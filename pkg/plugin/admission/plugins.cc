#include "pkg/plugin/admission/plugins.h"

#include "pkg/genericserver/admission/namespace_lifecycle.h"
#include "pkg/genericserver/admission/policy/validating_policy.h"
#include "pkg/genericserver/admission/webhook/dispatcher.h"
#include "pkg/plugin/admission/certificates.h"
#include "pkg/plugin/admission/default_classes.h"
#include "pkg/plugin/admission/event_rate_limit.h"
#include "pkg/plugin/admission/limit_ranger.h"
#include "pkg/plugin/admission/pod_plugins.h"
#include "pkg/plugin/admission/pod_security/pod_security.h"
#include "pkg/plugin/admission/resource_quota.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace plugin::admission {

using ::admission::PluginPtr;

namespace {

// The webhook plugin's WebhookAdmissionConfiguration, checked at start (CheckPluginConfig).
std::shared_ptr<const ::admission::webhook::CredentialsResolver> WebhookCredentials(
    const PluginSettings& settings, const std::string& name) {
  auto it = settings.configs.find(name);
  if (it == settings.configs.end()) return nullptr;
  return ::admission::webhook::CredentialsResolver::FromConfiguration(it->second).value_or(nullptr);
}

}  // namespace

std::vector<PluginPtr> NewPlugins(const std::vector<std::string>& names,
                                  std::shared_ptr<const ::admission::Stores> stores,
                                  authz::AuthorizerPtr authorizer, const PluginSettings& settings) {
  std::vector<PluginPtr> plugins;
  std::vector<std::string> missing;
  for (const std::string& name : names) {
    if (name == "NamespaceLifecycle") {
      plugins.push_back(::admission::NewNamespaceLifecycle(stores));
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
    } else if (name == "StorageObjectInUseProtection") {
      plugins.push_back(NewStorageObjectInUseProtection());
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
    } else if (name == "EventRateLimit") {
      auto it = settings.configs.find(name);
      auto made = NewEventRateLimit(it == settings.configs.end() ? "" : it->second);
      if (made) plugins.push_back(std::move(*made));
    } else if (name == "AlwaysPullImages") {
      plugins.push_back(NewAlwaysPullImages());
    } else if (name == "RuntimeClass") {
      plugins.push_back(NewRuntimeClass(stores));
    } else if (name == "ResourceQuota") {
      plugins.push_back(NewResourceQuota(stores));
    } else if (name == "PodSecurity") {
      pod_security::Configuration configuration;
      if (auto it = settings.configs.find(name); it != settings.configs.end()) {
        configuration = pod_security::ParseConfiguration(it->second).value_or(configuration);
      }
      plugins.push_back(pod_security::NewPodSecurity(stores, std::move(configuration)));
    } else if (name == "MutatingAdmissionWebhook") {
      plugins.push_back(::admission::webhook::NewMutatingWebhook(
          stores, settings.resolve_service, WebhookCredentials(settings, name)));
    } else if (name == "ValidatingAdmissionPolicy") {
      plugins.push_back(::admission::policy::NewValidatingAdmissionPolicy(stores));
    } else if (name == "ValidatingAdmissionWebhook") {
      plugins.push_back(::admission::webhook::NewValidatingWebhook(
          stores, settings.resolve_service, WebhookCredentials(settings, name)));
    } else if (name != "AlwaysAdmit") {
      missing.push_back(name);
    }
  }
  if (!missing.empty()) {
    KLOG_WARNING << "Admission plugins not implemented yet, not run: " << util::Join(missing, ",");
  }
  return plugins;
}

std::optional<std::string> CheckPluginConfig(const std::string& name, const std::string& config) {
  if (name == "PodSecurity" && !config.empty()) {
    auto parsed = pod_security::ParseConfiguration(config);
    if (!parsed) return parsed.error();
  }
  if (name == "MutatingAdmissionWebhook" || name == "ValidatingAdmissionWebhook") {
    auto loaded = ::admission::webhook::CredentialsResolver::FromConfiguration(config);
    if (!loaded) return loaded.error();
  }
  if (name == "EventRateLimit") {
    auto made = NewEventRateLimit(config);
    if (!made) return made.error();
  }
  return std::nullopt;
}

}  // namespace plugin::admission
