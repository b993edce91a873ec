#include "pkg/master/schemas/descriptions.h"

#include <nlohmann/json.hpp>

namespace schemas {

namespace {

constexpr std::string_view kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
constexpr std::string_view kConfigMap = "io.k8s.api.core.v1.ConfigMap";
constexpr std::string_view kSecret = "io.k8s.api.core.v1.Secret";
constexpr std::string_view kNamespace = "io.k8s.api.core.v1.Namespace";
constexpr std::string_view kEvent = "io.k8s.api.core.v1.Event";
constexpr std::string_view kServiceAccount = "io.k8s.api.core.v1.ServiceAccount";
constexpr std::string_view kLease = "io.k8s.api.coordination.v1.Lease";
constexpr std::string_view kLeaseSpec = "io.k8s.api.coordination.v1.LeaseSpec";
constexpr std::string_view kPod = "io.k8s.api.core.v1.Pod";
constexpr std::string_view kPodSpec = "io.k8s.api.core.v1.PodSpec";
constexpr std::string_view kContainer = "io.k8s.api.core.v1.Container";
constexpr std::string_view kService = "io.k8s.api.core.v1.Service";
constexpr std::string_view kServiceSpec = "io.k8s.api.core.v1.ServiceSpec";
constexpr std::string_view kDeployment = "io.k8s.api.apps.v1.Deployment";
constexpr std::string_view kDeploymentSpec = "io.k8s.api.apps.v1.DeploymentSpec";
constexpr std::string_view kJob = "io.k8s.api.batch.v1.Job";
constexpr std::string_view kJobSpec = "io.k8s.api.batch.v1.JobSpec";
constexpr std::string_view kCronJobSpec = "io.k8s.api.batch.v1.CronJobSpec";

constexpr std::string_view kApiVersion =
    "The group and version of the schema this object follows, as \"group/version\" (only the "
    "version for the core group).";
constexpr std::string_view kKind = "The type of this object, in CamelCase.";
constexpr std::string_view kMetadata =
    "Name, namespace, labels, annotations and the other data every object carries.";
constexpr std::string_view kImmutable =
    "When true, the data can no longer be changed; only metadata can. It cannot be set back "
    "to false: delete and recreate the object instead.";

}  // namespace

const std::vector<Description>& Descriptions() {
  static const std::vector<Description> all = {
      // Every kind's common fields.
      {kMeta, "", "Data every persisted object carries: its identity and bookkeeping."},
      {kMeta, "name", "Unique within the namespace (or the cluster, for cluster-wide kinds)."},
      {kMeta, "generateName",
       "A prefix from which the server makes a unique name when name is empty."},
      {kMeta, "namespace", "The namespace the object lives in; empty for cluster-wide kinds."},
      {kMeta, "uid", "Set by the server on creation and never reused."},
      {kMeta, "resourceVersion",
       "An opaque version the server changes on every write; send it back to update only "
       "the version you read."},
      {kMeta, "generation", "Counts the changes to the desired state (spec) of the object."},
      {kMeta, "creationTimestamp", "When the server created the object, in UTC."},
      {kMeta, "deletionTimestamp",
       "When a deletion was asked for; the object stays until its finalizers are gone."},
      {kMeta, "deletionGracePeriodSeconds",
       "How long the object is given to end gracefully once deletion began."},
      {kMeta, "labels", "Key/value pairs to select and group objects by."},
      {kMeta, "annotations", "Key/value pairs for tools and people; never used to select."},
      {kMeta, "ownerReferences",
       "The objects this one depends on; it may be garbage collected with them."},
      {kMeta, "finalizers",
       "Names of the controllers that must finish their work before the object is removed."},
      {kMeta, "managedFields", "Which field manager set which fields, and when."},
      {kMeta, "selfLink", "Deprecated and always empty."},
      // Pod.
      {kPod, "", "One or more containers run together on a node, sharing network and volumes."},
      {kPod, "spec", "What to run: containers, volumes and how to schedule them."},
      {kPod, "status", "What is happening: phase, conditions, container states and IPs."},
      {kPodSpec, "containers", "The containers of the pod; at least one."},
      {kPodSpec, "initContainers",
       "Containers run one after another before the others start; with restartPolicy Always "
       "they keep running alongside them (sidecars)."},
      {kPodSpec, "restartPolicy", "Always (the default), OnFailure or Never."},
      {kPodSpec, "nodeName", "The node the pod is bound to; set by the scheduler."},
      {kPodSpec, "serviceAccountName", "The service account the pod runs as."},
      {kPodSpec, "volumes", "The volumes the containers may mount, by name."},
      {kContainer, "name", "Unique among the pod's containers; a DNS label."},
      {kContainer, "image", "The container image to run."},
      {kContainer, "ports", "The ports the container listens on (informational)."},
      {kContainer, "env", "Environment variables, set directly or from other objects."},
      {kContainer, "resources", "CPU, memory and other resources requested and limited."},
      // Service.
      {kService, "", "A stable address and load balancing for a set of pods."},
      {kService, "spec", "How the service is reached and which pods serve it."},
      {kServiceSpec, "type", "ClusterIP (the default), NodePort, LoadBalancer or ExternalName."},
      {kServiceSpec, "selector", "The labels of the pods that serve the service."},
      {kServiceSpec, "ports", "The ports the service exposes and where they lead."},
      {kServiceSpec, "clusterIP",
       "The virtual IP, allocated when empty; None makes a headless service."},
      // Deployment.
      {kDeployment, "", "Keeps a number of identical pods running and rolls out changes to them."},
      {kDeployment, "spec", "The desired pods and how to replace them."},
      {kDeployment, "status", "How far the rollout got."},
      {kDeploymentSpec, "replicas", "How many pods to run (1 by default)."},
      {kDeploymentSpec, "selector", "Which pods belong to the deployment; fixed once created."},
      {kDeploymentSpec, "template", "The pods to create."},
      {kDeploymentSpec, "strategy", "RollingUpdate (the default) or Recreate."},
      // Job and CronJob.
      {kJob, "", "Runs pods until a number of them finish successfully."},
      {kJob, "spec", "The pods to run and when the job is done."},
      {kJobSpec, "completions", "How many pods must succeed."},
      {kJobSpec, "parallelism", "How many pods may run at once."},
      {kJobSpec, "backoffLimit", "How many retries before the job fails (6 by default)."},
      {kJobSpec, "template", "The pods to run; restartPolicy OnFailure or Never."},
      {kCronJobSpec, "schedule", "When to run, in cron format."},
      {kCronJobSpec, "jobTemplate", "The job to create at each scheduled time."},
      // ConfigMap.
      {kConfigMap, "", "Configuration data for workloads to read, as key/value pairs."},
      {kConfigMap, "apiVersion", kApiVersion},
      {kConfigMap, "kind", kKind},
      {kConfigMap, "metadata", kMetadata},
      {kConfigMap, "data", "UTF-8 values by key. A key may not also be in binaryData."},
      {kConfigMap, "binaryData", "Binary values by key, base64 encoded."},
      {kConfigMap, "immutable", kImmutable},
      // Secret.
      {kSecret, "", "Sensitive data (passwords, tokens, keys) for workloads to read."},
      {kSecret, "apiVersion", kApiVersion},
      {kSecret, "kind", kKind},
      {kSecret, "metadata", kMetadata},
      {kSecret, "data", "Values by key, base64 encoded."},
      {kSecret, "stringData",
       "Plain-text values by key, for writing only: merged into data on write, never "
       "returned."},
      {kSecret, "type",
       "What the secret holds (Opaque by default), which decides the keys it must have."},
      {kSecret, "immutable", kImmutable},
      // Namespace.
      {kNamespace, "", "A scope for names, and the unit of many policies."},
      {kNamespace, "apiVersion", kApiVersion},
      {kNamespace, "kind", kKind},
      {kNamespace, "metadata", kMetadata},
      {kNamespace, "spec", "The finalizers that must run before the namespace is removed."},
      {kNamespace, "status", "The phase of the namespace (Active or Terminating)."},
      // Event.
      {kEvent, "", "A report of something that happened to an object."},
      {kEvent, "apiVersion", kApiVersion},
      {kEvent, "kind", kKind},
      {kEvent, "metadata", kMetadata},
      {kEvent, "involvedObject", "The object the event is about."},
      {kEvent, "reason", "A short CamelCase cause, for machines."},
      {kEvent, "message", "What happened, for people."},
      {kEvent, "type", "Normal or Warning."},
      {kEvent, "count", "How many times this event was seen."},
      {kEvent, "firstTimestamp", "When the event was first seen."},
      {kEvent, "lastTimestamp", "When the event was last seen."},
      {kEvent, "source", "The component (and host) that reported the event."},
      // ServiceAccount.
      {kServiceAccount, "", "An identity that workloads run as and authenticate with."},
      {kServiceAccount, "apiVersion", kApiVersion},
      {kServiceAccount, "kind", kKind},
      {kServiceAccount, "metadata", kMetadata},
      {kServiceAccount, "secrets", "Secrets this account refers to, by name only."},
      {kServiceAccount, "imagePullSecrets",
       "Secrets with registry credentials, used to pull the images of pods running as this "
       "account."},
      {kServiceAccount, "automountServiceAccountToken",
       "Whether pods running as this account get an API token mounted by default."},
      // Lease.
      {kLease, "", "A lease held by one holder at a time, for leader election and heartbeats."},
      {kLease, "apiVersion", kApiVersion},
      {kLease, "kind", kKind},
      {kLease, "metadata", kMetadata},
      {kLease, "spec", "Who holds the lease, since when, and for how long."},
      {kLeaseSpec, "holderIdentity", "The identity of the current holder."},
      {kLeaseSpec, "leaseDurationSeconds",
       "How long other candidates wait after the last renewal before taking the lease."},
      {kLeaseSpec, "acquireTime", "When the current holder took the lease."},
      {kLeaseSpec, "renewTime", "When the current holder last renewed the lease."},
      {kLeaseSpec, "leaseTransitions", "How many times the lease changed holders."},
  };
  return all;
}

void AddDescriptions(nlohmann::json& components) {
  for (const Description& d : Descriptions()) {
    auto schema = components.find(d.schema);
    if (schema == components.end()) continue;
    if (d.field.empty()) {
      (*schema)["description"] = d.text;
      continue;
    }
    auto properties = schema->find("properties");
    if (properties == schema->end()) continue;
    auto field = properties->find(d.field);
    if (field != properties->end()) (*field)["description"] = d.text;
  }
}

}  // namespace schemas
