#include "pkg/master/master.h"

#include <atomic>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/admission/stores.h"
#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"
#include "pkg/genericserver/endpoints/installer.h"
#include "pkg/genericserver/storage/converting.h"
#include "pkg/master/bootstrap/kubernetes_service.h"
#include "pkg/master/bootstrap/priority_classes.h"
#include "pkg/master/bootstrap/rbac_bootstrap.h"
#include "pkg/master/bootstrap/system_namespaces.h"
#include "pkg/master/registry/core/service_allocations.h"
#include "pkg/master/registry/rbac/escalation.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/service_account_issuer_discovery.h"
#include "pkg/master/store_feed.h"
#include "pkg/plugin/authenticator/bootstrap_token.h"
#include "pkg/util/log.h"

namespace master {
namespace {

// A group-version handler and its discovery description, ready to install.
struct GroupVersion {
  endpoints::APIGroupInfo info;
  std::map<std::string, genericserver::HandlerPtr> handlers;
};

GroupVersion MakeGroupVersion(std::unique_ptr<endpoints::GroupVersionHandler> handler) {
  GroupVersion gv;
  const std::string version = handler->Version();
  gv.info.group = {handler->Group(), {version}};
  gv.info.resources[version] = handler->Resources();
  gv.info.specs[version] = handler->Specs();
  gv.handlers[version] = std::move(handler);
  return gv;
}

}  // namespace

std::unique_ptr<Instance> Instance::New(const genericserver::CompletedConfig& config,
                                        genericserver::DelegationTarget& delegate,
                                        storage::StorageFactory& storage, const Config& master) {
  auto s = std::unique_ptr<Instance>(new Instance());
  s->generic_ = config.New("kube-apiserver", delegate);
  // Named "etcd" whatever the backend, as upstream names its storage check.
  auto storage_check = [&storage]() -> std::expected<void, std::string> {
    auto healthy = storage.Healthy();
    if (!healthy) return std::unexpected(healthy.error().message);
    return {};
  };
  s->generic_->AddHealthChecks({{"etcd", storage_check}});
  // readyz only: the storage answers, and every watch cache (our informers) has its first
  // list, as upstream's informer-sync waits for its informers.
  s->generic_->AddReadyzChecks(
      {{"etcd-readiness", storage_check},
       // Once synced it stays so, as an informer's HasSynced (new caches of CRDs later
       // do not make the server unready).
       {"informer-sync",
        [&storage, policy = master.rbac_policy, lookup = master.service_account_lookup,
         bootstrap_tokens = master.bootstrap_tokens,
         synced =
             std::make_shared<std::atomic<bool>>(false)]() -> std::expected<void, std::string> {
          if (*synced) return {};
          const size_t unsynced = storage.UnsyncedCaches().size() + (policy && !policy->Synced()) +
                                  (lookup && !lookup->Synced()) +
                                  (bootstrap_tokens && !bootstrap_tokens->Synced());
          if (unsynced > 0) {
            return std::unexpected(std::to_string(unsynced) + " informers not started yet");
          }
          *synced = true;
          return {};
        }}});
  genericserver::Lifecycle* lifecycle = config.Get().lifecycle.get();
  // Every store is registered for the admission plugins that read it.
  auto admission_stores = master.admission_stores;
  auto store = [&storage, admission_stores](registry::ResourceSpecPtr spec,
                                            registry::Admission admission) {
    auto cache = storage.ForResource(spec->storage_prefix + "/");
    auto made =
        std::make_shared<registry::Store>(std::move(spec), std::move(cache), std::move(admission));
    if (admission_stores) admission_stores->Add(made);
    return made;
  };
  const registry::Admission& chain = master.admission;
  auto namespaces = store(resources::Namespaces(), chain);

  // A store serving one version of a resource kept in storage as another.
  auto converted = [&storage](registry::ResourceSpecPtr spec, storage::Conversion conversion,
                              registry::Admission admission) {
    auto cache = storage::NewConverting(storage.ForResource(spec->storage_prefix + "/"),
                                        std::move(conversion));
    return std::make_shared<registry::Store>(std::move(spec), std::move(cache),
                                             std::move(admission));
  };

  // One handler per group-version, the group installed with all its versions (the
  // preferred one first); every resource passes the admission chain.
  struct Version {
    std::string version;
    std::vector<registry::ResourceSpecPtr> specs;
    std::vector<std::shared_ptr<registry::Store>> stores = {};
  };
  auto api_group = [&](const std::string& group, std::vector<Version> versions) {
    GroupVersion all;
    all.info.group.name = group;
    for (Version& v : versions) {
      auto handler = std::make_unique<endpoints::GroupVersionHandler>(group, v.version, lifecycle);
      if (group.empty()) handler->Add(namespaces);
      for (auto& made : v.stores) handler->Add(std::move(made));
      for (auto& spec : v.specs) handler->Add(store(std::move(spec), chain));
      GroupVersion gv = MakeGroupVersion(std::move(handler));
      all.info.group.versions.push_back(v.version);
      all.info.resources[v.version] = std::move(gv.info.resources[v.version]);
      all.info.specs[v.version] = std::move(gv.info.specs[v.version]);
      all.handlers[v.version] = std::move(gv.handlers[v.version]);
    }
    if (group.empty()) {
      s->generic_->InstallLegacyAPIGroup(std::move(all.info), std::move(all.handlers));
    } else {
      s->generic_->InstallAPIGroup(std::move(all.info), std::move(all.handlers));
    }
  };
  auto group_version = [&](const std::string& group, const std::string& version,
                           std::vector<registry::ResourceSpecPtr> specs,
                           std::vector<std::shared_ptr<registry::Store>> stores = {}) {
    api_group(group, {{version, std::move(specs), std::move(stores)}});
  };
  resources::ServiceRanges ranges;
  ranges.cluster_ip_range = master.service_cluster_ip_range;
  ranges.node_port_first = master.node_port_first;
  ranges.node_port_last = master.node_port_last;
  auto allocations = resources::NewServiceAllocations(storage.ForResource("/ranges/"), ranges);
  auto services = store(resources::Services(master.service_cluster_ip_range, allocations), chain);
  auto endpoints = store(resources::Endpoints(), chain);
  auto disruption_budgets = store(resources::PodDisruptionBudgets(), chain);
  auto component_statuses = std::make_shared<registry::Store>(
      resources::ComponentStatuses(),
      resources::NewComponentStatusStorage([&storage]() -> std::optional<std::string> {
        auto healthy = storage.Healthy();
        if (healthy) return std::nullopt;
        return healthy.error().message;
      }),
      nullptr);
  auto pods = store(resources::Pods(disruption_budgets), chain);
  auto secrets = store(resources::Secrets(), chain);
  auto nodes = store(resources::Nodes(), chain);
  auto service_accounts = store(resources::ServiceAccounts(master, {pods, secrets, nodes}), chain);
  if (auto lookup = master.service_account_lookup) {
    using Kind = authn::ServiceAccountObjects::Kind;
    for (auto [followed, kind] :
         {std::pair{service_accounts, Kind::kServiceAccount}, std::pair{secrets, Kind::kSecret},
          std::pair{pods, Kind::kPod}, std::pair{nodes, Kind::kNode}}) {
      StartStoreFeed(followed, FeedInto(lookup, kind), *lifecycle, *config.Get().io);
    }
  }
  if (auto tokens = master.bootstrap_tokens) {
    StartStoreFeed(secrets, FeedInto(tokens, authn::BootstrapTokenSecrets::Kind::kSecret),
                   *lifecycle, *config.Get().io);
  }
  auto bindings = std::make_shared<registry::Store>(resources::Bindings(pods), nullptr, chain);
  auto config_maps = store(resources::ConfigMaps(), chain);
  group_version("", "v1",
                {resources::Events(), resources::PersistentVolumes(),
                 resources::PersistentVolumeClaims(), resources::ReplicationControllers(),
                 resources::PodTemplates(), resources::LimitRanges(), resources::ResourceQuotas()},
                {pods, bindings, services, endpoints, component_statuses, config_maps, secrets,
                 service_accounts, nodes});
  group_version("apps", "v1",
                {resources::Deployments(), resources::ReplicaSets(), resources::StatefulSets(),
                 resources::DaemonSets(), resources::ControllerRevisions()});
  storage::Conversion hpa_v1;
  hpa_v1.to_storage = resources::HorizontalPodAutoscalerToV2;
  hpa_v1.from_storage = resources::HorizontalPodAutoscalerToV1;
  registry::ResourceSpecPtr hpa = resources::HorizontalPodAutoscalers();
  registry::ResourceSpecPtr hpa_as_v1 = resources::HorizontalPodAutoscalersV1();
  {
    // A manager that wrote through one version is compared in it by writes through the other.
    auto versions = std::make_shared<apimachinery::managedfields::KindVersions>();
    auto same = [](const nlohmann::json& o) { return o; };
    versions->Add(hpa->GroupVersion(), hpa->field_manager, same, same);
    versions->Add(hpa_as_v1->GroupVersion(), hpa_as_v1->field_manager, hpa_v1.to_storage,
                  hpa_v1.from_storage);
    hpa->field_manager->LinkVersions(versions);
    hpa_as_v1->field_manager->LinkVersions(versions);
  }
  api_group("autoscaling", {{"v2", {hpa}}, {"v1", {}, {converted(hpa_as_v1, hpa_v1, chain)}}});
  group_version("batch", "v1", {resources::Jobs(), resources::CronJobs()});
  group_version("certificates.k8s.io", "v1", {resources::CertificateSigningRequests()});
  group_version(
      "networking.k8s.io", "v1",
      {resources::Ingresses(), resources::IngressClasses(), resources::NetworkPolicies()});
  group_version("policy", "v1", {}, {disruption_budgets});
  bootstrap::RBACStores rbac;
  // With RBAC on, nobody grants what they do not hold.
  registry::Admission rbac_admit =
      master.rbac_policy
          ? resources::PreventRBACEscalation(config.Get().authorizer, master.rbac_policy, chain)
          : chain;
  rbac.roles = store(resources::Roles(), rbac_admit);
  rbac.cluster_roles = store(resources::ClusterRoles(), rbac_admit);
  rbac.role_bindings = store(resources::RoleBindings(), rbac_admit);
  rbac.cluster_role_bindings = store(resources::ClusterRoleBindings(), rbac_admit);
  rbac.namespaces = namespaces;
  group_version("rbac.authorization.k8s.io", "v1", {},
                {rbac.roles, rbac.cluster_roles, rbac.role_bindings, rbac.cluster_role_bindings});
  if (master.rbac_policy) {
    using authz::rbac::PolicyKind;
    for (auto [followed, kind] :
         {std::pair{rbac.roles, PolicyKind::kRole},
          std::pair{rbac.cluster_roles, PolicyKind::kClusterRole},
          std::pair{rbac.role_bindings, PolicyKind::kRoleBinding},
          std::pair{rbac.cluster_role_bindings, PolicyKind::kClusterRoleBinding}}) {
      StartStoreFeed(followed, FeedInto(master.rbac_policy, kind), *lifecycle, *config.Get().io);
    }
  }
  group_version("storage.k8s.io", "v1",
                {resources::StorageClasses(), resources::CSIDrivers(), resources::CSINodes(),
                 resources::VolumeAttachments(), resources::CSIStorageCapacities()});
  group_version(
      "admissionregistration.k8s.io", "v1",
      {resources::MutatingWebhookConfigurations(), resources::ValidatingWebhookConfigurations(),
       resources::ValidatingAdmissionPolicies(), resources::ValidatingAdmissionPolicyBindings()});
  auto priority_classes = store(resources::PriorityClasses(), chain);
  group_version("scheduling.k8s.io", "v1", {}, {priority_classes});
  storage::Conversion events_v1;
  events_v1.to_storage = resources::EventToCore;
  events_v1.from_storage = resources::EventFromCore;
  group_version("events.k8s.io", "v1", {}, {converted(resources::EventsV1(), events_v1, chain)});
  group_version("coordination.k8s.io", "v1", {resources::Leases()});
  // The reviews are requests answered by the authenticator and authorizer, never stored.
  auto request_only = [](registry::ResourceSpecPtr spec) {
    return std::make_shared<registry::Store>(std::move(spec), nullptr, nullptr);
  };
  const genericserver::Config& generic = config.Get();
  group_version("authentication.k8s.io", "v1", {},
                {request_only(resources::TokenReviews(generic.authenticator, master.api_audiences)),
                 request_only(resources::SelfSubjectReviews())});
  group_version("authorization.k8s.io", "v1", {},
                {request_only(resources::SubjectAccessReviews(generic.authorizer)),
                 request_only(resources::LocalSubjectAccessReviews(generic.authorizer)),
                 request_only(resources::SelfSubjectAccessReviews(generic.authorizer)),
                 request_only(resources::SelfSubjectRulesReviews(generic.authorizer))});
  group_version("node.k8s.io", "v1", {resources::RuntimeClasses()});
  auto endpoint_slices = store(resources::EndpointSlices(), chain);
  group_version("discovery.k8s.io", "v1", {}, {endpoint_slices});
  group_version("flowcontrol.apiserver.k8s.io", "v1",
                {resources::FlowSchemas(), resources::PriorityLevelConfigurations()});

  if (!master.service_account_public_keys.empty()) {
    IssuerDiscovery discovery{master.service_account_issuer, master.service_account_jwks_uri,
                              config.Get().external_address, master.service_account_public_keys};
    if (auto off = InstallIssuerDiscovery(*s->generic_, discovery); !off) {
      KLOG_WARNING << "service account issuer discovery is off: " << off.error();
    }
  }
  s->generic_->AddPostStartHook("start-system-namespaces-controller",
                                bootstrap::SystemNamespaces(namespaces));
  // The `kubernetes` service: port 443 to this server's secure port on its address.
  const std::string& address = config.Get().external_address;
  const size_t colon = address.rfind(':');
  bootstrap::KubernetesService kubernetes;
  kubernetes.cluster_ip = resources::FirstIP(master.service_cluster_ip_range);
  kubernetes.address = address.substr(0, colon);
  if (kubernetes.address.starts_with('[')) {
    kubernetes.address = kubernetes.address.substr(1, kubernetes.address.size() - 2);
  }
  if (colon != std::string::npos) kubernetes.port = std::stoi(address.substr(colon + 1));
  // Upstream's cluster-authentication-trust controller, run once.
  s->generic_->AddPostStartHook(
      "start-cluster-authentication-info-controller",
      bootstrap::AuthenticationConfigMap(namespaces, config_maps, master.cluster_authentication));
  // Upstream's RBAC bootstrap policy, created and reconciled at every start.
  s->generic_->AddPostStartHook("rbac/bootstrap-roles", bootstrap::RBACBootstrapRoles(rbac));
  s->generic_->AddPostStartHook("scheduling/bootstrap-system-priority-classes",
                                bootstrap::SystemPriorityClasses(priority_classes));
  s->generic_->AddPostStartHook("bootstrap-controller",
                                bootstrap::KubernetesServiceHook(namespaces, services, endpoints,
                                                                 endpoint_slices, kubernetes));
  return s;
}

}  // namespace master
