#pragma once
// The built-in resources of the master server, one ResourceSpec each (spec, strategy,
// table columns, selectable fields, schema).

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/authn/authenticator.h"
#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/genericserver/registry/allocations.h"
#include "pkg/genericserver/registry/resource_spec.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/storage/interface.h"
#include "pkg/master/master.h"

namespace master::resources {

// core/v1
registry::ResourceSpecPtr Namespaces();
registry::ResourceSpecPtr ConfigMaps();
registry::ResourceSpecPtr Secrets();
registry::ResourceSpecPtr Events();
// With the token subresource when `master` has a signing key.
// What service-account tokens may be bound to (serviceaccounts/token reads them).
struct BoundObjectStores {
  std::shared_ptr<registry::Store> pods, secrets, nodes;
};
registry::ResourceSpecPtr ServiceAccounts(const master::Config& master, BoundObjectStores bound);
// Evictions consult the policy/v1 PodDisruptionBudget store.
registry::ResourceSpecPtr Pods(std::shared_ptr<registry::Store> disruption_budgets);
// The legacy `bindings` collection (create only): binds pods of `pods` as pods/binding does.
registry::ResourceSpecPtr Bindings(std::shared_ptr<registry::Store> pods);
registry::ResourceSpecPtr Endpoints();
// Read-only, computed on each read: the storage's health (its error, or std::nullopt) and
// the scheduler's and controller manager's on their local ports.
registry::ResourceSpecPtr ComponentStatuses();
std::shared_ptr<storage::Interface> NewComponentStatusStorage(
    std::function<std::optional<std::string>()> storage_health);
registry::ResourceSpecPtr Nodes();
registry::ResourceSpecPtr PersistentVolumes();
registry::ResourceSpecPtr PersistentVolumeClaims();
registry::ResourceSpecPtr ReplicationControllers();
registry::ResourceSpecPtr PodTemplates();
registry::ResourceSpecPtr LimitRanges();
registry::ResourceSpecPtr ResourceQuotas();
// Services take cluster IPs from the range (its family is the services' ipFamilies) and
// hold them and their node ports through `allocations`.
registry::ResourceSpecPtr Services(const std::string& cluster_ip_range,
                                   std::shared_ptr<const registry::Allocations> allocations);
// apps/v1
registry::ResourceSpecPtr Deployments();
registry::ResourceSpecPtr ReplicaSets();
registry::ResourceSpecPtr StatefulSets();
registry::ResourceSpecPtr DaemonSets();
registry::ResourceSpecPtr ControllerRevisions();
// batch/v1
registry::ResourceSpecPtr Jobs();
registry::ResourceSpecPtr CronJobs();
// authentication.k8s.io/v1: what the authenticator makes of a token, who the requester is.
// api_audiences: whom a review that names no audiences asks about (--api-audiences).
registry::ResourceSpecPtr TokenReviews(authn::AuthenticatorPtr authenticator,
                                       std::vector<std::string> api_audiences);
registry::ResourceSpecPtr SelfSubjectReviews();
// authorization.k8s.io/v1: what the authorizer allows.
registry::ResourceSpecPtr SubjectAccessReviews(authz::AuthorizerPtr authorizer);
registry::ResourceSpecPtr LocalSubjectAccessReviews(authz::AuthorizerPtr authorizer);
registry::ResourceSpecPtr SelfSubjectAccessReviews(authz::AuthorizerPtr authorizer);
registry::ResourceSpecPtr SelfSubjectRulesReviews(authz::AuthorizerPtr authorizer);
// coordination.k8s.io/v1
registry::ResourceSpecPtr Leases();
// rbac.authorization.k8s.io/v1
registry::ResourceSpecPtr Roles();
registry::ResourceSpecPtr ClusterRoles();
registry::ResourceSpecPtr RoleBindings();
registry::ResourceSpecPtr ClusterRoleBindings();
// scheduling.k8s.io/v1
registry::ResourceSpecPtr PriorityClasses();
// node.k8s.io/v1
registry::ResourceSpecPtr RuntimeClasses();
// policy/v1
registry::ResourceSpecPtr PodDisruptionBudgets();
// networking.k8s.io/v1
registry::ResourceSpecPtr Ingresses();
registry::ResourceSpecPtr IngressClasses();
registry::ResourceSpecPtr NetworkPolicies();
// discovery.k8s.io/v1
registry::ResourceSpecPtr EndpointSlices();
// storage.k8s.io/v1
registry::ResourceSpecPtr StorageClasses();
registry::ResourceSpecPtr CSIDrivers();
registry::ResourceSpecPtr CSINodes();
registry::ResourceSpecPtr VolumeAttachments();
registry::ResourceSpecPtr CSIStorageCapacities();
// admissionregistration.k8s.io/v1
registry::ResourceSpecPtr MutatingWebhookConfigurations();
registry::ResourceSpecPtr ValidatingWebhookConfigurations();
registry::ResourceSpecPtr ValidatingAdmissionPolicies();
registry::ResourceSpecPtr ValidatingAdmissionPolicyBindings();
// autoscaling/v2, and v1 (stored as v2)
registry::ResourceSpecPtr HorizontalPodAutoscalers();
registry::ResourceSpecPtr HorizontalPodAutoscalersV1();
nlohmann::json HorizontalPodAutoscalerToV2(const nlohmann::json& v1);
nlohmann::json HorizontalPodAutoscalerToV1(const nlohmann::json& v2);
// flowcontrol.apiserver.k8s.io/v1
registry::ResourceSpecPtr FlowSchemas();
registry::ResourceSpecPtr PriorityLevelConfigurations();
// events.k8s.io/v1 (stored as core/v1 events)
registry::ResourceSpecPtr EventsV1();
nlohmann::json EventToCore(const nlohmann::json& event);
nlohmann::json EventFromCore(const nlohmann::json& event);
// certificates.k8s.io/v1
registry::ResourceSpecPtr CertificateSigningRequests();

}  // namespace master::resources
