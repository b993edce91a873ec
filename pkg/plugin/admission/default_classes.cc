#include "pkg/plugin/admission/default_classes.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/plugin/admission/fields.h"

namespace plugin::admission {
namespace {

using ::admission::Attributes;
using ::admission::Operation;
using apimachinery::Status;
using nlohmann::json;

bool Creates(const Attributes& a, const char* group, const char* plural) {
  return a.operation == Operation::kCreate && a.options.subresource.empty() &&
         a.spec.group == group && a.spec.plural == plural;
}

std::string Annotation(const json& object, const char* key) {
  const json& meta = object.value("metadata", json::object());
  const json& annotations = meta.is_object() ? meta.value("annotations", json::object()) : json();
  return annotations.is_object() ? annotations.value(key, "") : "";
}

// The classes of `resource` whose `annotation` (or `beta`) is "true", from the watch cache.
Awaitable<registry::Result<std::vector<json>>> DefaultClasses(
    std::shared_ptr<const ::admission::Stores> stores, std::string resource, std::string annotation,
    std::string beta) {
  std::vector<json> out;
  auto store = stores->Get(resource);
  if (!store) co_return out;
  auto classes = co_await ::admission::ListCached(store, "");
  if (!classes) co_return std::unexpected(classes.error());
  for (json& c : *classes) {
    if (Annotation(c, annotation.c_str()) == "true" ||
        (!beta.empty() && Annotation(c, beta.c_str()) == "true")) {
      out.push_back(std::move(c));
    }
  }
  co_return out;
}

class DefaultStorageClass final : public ::admission::Plugin {
 public:
  explicit DefaultStorageClass(std::shared_ptr<const ::admission::Stores> stores)
      : stores_(std::move(stores)) {}

  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& claim) const override {
    if (!Creates(a, "", "persistentvolumeclaims")) co_return std::nullopt;
    json& spec = claim["spec"];
    if (!spec.is_object()) spec = json::object();
    if (spec.contains("storageClassName") && !spec["storageClassName"].is_null()) {
      co_return std::nullopt;  // "" too: the claim asks for no class
    }
    auto classes = co_await DefaultClasses(stores_, "storageclasses.storage.k8s.io",
                                           "storageclass.kubernetes.io/is-default-class",
                                           "storageclass.beta.kubernetes.io/is-default-class");
    if (!classes) co_return classes.error();
    if (classes->empty()) co_return std::nullopt;
    // The newest; the first name among the newest.
    auto newest = std::ranges::min_element(*classes, [](const json& x, const json& y) {
      const std::string tx = registry::MetaString(x, "creationTimestamp"),
                        ty = registry::MetaString(y, "creationTimestamp");
      if (tx != ty) return tx > ty;
      return registry::MetaString(x, "name") < registry::MetaString(y, "name");
    });
    spec["storageClassName"] = registry::MetaString(*newest, "name");
    co_return std::nullopt;
  }

 private:
  std::shared_ptr<const ::admission::Stores> stores_;
};

class DefaultIngressClass final : public ::admission::Plugin {
 public:
  explicit DefaultIngressClass(std::shared_ptr<const ::admission::Stores> stores)
      : stores_(std::move(stores)) {}

  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& ingress) const override {
    if (!Creates(a, "networking.k8s.io", "ingresses")) co_return std::nullopt;
    json& spec = ingress["spec"];
    if (!spec.is_object()) spec = json::object();
    if ((spec.contains("ingressClassName") && !spec["ingressClassName"].is_null()) ||
        ingress.value("metadata", json::object())
            .value("annotations", json::object())
            .contains("kubernetes.io/ingress.class")) {
      co_return std::nullopt;
    }
    auto classes = co_await DefaultClasses(stores_, "ingressclasses.networking.k8s.io",
                                           "ingressclass.kubernetes.io/is-default-class", "");
    if (!classes) co_return classes.error();
    if (classes->empty()) co_return std::nullopt;
    if (classes->size() > 1) {
      co_return apimachinery::NewForbidden(
          a.spec.Resource(), a.name,
          "Internal error occurred: " + std::to_string(classes->size()) +
              " default IngressClasses were found, only 1 allowed");
    }
    spec["ingressClassName"] = registry::MetaString(classes->front(), "name");
    co_return std::nullopt;
  }

 private:
  std::shared_ptr<const ::admission::Stores> stores_;
};

class TaintNodesByCondition final : public ::admission::Plugin {
 public:
  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& node) const override {
    if (!Creates(a, "", "nodes")) co_return std::nullopt;
    json& spec = node["spec"];
    if (!spec.is_object()) spec = json::object();
    json& taints = spec["taints"];
    if (!taints.is_array()) taints = json::array();
    const bool tainted = std::ranges::any_of(taints, [](const json& t) {
      return t.is_object() && t.value("key", "") == "node.kubernetes.io/not-ready" &&
             t.value("effect", "") == "NoSchedule";
    });
    if (!tainted)
      taints.push_back({{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}});
    co_return std::nullopt;
  }
};

class PersistentVolumeClaimResize final : public ::admission::Plugin {
 public:
  explicit PersistentVolumeClaimResize(std::shared_ptr<const ::admission::Stores> stores)
      : stores_(std::move(stores)) {}

  Awaitable<std::optional<Status>> Validate(const Attributes& a, const json& claim) const override {
    if (a.operation != Operation::kUpdate || !a.options.subresource.empty() ||
        !a.spec.group.empty() || a.spec.plural != "persistentvolumeclaims" || !a.old) {
      co_return std::nullopt;
    }
    auto size = [](const json& c) {
      return ParseQuantity(
                 Field(Field(Field(Field(c, "spec"), "resources"), "requests"), "storage"))
          .value_or(util::Quantity());
    };
    if (size(claim).Cmp(size(*a.old)) <= 0) co_return std::nullopt;
    if (Field(Field(*a.old, "status"), "phase") != "Bound") {
      co_return apimachinery::NewForbidden(a.spec.Resource(), a.name,
                                           "Only bound persistent volume claims can be expanded");
    }
    const std::string now = ClassOf(claim), before = ClassOf(*a.old);
    bool allowed = false;
    if (!now.empty() && now == before) {
      if (auto store = stores_->Get("storageclasses.storage.k8s.io")) {
        auto got = co_await ::admission::Lookup(store, "", now);
        if (got) allowed = Field(*got, "allowVolumeExpansion") == true;
      }
    }
    if (allowed) co_return std::nullopt;
    co_return apimachinery::NewForbidden(
        a.spec.Resource(), a.name,
        "only dynamically provisioned pvc can be resized and the storageclass that provisions "
        "the pvc must support resize");
  }

 private:
  // The beta annotation first, then spec.storageClassName (upstream's
  // GetPersistentVolumeClaimClass).
  static std::string ClassOf(const json& claim) {
    const std::string beta = Annotation(claim, "volume.beta.kubernetes.io/storage-class");
    if (!beta.empty()) return beta;
    const json& name = Field(Field(claim, "spec"), "storageClassName");
    return name.is_string() ? name.get<std::string>() : "";
  }

  std::shared_ptr<const ::admission::Stores> stores_;
};

class StorageObjectInUseProtection final : public ::admission::Plugin {
 public:
  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& object) const override {
    if (a.operation != Operation::kCreate || !a.options.subresource.empty() ||
        !a.spec.group.empty()) {
      co_return std::nullopt;
    }
    const char* finalizer = a.spec.plural == "persistentvolumeclaims"
                                ? "kubernetes.io/pvc-protection"
                            : a.spec.plural == "persistentvolumes" ? "kubernetes.io/pv-protection"
                                                                   : nullptr;
    if (finalizer == nullptr) co_return std::nullopt;
    json& finalizers = object["metadata"]["finalizers"];
    if (!finalizers.is_array()) finalizers = json::array();
    if (std::find(finalizers.begin(), finalizers.end(), finalizer) == finalizers.end()) {
      finalizers.push_back(finalizer);
    }
    co_return std::nullopt;
  }
};

}  // namespace

::admission::PluginPtr NewStorageObjectInUseProtection() {
  return std::make_shared<StorageObjectInUseProtection>();
}

::admission::PluginPtr NewPersistentVolumeClaimResize(
    std::shared_ptr<const ::admission::Stores> stores) {
  return std::make_shared<PersistentVolumeClaimResize>(std::move(stores));
}

::admission::PluginPtr NewDefaultStorageClass(std::shared_ptr<const ::admission::Stores> stores) {
  return std::make_shared<DefaultStorageClass>(std::move(stores));
}

::admission::PluginPtr NewDefaultIngressClass(std::shared_ptr<const ::admission::Stores> stores) {
  return std::make_shared<DefaultIngressClass>(std::move(stores));
}

::admission::PluginPtr NewTaintNodesByCondition() {
  return std::make_shared<TaintNodesByCondition>();
}

}  // namespace plugin::admission
