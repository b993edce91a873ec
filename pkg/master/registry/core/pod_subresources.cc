#include "pkg/master/registry/core/pod_subresources.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/subresource_action.h"
#include "pkg/master/registry/apps/workload.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

const apimachinery::GroupResource kPods{"", "pods"};

json Success() {
  apimachinery::Status s;
  s.status = "Success";
  s.code = 201;
  return json::parse(apimachinery::EncodeStatus(s));
}

// What an assignment or an ephemeral container change may touch; the Store's own
// metadata rules still apply.
class UncheckedUpdate final : public registry::Strategy {};

// pods/binding: spec.nodeName set once, with the PodScheduled condition.
class Binding final : public registry::SubresourceAction {
 public:
  Awaitable<registry::Result<json>> Post(registry::Store& store, std::string ns, std::string name,
                                         json body, registry::WriteOptions options) const override {
    if (!Str(Sub(body, "metadata"), "name").empty() && Str(Sub(body, "metadata"), "name") != name) {
      co_return std::unexpected(
          apimachinery::NewBadRequest("name in URL does not match name in Binding object"));
    }
    const json& target = Sub(body, "target");
    registry::FieldErrors errors;
    const std::string kind = Str(target, "kind");
    if (!kind.empty() && kind != "Node") {
      errors.push_back(v::FieldNotSupported("target.kind", kind, {"Node", "<empty>"}));
    }
    const std::string node = Str(target, "name");
    if (node.empty()) errors.push_back(v::FieldRequired("target.name", ""));
    if (!errors.empty()) co_return std::unexpected(v::NewInvalid("", "Binding", name, errors));
    registry::UpdateFunc assign = [name,
                                   node](const json* old) -> Awaitable<registry::Result<json>> {
      if (!old) co_return std::unexpected(apimachinery::NewNotFound(kPods, name));
      if (!registry::MetaString(*old, "deletionTimestamp").empty()) {
        co_return std::unexpected(apimachinery::NewConflict(
            kPods, name, "pod " + name + " is being deleted, cannot be assigned to a host"));
      }
      const std::string current = Str(Sub(*old, "spec"), "nodeName");
      if (!current.empty()) {
        co_return std::unexpected(apimachinery::NewConflict(
            kPods, name, "pod " + name + " is already assigned to node \"" + current + "\""));
      }
      json pod = *old;
      pod["spec"]["nodeName"] = node;
      json& conditions = Child(pod, "status")["conditions"];
      if (!conditions.is_array()) conditions = json::array();
      json scheduled = {{"type", "PodScheduled"},
                        {"status", "True"},
                        {"lastProbeTime", nullptr},
                        {"lastTransitionTime", registry::NowTimestamp()}};
      bool replaced = false;
      for (json& c : conditions) {
        if (Str(c, "type") == "PodScheduled") {
          c = scheduled;
          replaced = true;
        }
      }
      if (!replaced) conditions.push_back(scheduled);
      co_return pod;
    };
    static const UncheckedUpdate kAssign;
    auto r = co_await store.Update(ns, name, assign, options, &kAssign);
    if (!r) co_return std::unexpected(r.error());
    co_return Success();
  }
};

// pods/eviction: a deletion, unless a disruption budget covering a running pod allows
// no more disruptions (429).
class Eviction final : public registry::SubresourceAction {
 public:
  explicit Eviction(std::shared_ptr<registry::Store> budgets) : budgets_(std::move(budgets)) {}

  Awaitable<registry::Result<json>> Post(registry::Store& store, std::string ns, std::string name,
                                         json body, registry::WriteOptions options) const override {
    if (!Str(Sub(body, "metadata"), "name").empty() && Str(Sub(body, "metadata"), "name") != name) {
      co_return std::unexpected(
          apimachinery::NewBadRequest("name in URL does not match name in Eviction object"));
    }
    auto got = co_await store.Get(ns, name, "");
    if (!got) co_return std::unexpected(got.error());
    const json pod = registry::Parse(**got);
    const std::string phase = Str(Sub(pod, "status"), "phase");
    const bool ignores_budgets = phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
                                 !registry::MetaString(pod, "deletionTimestamp").empty();
    if (!ignores_budgets) {
      registry::ListOptions all;
      auto budgets = co_await budgets_->List(ns, all);
      if (!budgets) co_return std::unexpected(budgets.error());
      std::vector<json> covering;
      const json& labels = Sub(Sub(pod, "metadata"), "labels");
      for (const auto& item : budgets->items) {
        json pdb = registry::Parse(*item);
        const json& selector = Sub(Sub(pdb, "spec"), "selector");
        if (!selector.empty() && SelectorMatches(selector, labels)) covering.push_back(pdb);
      }
      if (covering.size() > 1) {
        co_return std::unexpected(apimachinery::NewInternalError(
            "This pod has more than one PodDisruptionBudget, which the eviction subresource "
            "does not support."));
      }
      if (covering.size() == 1 && Int(Sub(covering[0], "status"), "disruptionsAllowed") <= 0) {
        const json& status = Sub(covering[0], "status");
        apimachinery::Status refused = apimachinery::NewTooManyRequests(
            "Cannot evict pod as it would violate the pod's disruption budget.", 0);
        refused.details = apimachinery::StatusDetails{};
        refused.details->causes.push_back(
            {"DisruptionBudget",
             "The disruption budget " + registry::MetaString(covering[0], "name") + " needs " +
                 std::to_string(Int(status, "desiredHealthy")) + " healthy pods and has " +
                 std::to_string(Int(status, "currentHealthy")) + " currently",
             ""});
        co_return std::unexpected(refused);
      }
    }
    registry::DeleteOptions deletion;
    deletion.dry_run = options.dry_run;
    const json& given = Sub(body, "deleteOptions");
    if (given.contains("gracePeriodSeconds") && given["gracePeriodSeconds"].is_number_integer()) {
      deletion.grace_period_seconds = given["gracePeriodSeconds"].get<int64_t>();
    }
    deletion.propagation_policy = Str(given, "propagationPolicy");
    const json& preconditions = Sub(given, "preconditions");
    if (!Str(preconditions, "uid").empty()) deletion.precondition_uid = Str(preconditions, "uid");
    if (!Str(preconditions, "resourceVersion").empty()) {
      deletion.precondition_resource_version = Str(preconditions, "resourceVersion");
    }
    auto deleted = co_await store.Delete(ns, name, deletion);
    if (!deleted) co_return std::unexpected(deleted.error());
    co_return Success();
  }

 private:
  std::shared_ptr<registry::Store> budgets_;
};

// pods/ephemeralcontainers: only spec.ephemeralContainers changes, and only by adding.
class EphemeralContainersStrategy final : public registry::Strategy {
 public:
  void PrepareForUpdate(json& pod, const json& old) const override {
    json containers = Sub(pod, "spec").value("ephemeralContainers", json());
    json resource_version = pod["metadata"].value("resourceVersion", json());
    pod = old;
    if (containers.is_null()) {
      pod["spec"].erase("ephemeralContainers");
    } else {
      pod["spec"]["ephemeralContainers"] = std::move(containers);
    }
    if (!resource_version.is_null()) pod["metadata"]["resourceVersion"] = resource_version;
  }
  registry::FieldErrors ValidateUpdate(const json& pod, const json& old) const override {
    registry::FieldErrors errors;
    const json& now = List(Sub(pod, "spec"), "ephemeralContainers");
    const json& before = List(Sub(old, "spec"), "ephemeralContainers");
    for (const json& was : before) {
      bool kept = false;
      for (const json& is : now) kept = kept || is == was;
      if (!kept) {
        errors.push_back(v::FieldForbidden("spec.ephemeralContainers",
                                           "existing ephemeral containers \"" + Str(was, "name") +
                                               "\" may not be removed or changed"));
      }
    }
    for (size_t i = 0; i < now.size(); ++i) {
      const std::string at = "spec.ephemeralContainers[" + std::to_string(i) + "]";
      if (Str(now[i], "name").empty()) errors.push_back(v::FieldRequired(at + ".name", ""));
      if (Str(now[i], "image").empty()) errors.push_back(v::FieldRequired(at + ".image", ""));
      for (const char* forbidden :
           {"ports", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "resources"}) {
        auto it = now[i].find(forbidden);
        if (it != now[i].end() && !it->is_null() && !it->empty()) {
          errors.push_back(
              v::FieldForbidden(at + "." + forbidden, "cannot be set for an Ephemeral Container"));
        }
      }
    }
    return errors;
  }
};

// The legacy core `bindings` collection: a Binding POSTed there binds the pod its
// metadata.name names, as pods/binding does.
class LegacyBinding final : public registry::SubresourceAction {
 public:
  explicit LegacyBinding(std::shared_ptr<registry::Store> pods) : pods_(std::move(pods)) {}

  Awaitable<registry::Result<json>> Post(registry::Store&, std::string ns, std::string, json body,
                                         registry::WriteOptions options) const override {
    std::string name = Str(Sub(body, "metadata"), "name");
    if (name.empty()) {
      co_return std::unexpected(
          v::NewInvalid("", "Binding", "",
                        {v::FieldRequired("metadata.name", "name or generateName is required")}));
    }
    static const Binding kBinding;
    co_return co_await kBinding.Post(*pods_, std::move(ns), std::move(name), std::move(body),
                                     std::move(options));
  }

 private:
  std::shared_ptr<registry::Store> pods_;
};

}  // namespace

registry::Subresource PodBinding() {
  return {"binding", {"", "v1", "Binding"},      {"create"}, nullptr,
          nullptr,   std::make_shared<Binding>()};
}

registry::Subresource PodEviction(std::shared_ptr<registry::Store> disruption_budgets) {
  return {"eviction", {"policy", "v1", "Eviction"},
          {"create"}, nullptr,
          nullptr,    std::make_shared<Eviction>(std::move(disruption_budgets))};
}

registry::Subresource PodEphemeralContainers() {
  return {"ephemeralcontainers",
          {"", "v1", "Pod"},
          {"get", "patch", "update"},
          std::make_shared<EphemeralContainersStrategy>()};
}

}  // namespace master::resources

namespace master::resources {

registry::ResourceSpecPtr Bindings(std::shared_ptr<registry::Store> pods) {
  auto spec = Builtin("v1", "bindings");
  spec->create_action = std::make_shared<LegacyBinding>(std::move(pods));
  return Finish(std::move(spec));
}

}  // namespace master::resources
