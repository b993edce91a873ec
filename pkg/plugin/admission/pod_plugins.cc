#include "pkg/plugin/admission/pod_plugins.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/plugin/admission/fields.h"
#include "pkg/util/quantity.h"

namespace plugin::admission {
namespace {

using ::admission::Attributes;
using ::admission::Operation;
using ::admission::Plugin;
using ::admission::PluginPtr;
using ::admission::Stores;
using apimachinery::Status;
using nlohmann::json;

constexpr char kMirrorPodAnnotation[] = "kubernetes.io/config.mirror";
constexpr char kTokenMountPath[] = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr char kTokenVolumePrefix[] = "kube-api-access-";
// Projected tokens of pods last an hour and seven seconds (upstream's warn-only expiry).
constexpr int64_t kTokenExpirationSeconds = 3607;

// A pod created through the pods resource itself (not a subresource).
bool IsPodCreate(const Attributes& a) {
  return a.spec.group.empty() && a.spec.plural == "pods" && a.options.subresource.empty() &&
         a.operation == Operation::kCreate;
}

json& Spec(json& pod) {
  json& spec = pod["spec"];
  if (!spec.is_object()) spec = json::object();
  return spec;
}

json TokenVolume(const std::string& name) {
  return {
      {"name", name},
      {"projected",
       {{"defaultMode", 420},
        {"sources",
         {{{"serviceAccountToken",
            {{"expirationSeconds", kTokenExpirationSeconds}, {"path", "token"}}}},
          {{"configMap",
            {{"name", "kube-root-ca.crt"}, {"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}}}}},
          {{"downwardAPI",
            {{"items",
              {{{"path", "namespace"},
                {"fieldRef",
                 {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}}}}}}}}}}}};
}

class ServiceAccount final : public Plugin {
 public:
  explicit ServiceAccount(std::shared_ptr<const Stores> stores) : stores_(std::move(stores)) {}

  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& pod) const override {
    if (!IsPodCreate(a)) co_return std::nullopt;
    const json& annotations = Field(Field(pod, "metadata"), "annotations");
    if (annotations.is_object() && annotations.contains(kMirrorPodAnnotation)) {
      co_return std::nullopt;  // a mirror pod's spec is the kubelet's
    }
    json& spec = Spec(pod);
    if (!spec.value("serviceAccountName", json("")).is_string() ||
        spec.value("serviceAccountName", "").empty()) {
      spec["serviceAccountName"] = "default";
    }
    const std::string account = spec["serviceAccountName"].get<std::string>();
    spec["serviceAccount"] = account;  // the deprecated field mirrors it
    auto store = stores_->Get("serviceaccounts");
    if (!store) co_return apimachinery::NewInternalError("no service account store");
    // The default account is made by the controller manager as the namespace appears: it
    // is waited for a little, as upstream waits.
    const int attempts = account == "default" ? 10 : 1;
    auto sa = co_await ::admission::Lookup(store, a.ns, account, attempts);
    if (!sa) {
      const std::string why =
          sa.error().code == 404
              ? apimachinery::NewNotFound({"", "serviceaccount"}, account).message
              : sa.error().message;
      co_return apimachinery::NewForbidden(
          a.spec.Resource(), a.name,
          "error looking up service account " + a.ns + "/" + account + ": " + why);
    }
    if (ShouldAutomount(*sa, spec)) MountToken(spec);
    const json& pull = Field(*sa, "imagePullSecrets");
    if ((!spec.contains("imagePullSecrets") || spec["imagePullSecrets"].empty()) &&
        pull.is_array() && !pull.empty()) {
      json refs = json::array();
      for (const json& s : pull) refs.push_back({{"name", Field(s, "name")}});
      spec["imagePullSecrets"] = std::move(refs);
    }
    // An account annotated kubernetes.io/enforce-mountable-secrets limits the pod to the
    // secrets it lists.
    if (Field(Field(Field(*sa, "metadata"), "annotations"), kEnforceMountableSecrets) == "true") {
      if (auto refused = UnlistedSecret(*sa, account, spec)) {
        co_return apimachinery::NewForbidden(a.spec.Resource(), a.name, *refused);
      }
    }
    co_return std::nullopt;
  }

 private:
  static constexpr char kEnforceMountableSecrets[] = "kubernetes.io/enforce-mountable-secrets";

  // The first secret the pod references that the account does not list (its secrets for
  // volumes and environment, its imagePullSecrets for pulls), in upstream's words.
  static std::optional<std::string> UnlistedSecret(const json& sa, const std::string& account,
                                                   const json& spec) {
    const auto names = [](const json& list) {
      std::vector<std::string> out;
      if (!list.is_array()) return out;
      for (const json& ref : list) {
        if (Field(ref, "name").is_string()) out.push_back(Field(ref, "name").get<std::string>());
      }
      return out;
    };
    const std::vector<std::string> mountable = names(Field(sa, "secrets"));
    const auto allowed = [&](const std::string& name) {
      return std::ranges::find(mountable, name) != mountable.end();
    };
    const std::string because =
        " is not allowed because service account " + account + " does not reference that secret";
    for (const json& v : Field(spec, "volumes")) {
      const json& name = Field(Field(v, "secret"), "secretName");
      if (name.is_string() && !allowed(name.get<std::string>())) {
        return "volume with secret.secretName=\"" + name.get<std::string>() + "\"" + because;
      }
    }
    for (auto [list, what] :
         {std::pair{"initContainers", "init container"}, std::pair{"containers", "container"},
          std::pair{"ephemeralContainers", "ephemeral container"}}) {
      for (const json& c : Field(spec, list)) {
        const std::string container =
            Field(c, "name").is_string() ? c["name"].get<std::string>() : "";
        for (const json& env : Field(c, "env")) {
          const json& name = Field(Field(Field(env, "valueFrom"), "secretKeyRef"), "name");
          if (name.is_string() && !allowed(name.get<std::string>())) {
            return std::string(what) + " " + container + " with envVar " +
                   (Field(env, "name").is_string() ? env["name"].get<std::string>() : "") +
                   " referencing secret.secretName=\"" + name.get<std::string>() + "\"" + because;
          }
        }
        for (const json& from : Field(c, "envFrom")) {
          const json& name = Field(Field(from, "secretRef"), "name");
          if (name.is_string() && !allowed(name.get<std::string>())) {
            return std::string(what) + " " + container +
                   " with envFrom referencing secret.secretName=\"" + name.get<std::string>() +
                   "\"" + because;
          }
        }
      }
    }
    const std::vector<std::string> pull = names(Field(sa, "imagePullSecrets"));
    const json& refs = Field(spec, "imagePullSecrets");
    for (size_t i = 0; refs.is_array() && i < refs.size(); ++i) {
      const json& name = Field(refs[i], "name");
      if (name.is_string() && std::ranges::find(pull, name.get<std::string>()) == pull.end()) {
        return "imagePullSecrets[" + std::to_string(i) + "].name=\"" + name.get<std::string>() +
               "\" is not allowed because service account " + account +
               " does not reference that imagePullSecret";
      }
    }
    return std::nullopt;
  }

  // The pod's preference wins, then the account's; mounted by default.
  static bool ShouldAutomount(const json& sa, const json& spec) {
    if (const json& pod = Field(spec, "automountServiceAccountToken"); pod.is_boolean()) {
      return pod.get<bool>();
    }
    if (const json& account = Field(sa, "automountServiceAccountToken"); account.is_boolean()) {
      return account.get<bool>();
    }
    return true;
  }

  static void MountToken(json& spec) {
    std::string volume;
    json& volumes = spec["volumes"];
    if (!volumes.is_array()) volumes = json::array();
    for (const json& v : volumes) {
      const json& name = Field(v, "name");
      if (name.is_string() && name.get<std::string>().starts_with(kTokenVolumePrefix)) {
        volume = name.get<std::string>();
        break;
      }
    }
    const bool has_volume = !volume.empty();
    if (!has_volume) volume = registry::GenerateName(kTokenVolumePrefix);
    bool needed = false;
    for (const char* list : {"initContainers", "containers"}) {
      json& containers = spec[list];
      if (!containers.is_array()) {
        if (containers.is_null()) spec.erase(list);
        continue;
      }
      for (json& c : containers) {
        json& mounts = c["volumeMounts"];
        if (!mounts.is_array()) mounts = json::array();
        const bool mounted = std::ranges::any_of(
            mounts, [](const json& m) { return Field(m, "mountPath") == kTokenMountPath; });
        if (mounted) continue;
        mounts.push_back({{"name", volume}, {"readOnly", true}, {"mountPath", kTokenMountPath}});
        needed = true;
      }
    }
    if (!has_volume && needed) volumes.push_back(TokenVolume(volume));
    if (volumes.empty()) spec.erase("volumes");
  }

  std::shared_ptr<const Stores> stores_;
};

class Priority final : public Plugin {
 public:
  explicit Priority(std::shared_ptr<const Stores> stores) : stores_(std::move(stores)) {}

  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& object) const override {
    if (!a.options.subresource.empty() || !a.spec.group.empty() || a.spec.plural != "pods") {
      co_return std::nullopt;
    }
    json& spec = Spec(object);
    if (a.operation == Operation::kUpdate) {
      // Set at creation; an update keeps them.
      const json& old = Field(*a.old, "spec");
      for (const char* field : {"priority", "preemptionPolicy"}) {
        if (old.is_object() && old.contains(field)) {
          spec[field] = old[field];
        } else {
          spec.erase(field);
        }
      }
      co_return std::nullopt;
    }
    auto store = stores_->Get("priorityclasses.scheduling.k8s.io");
    if (!store) co_return apimachinery::NewInternalError("no priority class store");
    int64_t priority = 0;
    std::string policy = "PreemptLowerPriority";
    const std::string name = spec.value("priorityClassName", json("")).is_string()
                                 ? spec.value("priorityClassName", "")
                                 : "";
    if (name.empty()) {
      auto classes = co_await ::admission::ListCached(store, "");
      if (!classes) {
        co_return apimachinery::NewInternalError("failed to get default priority class: " +
                                                 classes.error().message);
      }
      std::optional<json> chosen;
      for (json& pc : *classes) {
        if (!pc.value("globalDefault", false)) continue;
        if (!chosen || pc.value("value", int64_t{0}) < chosen->value("value", int64_t{0})) {
          chosen = std::move(pc);
        }
      }
      if (chosen) {
        spec["priorityClassName"] = registry::MetaString(*chosen, "name");
        priority = chosen->value("value", int64_t{0});
        policy = chosen->value("preemptionPolicy", policy);
      }
    } else {
      auto pc = co_await ::admission::Lookup(store, "", name);
      if (!pc && pc.error().code == 404) {
        co_return apimachinery::NewForbidden(a.spec.Resource(), a.name,
                                             "no PriorityClass with name " + name + " was found");
      }
      if (!pc) {
        co_return apimachinery::NewInternalError("failed to get PriorityClass with name " + name +
                                                 ": " + pc.error().message);
      }
      priority = pc->value("value", int64_t{0});
      policy = pc->value("preemptionPolicy", policy);
    }
    if (const json& given = Field(spec, "priority");
        given.is_number_integer() && given.get<int64_t>() != priority) {
      co_return apimachinery::NewForbidden(
          a.spec.Resource(), a.name,
          "the integer value of priority (" + std::to_string(given.get<int64_t>()) +
              ") must not be provided in pod spec; priority admission controller computed " +
              std::to_string(priority) + " from the given PriorityClass name");
    }
    if (const json& given = Field(spec, "preemptionPolicy");
        given.is_string() && given.get<std::string>() != policy) {
      co_return apimachinery::NewForbidden(
          a.spec.Resource(), a.name,
          "the string value of PreemptionPolicy (" + given.get<std::string>() +
              ") must not be provided in pod spec; priority admission controller computed " +
              policy + " from the given PriorityClass name");
    }
    spec["priority"] = priority;
    spec["preemptionPolicy"] = policy;
    co_return std::nullopt;
  }

  // Only one PriorityClass may be the global default.
  Awaitable<std::optional<Status>> Validate(const Attributes& a,
                                            const json& object) const override {
    if (a.spec.group != "scheduling.k8s.io" || a.spec.plural != "priorityclasses" ||
        !object.value("globalDefault", false)) {
      co_return std::nullopt;
    }
    auto store = stores_->Get("priorityclasses.scheduling.k8s.io");
    if (!store) co_return std::nullopt;
    auto classes = co_await ::admission::ListCached(store, "");
    if (!classes) co_return std::nullopt;
    for (const json& pc : *classes) {
      const std::string other = registry::MetaString(pc, "name");
      if (other != a.name && pc.value("globalDefault", false)) {
        co_return apimachinery::NewForbidden(
            a.spec.Resource(), a.name,
            "PriorityClass " + other + " is already marked as default. Only one default can exist");
      }
    }
    co_return std::nullopt;
  }

 private:
  std::shared_ptr<const Stores> stores_;
};

class DefaultTolerationSeconds final : public Plugin {
 public:
  DefaultTolerationSeconds(int64_t not_ready, int64_t unreachable)
      : not_ready_(not_ready), unreachable_(unreachable) {}

  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& pod) const override {
    if (!IsPodCreate(a)) co_return std::nullopt;
    json& spec = Spec(pod);
    json& tolerations = spec["tolerations"];
    if (!tolerations.is_array()) tolerations = json::array();
    for (auto [key, seconds] : {std::pair{"node.kubernetes.io/not-ready", not_ready_},
                                std::pair{"node.kubernetes.io/unreachable", unreachable_}}) {
      const bool tolerated = std::ranges::any_of(tolerations, [key](const json& t) {
        const std::string k = Field(t, "key").is_string() ? Field(t, "key").get<std::string>() : "";
        const std::string effect =
            Field(t, "effect").is_string() ? Field(t, "effect").get<std::string>() : "";
        return (k == key || k.empty()) && (effect == "NoExecute" || effect.empty());
      });
      if (!tolerated) {
        tolerations.push_back({{"key", key},
                               {"operator", "Exists"},
                               {"effect", "NoExecute"},
                               {"tolerationSeconds", seconds}});
      }
    }
    co_return std::nullopt;
  }

 private:
  int64_t not_ready_, unreachable_;
};

class RuntimeClass final : public Plugin {
 public:
  explicit RuntimeClass(std::shared_ptr<const Stores> stores) : stores_(std::move(stores)) {}

  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& pod) const override {
    if (!IsPodCreate(a)) co_return std::nullopt;
    auto found = co_await Find(a, pod);
    if (!found) co_return found.error();
    if (!*found) co_return std::nullopt;
    const json& rc = **found;
    json& spec = Spec(pod);
    const json& fixed = Field(Field(rc, "overhead"), "podFixed");
    if (fixed.is_object() && !fixed.empty()) {
      if (const json& own = Field(spec, "overhead");
          own.is_object() && !own.empty() && !SameQuantities(own, fixed)) {
        co_return Rejected(a,
                           "pod rejected: Pod's Overhead doesn't match RuntimeClass's "
                           "defined Overhead");
      }
      spec["overhead"] = fixed;
    }
    const json& scheduling = Field(rc, "scheduling");
    for (const auto& [key, value] : Field(scheduling, "nodeSelector").items()) {
      json& selector = spec["nodeSelector"];
      if (!selector.is_object()) selector = json::object();
      if (selector.contains(key) && selector[key] != value) {
        co_return Rejected(a, "conflict: runtimeClass.scheduling.nodeSelector[" + key +
                                  "] = " + value.get<std::string>() + "; pod.spec.nodeSelector[" +
                                  key + "] = " + selector[key].get<std::string>());
      }
      selector[key] = value;
    }
    for (const json& t : Field(scheduling, "tolerations")) {
      json& tolerations = spec["tolerations"];
      if (!tolerations.is_array()) tolerations = json::array();
      if (std::ranges::find(tolerations, t) == tolerations.end()) tolerations.push_back(t);
    }
    co_return std::nullopt;
  }

  Awaitable<std::optional<Status>> Validate(const Attributes& a, const json& pod) const override {
    if (!IsPodCreate(a)) co_return std::nullopt;
    auto found = co_await Find(a, pod);
    if (!found) co_return found.error();
    const json& own = Field(Field(pod, "spec"), "overhead");
    const json& fixed = *found ? Field(Field(**found, "overhead"), "podFixed") : Field(json(), "");
    if (fixed.is_object() && !fixed.empty()) {
      if (!own.is_object() || !SameQuantities(own, fixed)) {
        co_return Rejected(a,
                           "pod rejected: Pod's Overhead doesn't match RuntimeClass's "
                           "defined Overhead");
      }
    } else if (own.is_object() && !own.empty()) {
      co_return Rejected(a,
                         "pod rejected: Pod Overhead set without corresponding RuntimeClass "
                         "defined Overhead");
    }
    co_return std::nullopt;
  }

 private:
  static Status Rejected(const Attributes& a, const std::string& why) {
    return apimachinery::NewForbidden(a.spec.Resource(), a.name, why);
  }

  // Quantities equal as values ("1000m" is "1").
  static bool SameQuantities(const json& x, const json& y) {
    if (x.size() != y.size()) return false;
    for (const auto& [k, v] : x.items()) {
      if (!y.contains(k)) return false;
      auto a = ParseQuantity(v), b = ParseQuantity(y[k]);
      if (!a || !b || a->Cmp(*b) != 0) return false;
    }
    return true;
  }

  // The pod's RuntimeClass (null when it names none), or the 403 when it does not exist.
  Awaitable<registry::Result<std::shared_ptr<json>>> Find(const Attributes& a,
                                                          const json& pod) const {
    const json& name = Field(Field(pod, "spec"), "runtimeClassName");
    if (!name.is_string() || name.get<std::string>().empty()) {
      co_return std::shared_ptr<json>();
    }
    auto store = stores_->Get("runtimeclasses.node.k8s.io");
    if (!store) co_return std::unexpected(apimachinery::NewInternalError("no runtime class store"));
    const std::string class_name = name.get<std::string>();
    auto rc = co_await ::admission::Lookup(store, "", class_name);
    if (!rc && rc.error().code == 404) {
      co_return std::unexpected(
          Rejected(a, "pod rejected: RuntimeClass \"" + class_name + "\" not found"));
    }
    if (!rc) co_return std::unexpected(rc.error());
    co_return std::make_shared<json>(std::move(*rc));
  }

  std::shared_ptr<const Stores> stores_;
};

class AlwaysPullImages final : public Plugin {
 public:
  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& pod) const override {
    if (!a.spec.group.empty() || a.spec.plural != "pods" ||
        (!a.options.subresource.empty() && a.options.subresource != "ephemeralcontainers")) {
      co_return std::nullopt;
    }
    if (a.operation == Operation::kUpdate && !NewImages(pod, *a.old)) co_return std::nullopt;
    json& spec = Spec(pod);
    for (const char* list : kContainerLists) {
      if (!spec.contains(list) || !spec[list].is_array()) continue;
      for (json& c : spec[list]) {
        if (c.is_object()) c["imagePullPolicy"] = "Always";
      }
    }
    co_return std::nullopt;
  }

 private:
  static constexpr const char* kContainerLists[] = {"initContainers", "containers",
                                                    "ephemeralContainers"};
  // Whether an image the update names was not in the pod before.
  static bool NewImages(const json& pod, const json& old) {
    std::vector<json> before;
    for (const char* list : kContainerLists) {
      for (const json& c : Field(Field(old, "spec"), list)) before.push_back(Field(c, "image"));
    }
    for (const char* list : kContainerLists) {
      for (const json& c : Field(Field(pod, "spec"), list)) {
        if (std::ranges::find(before, Field(c, "image")) == before.end()) return true;
      }
    }
    return false;
  }
};

}  // namespace

PluginPtr NewAlwaysPullImages() { return std::make_shared<AlwaysPullImages>(); }

PluginPtr NewRuntimeClass(std::shared_ptr<const Stores> stores) {
  return std::make_shared<RuntimeClass>(std::move(stores));
}

PluginPtr NewServiceAccount(std::shared_ptr<const Stores> stores) {
  return std::make_shared<ServiceAccount>(std::move(stores));
}

PluginPtr NewPriority(std::shared_ptr<const Stores> stores) {
  return std::make_shared<Priority>(std::move(stores));
}

PluginPtr NewDefaultTolerationSeconds(int64_t not_ready_seconds, int64_t unreachable_seconds) {
  return std::make_shared<DefaultTolerationSeconds>(not_ready_seconds, unreachable_seconds);
}

}  // namespace plugin::admission
