#include "pkg/controller/resourcequota/pods.h"

#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/util/timestamp.h"

namespace controller::resourcequota {

using nlohmann::json;

namespace {

constexpr std::string_view kRequestsPrefix = "requests.";
constexpr std::string_view kHugePagesPrefix = "hugepages-";
constexpr std::string_view kRequestsHugePagesPrefix = "requests.hugepages-";

const std::set<std::string>& PodResources() {
  static const std::set<std::string> names = {
      "count/pods",
      "cpu",
      "memory",
      "ephemeral-storage",
      "requests.cpu",
      "requests.memory",
      "requests.ephemeral-storage",
      "limits.cpu",
      "limits.memory",
      "limits.ephemeral-storage",
      "pods",
  };
  return names;
}

// An extended resource as a container may request it: not native, not already a
// `requests.` name, and a qualified name once prefixed with `requests.`.
bool IsExtendedResourceName(const std::string& name) {
  if (IsNativeResource(name) || name.starts_with(kRequestsPrefix)) return false;
  return apimachinery::validation::IsQualifiedName(std::string(kRequestsPrefix) + name).empty();
}

// A quota's name for an extended resource: `requests.<name>` of a non-native resource.
bool IsExtendedResourceNameForQuota(const std::string& name) {
  return !IsNativeResource(name) && name.starts_with(kRequestsPrefix);
}

const json& Spec(const json& pod) { return Field(pod, "spec"); }

ResourceList ContainerList(const json& container, const char* which) {
  return ParseResourceList(Field(Field(container, "resources"), which));
}

// Each resource of `other` replaces that of `list` when larger (or absent there).
void MaxInto(ResourceList& list, const ResourceList& other) {
  for (const auto& [name, q] : other) {
    auto it = list.find(name);
    if (it == list.end()) {
      list.emplace(name, q);
    } else if (q.Cmp(it->second) > 0) {
      it->second = q;
    }
  }
}

// The aggregate over containers and init containers of `which` (requests or limits).
ResourceList Aggregate(const json& pod, const char* which) {
  ResourceList total;
  const json& containers = Field(Spec(pod), "containers");
  if (containers.is_array()) {
    for (const json& c : containers) total = Add(total, ContainerList(c, which));
  }
  ResourceList sidecars;    // the restartable init containers so far
  ResourceList init_needs;  // the most any init container needs while it runs
  const json& init = Field(Spec(pod), "initContainers");
  if (init.is_array()) {
    for (const json& c : init) {
      ResourceList own = ContainerList(c, which);
      ResourceList needs;
      if (Str(c, "restartPolicy") == "Always") {
        total = Add(total, own);
        sidecars = Add(sidecars, own);
        needs = sidecars;
      } else {
        needs = Add(own, sidecars);
      }
      MaxInto(init_needs, needs);
    }
  }
  MaxInto(total, init_needs);
  return total;
}

// Upstream's podComputeUsageHelper: the quota names charged for the pod's requests and
// limits.
ResourceList ComputeUsage(const ResourceList& requests, const ResourceList& limits) {
  ResourceList out;
  out["pods"] = util::Quantity(1);
  auto charge = [&out](const ResourceList& list, const std::string& name,
                       std::initializer_list<const char*> as) {
    auto it = list.find(name);
    if (it == list.end()) return;
    for (const char* n : as) out[n] = it->second;
  };
  charge(requests, "cpu", {"cpu", "requests.cpu"});
  charge(limits, "cpu", {"limits.cpu"});
  charge(requests, "memory", {"memory", "requests.memory"});
  charge(limits, "memory", {"limits.memory"});
  charge(requests, "ephemeral-storage", {"ephemeral-storage", "requests.ephemeral-storage"});
  charge(limits, "ephemeral-storage", {"limits.ephemeral-storage"});
  for (const auto& [name, q] : requests) {
    if (name.starts_with(kHugePagesPrefix)) {
      out[name] = q;
      out[std::string(kRequestsPrefix) + name] = q;
    }
    if (IsExtendedResourceName(name)) out[std::string(kRequestsPrefix) + name] = q;
  }
  return out;
}

bool CrossNamespaceTerm(const json& term) {
  const json& namespaces = Field(term, "namespaces");
  if (namespaces.is_array() && !namespaces.empty()) return true;
  return !Field(term, "namespaceSelector").is_null();
}

bool CrossNamespaceTerms(const json& affinity) {
  const json& required = Field(affinity, "requiredDuringSchedulingIgnoredDuringExecution");
  if (required.is_array()) {
    for (const json& t : required) {
      if (CrossNamespaceTerm(t)) return true;
    }
  }
  const json& preferred = Field(affinity, "preferredDuringSchedulingIgnoredDuringExecution");
  if (preferred.is_array()) {
    for (const json& t : preferred) {
      if (CrossNamespaceTerm(Field(t, "podAffinityTerm"))) return true;
    }
  }
  return false;
}

}  // namespace

ResourceList PodRequests(const json& pod) {
  ResourceList requests = Aggregate(pod, "requests");
  return Add(requests, ParseResourceList(Field(Spec(pod), "overhead")));
}

ResourceList PodLimits(const json& pod) {
  ResourceList limits = Aggregate(pod, "limits");
  for (const auto& [name, q] : ParseResourceList(Field(Spec(pod), "overhead"))) {
    if (auto it = limits.find(name); it != limits.end()) it->second.Add(q);
  }
  return limits;
}

bool QuotaV1Pod(const json& pod, TimePoint now) {
  const std::string phase = Str(Field(pod, "status"), "phase");
  if (phase == "Failed" || phase == "Succeeded") return false;
  const json& meta = Field(pod, "metadata");
  const json& grace = Field(meta, "deletionGracePeriodSeconds");
  const std::string deletion = Str(meta, "deletionTimestamp");
  if (!deletion.empty() && grace.is_number_integer()) {
    auto at = util::ParseTime(deletion);
    if (at && now > *at + std::chrono::seconds(grace.get<int64_t>())) return false;
  }
  return true;
}

bool IsTerminating(const json& pod) {
  const json& deadline = Field(Spec(pod), "activeDeadlineSeconds");
  return deadline.is_number_integer() && deadline.get<int64_t>() >= 0;
}

bool IsBestEffort(const json& pod) {
  const std::string qos = Str(Field(pod, "status"), "qosClass");
  if (!qos.empty()) return qos == "BestEffort";
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = Field(Spec(pod), list);
    if (!containers.is_array()) continue;
    for (const json& c : containers) {
      for (const char* which : {"requests", "limits"}) {
        const ResourceList values = ContainerList(c, which);
        for (const char* name : {"cpu", "memory"}) {
          auto it = values.find(name);
          if (it != values.end() && it->second.Cmp(util::Quantity()) > 0) return false;
        }
      }
    }
  }
  return true;
}

bool UsesCrossNamespacePodAffinity(const json& pod) {
  const json& affinity = Field(Spec(pod), "affinity");
  return CrossNamespaceTerms(Field(affinity, "podAffinity")) ||
         CrossNamespaceTerms(Field(affinity, "podAntiAffinity"));
}

std::set<std::string> PodEvaluator::MatchingResources(const std::set<std::string>& names) const {
  std::set<std::string> out;
  for (const std::string& name : names) {
    if (PodResources().contains(name) || name.starts_with(kHugePagesPrefix) ||
        name.starts_with(kRequestsHugePagesPrefix) || IsExtendedResourceNameForQuota(name)) {
      out.insert(name);
    }
  }
  return out;
}

ScopeMatch PodEvaluator::MatchesScope(const ScopeRequirement& r, const json& pod) const {
  if (r.scope_name == "Terminating") return IsTerminating(pod);
  if (r.scope_name == "NotTerminating") return !IsTerminating(pod);
  if (r.scope_name == "BestEffort") return IsBestEffort(pod);
  if (r.scope_name == "NotBestEffort") return !IsBestEffort(pod);
  if (r.scope_name == "PriorityClass") {
    const std::string priority_class = Str(Spec(pod), "priorityClassName");
    if (r.op == "Exists") return !priority_class.empty();
    // As upstream's, the selector sees the label always, empty for a pod without a class:
    // DoesNotExist never matches.
    return MatchesAsLabel(r, priority_class);
  }
  if (r.scope_name == "CrossNamespacePodAffinity") return UsesCrossNamespacePodAffinity(pod);
  return false;
}

ResourceList PodEvaluator::Usage(const json& pod, TimePoint now) const {
  ResourceList out;
  out["count/pods"] = util::Quantity(1);
  if (!QuotaV1Pod(pod, now)) return out;
  return Add(out, ComputeUsage(PodRequests(pod), PodLimits(pod)));
}

}  // namespace controller::resourcequota
