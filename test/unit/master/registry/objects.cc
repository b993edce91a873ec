#include "test/unit/master/registry/objects.h"

namespace testing {
namespace {

using nlohmann::json;

// A real request (CN=registry-test, P-256): the server checks its signature.
constexpr char kCSRRequest[] =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIU01Ib0NBUUF3R0RFV01CUUdBMVVFQXd3TmNtVm"
    "5hWE4wY25rdGRHVnpkREJaTUJNR0J5cUdTTTQ5QWdFRwpDQ3FHU000OUF3RUhBMElBQkVsQVlIaVY4YTlKcUhzbmQ4"
    "TWRqRzFoaHpSQ3BQYVo2akozTVZyVTAzMkhZZVZkCklsblplYW4rdjhmK1lDUzRHNGxpeXlkZHNiNU95VnhLTFpXdG"
    "14Q2dBREFLQmdncWhrak9QUVFEQWdOSUFEQkYKQWlCU3R2WkZQZ0lBK1lGUmdQc3BmR2JLK0dFOWtpejhUT2VoSXF2"
    "Q3RTMTRlUUloQUlhWjZ2Z256bFAvOTZvZgp2NGFPenEwZ1dmTUp6VmNTN3p4S2VZdk5ibnpPCi0tLS0tRU5EIENFUl"
    "RJRklDQVRFIFJFUVVFU1QtLS0tLQo=";

std::map<std::string, json> Bodies() {
  const json selector = {{"matchLabels", {{"app", "x"}}}};
  const json pod_template = {{"metadata", {{"labels", {{"app", "x"}}}}},
                             {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}};
  const json workload = {{"spec", {{"selector", selector}, {"template", pod_template}}}};
  const json hpa = {
      {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "d"}}}, {"maxReplicas", 2}}}};
  const json job = {
      {"template",
       {{"spec",
         {{"restartPolicy", "Never"}, {"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}};
  const json rule = {{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get"}}};
  auto role_ref = [](const char* kind) {
    return json{
        {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", "r"}}}};
  };
  return {
      {"v1/persistentvolumeclaims",
       {{"spec",
         {{"accessModes", {"ReadWriteOnce"}},
          {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}},
      {"v1/persistentvolumes",
       {{"spec",
         {{"accessModes", {"ReadWriteOnce"}},
          {"capacity", {{"storage", "1Gi"}}},
          {"hostPath", {{"path", "/tmp"}}}}}}},
      {"v1/pods", {{"spec", pod_template["spec"]}}},
      {"v1/podtemplates", {{"template", pod_template}}},
      {"v1/replicationcontrollers",
       {{"spec", {{"selector", {{"app", "x"}}}, {"template", pod_template}}}}},
      {"v1/services", {{"spec", {{"ports", {{{"port", 80}}}}}}}},
      {"v1/events",
       {{"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}}}},
      {"apps/v1/controllerrevisions", {{"revision", 1}}},
      {"apps/v1/daemonsets", workload},
      {"apps/v1/deployments", workload},
      {"apps/v1/replicasets", workload},
      {"apps/v1/statefulsets", workload},
      {"autoscaling/v1/horizontalpodautoscalers", hpa},
      {"autoscaling/v2/horizontalpodautoscalers", hpa},
      {"batch/v1/jobs", {{"spec", job}}},
      {"batch/v1/cronjobs",
       {{"spec", {{"schedule", "*/5 * * * *"}, {"jobTemplate", {{"spec", job}}}}}}},
      {"certificates.k8s.io/v1/certificatesigningrequests",
       {{"spec",
         {{"request", kCSRRequest},
          {"signerName", "kubernetes.io/kube-apiserver-client"},
          {"usages", {"client auth"}}}}}},
      {"rbac.authorization.k8s.io/v1/roles", {{"rules", {rule}}}},
      {"rbac.authorization.k8s.io/v1/clusterroles", {{"rules", {rule}}}},
      {"rbac.authorization.k8s.io/v1/rolebindings", role_ref("Role")},
      {"rbac.authorization.k8s.io/v1/clusterrolebindings", role_ref("ClusterRole")},
      {"scheduling.k8s.io/v1/priorityclasses", {{"value", 1000}}},
      {"discovery.k8s.io/v1/endpointslices", {{"addressType", "IPv4"}}},
      {"events.k8s.io/v1/events",
       {{"eventTime", "2026-01-01T00:00:00.000000Z"},
        {"type", "Normal"},
        {"reportingController", "example.com/c"},
        {"reportingInstance", "i"},
        {"action", "Act"},
        {"reason", "Why"}}},
      {"flowcontrol.apiserver.k8s.io/v1/flowschemas",
       {{"spec", {{"priorityLevelConfiguration", {{"name", "global-default"}}}}}}},
      {"flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
       {{"spec", {{"type", "Exempt"}, {"exempt", json::object()}}}}},
      {"networking.k8s.io/v1/ingressclasses", {{"spec", {{"controller", "example.com/c"}}}}},
      {"networking.k8s.io/v1/ingresses",
       {{"spec",
         {{"defaultBackend", {{"service", {{"name", "s"}, {"port", {{"number", 80}}}}}}}}}}},
      {"node.k8s.io/v1/runtimeclasses", {{"handler", "runc"}}},
      {"storage.k8s.io/v1/csistoragecapacities", {{"storageClassName", "s"}}},
      {"storage.k8s.io/v1/storageclasses", {{"provisioner", "p"}}},
      {"storage.k8s.io/v1/volumeattachments",
       {{"spec",
         {{"attacher", "example.com/csi"},
          {"nodeName", "n"},
          {"source", {{"persistentVolumeName", "pv"}}}}}}},
      {"admissionregistration.k8s.io/v1/validatingadmissionpolicies",
       {{"spec",
         {{"matchConstraints",
           {{"resourceRules",
             {{{"apiGroups", {"apps"}},
               {"apiVersions", {"v1"}},
               {"operations", {"CREATE"}},
               {"resources", {"deployments"}}}}}}},
          {"validations", {{{"expression", "true"}}}}}}}},
      {"admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
       {{"spec", {{"policyName", "p"}, {"validationActions", {"Deny"}}}}}},
      {"apiextensions.k8s.io/v1/customresourcedefinitions",
       {{"spec",
         {{"group", "example.com"},
          {"scope", "Namespaced"},
          {"names", {{"plural", "widgets"}, {"kind", "Widget"}}},
          {"versions",
           {{{"name", "v1"},
             {"served", true},
             {"storage", true},
             {"schema",
              {{"openAPIV3Schema",
                {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}}},
      {"apiregistration.k8s.io/v1/apiservices",
       {{"spec",
         {{"group", "example.com"},
          {"version", "v1alpha1"},
          {"groupPriorityMinimum", 100},
          {"versionPriority", 100}}}}},
      {"authentication.k8s.io/v1/tokenreviews", {{"spec", {{"token", "t"}}}}},
      {"authorization.k8s.io/v1/selfsubjectrulesreviews", {{"spec", {{"namespace", "default"}}}}},
      {"authorization.k8s.io/v1/subjectaccessreviews",
       {{"spec", {{"user", "u"}, {"resourceAttributes", {{"verb", "get"}}}}}}},
      {"authorization.k8s.io/v1/selfsubjectaccessreviews",
       {{"spec", {{"resourceAttributes", {{"verb", "get"}}}}}}},
      {"authorization.k8s.io/v1/localsubjectaccessreviews",
       {{"spec",
         {{"user", "u"}, {"resourceAttributes", {{"verb", "get"}, {"namespace", "default"}}}}}}},
  };
}

}  // namespace

const json& ValidBody(const std::string& key) {
  static const std::map<std::string, json> bodies = Bodies();
  static const json empty = json::object();
  auto it = bodies.find(key);
  return it == bodies.end() ? empty : it->second;
}

std::string GroupVersionPrefix(const std::string& group_version) {
  return group_version == "v1" ? "/api/v1" : "/apis/" + group_version;
}

}  // namespace testing
