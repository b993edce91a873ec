#include "pkg/plugin/admission/resource_quota.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/controller/resourcequota/object_count.h"
#include "pkg/controller/resourcequota/registry.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/plugin/admission/fields.h"
#include "pkg/util/quantity.h"
#include "pkg/util/strings.h"

namespace plugin::admission {
namespace {

using ::admission::Attributes;
using ::admission::Operation;
using apimachinery::Status;
using nlohmann::json;
namespace quota = controller::resourcequota;

// "a=1,b=2", sorted by name (upstream's prettyPrint).
std::string Pretty(const quota::ResourceList& values) {
  std::vector<std::string> out;
  for (const auto& [k, v] : values) out.push_back(k + "=" + v.String());
  return util::Join(out, ",");
}

std::set<std::string> Names(const quota::ResourceList& list) {
  std::set<std::string> out;
  for (const auto& [name, _] : list) out.insert(name);
  return out;
}

// a - b per resource of a, none below zero (upstream's SubtractWithNonNegativeResult), the
// zeros dropped (RemoveZeros).
quota::ResourceList NonZeroDelta(const quota::ResourceList& a, const quota::ResourceList& b) {
  quota::ResourceList out;
  for (const auto& [name, q] : a) {
    util::Quantity d = q;
    if (auto it = b.find(name); it != b.end()) d.Sub(it->second);
    if (d.Cmp(util::Quantity()) > 0) out[name] = d;
  }
  return out;
}

// The compute resources a quota that tracks them needs every container to state (upstream's
// pod evaluator Constraints): "must specify limits.cpu for: app; requests.memory for: a,b".
std::optional<std::string> PodConstraints(const std::set<std::string>& restricted,
                                          const json& pod) {
  static const std::set<std::string> kValidated = {
      "cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"};
  std::map<std::string, std::set<std::string>> missing;
  const json& spec = Field(pod, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = Field(spec, list);
    if (!containers.is_array()) continue;
    for (const json& c : containers) {
      const json& resources = Field(c, "resources");
      for (const std::string& name : restricted) {
        if (!kValidated.contains(name)) continue;
        const bool limit = name.starts_with("limits.");
        const std::string resource = name.substr(name.find('.') + 1);
        const json& given = Field(resources, limit ? "limits" : "requests");
        if (Field(given, resource.c_str()).is_null()) {
          missing[name].insert(Field(c, "name").is_string() ? Field(c, "name").get<std::string>()
                                                            : "");
        }
      }
    }
  }
  if (missing.empty()) return std::nullopt;
  std::vector<std::string> parts;
  for (const auto& [name, containers] : missing) {
    parts.push_back(
        name +
        " for: " + util::Join(std::vector<std::string>(containers.begin(), containers.end()), ","));
  }
  return "must specify " + util::Join(parts, "; ");
}

class ResourceQuota final : public ::admission::Plugin {
 public:
  explicit ResourceQuota(std::shared_ptr<const ::admission::Stores> stores)
      : stores_(std::move(stores)), registry_(quota::Registry::Core()) {}

  // A create (or, for claims and services, an update) of a namespaced object is charged to
  // every quota of its namespace whose scopes it matches and whose status.hard names what it
  // uses: refused when one would go over, else the quotas' status.used raised (a write that
  // retries when the quota changed meanwhile, as upstream's admission serializes on it).
  Awaitable<std::optional<Status>> Validate(const Attributes& a,
                                            const json& object) const override {
    if (!a.spec.namespaced || !a.options.subresource.empty()) co_return std::nullopt;
    const quota::GroupResource gr{a.spec.group, a.spec.plural};
    if (quota::IsIgnoredResource(gr)) co_return std::nullopt;
    quota::EvaluatorPtr evaluator = registry_.Get(gr);
    if (!evaluator) evaluator = std::make_shared<quota::ObjectCountEvaluator>(gr, "");
    const bool updates =
        gr.group.empty() && (gr.resource == "persistentvolumeclaims" || gr.resource == "services");
    if (a.operation != Operation::kCreate && !(a.operation == Operation::kUpdate && updates)) {
      co_return std::nullopt;
    }
    const auto now = std::chrono::system_clock::now();
    quota::ResourceList delta = evaluator->Usage(object, now);
    if (a.operation == Operation::kUpdate && a.old != nullptr) {
      delta = NonZeroDelta(delta, evaluator->Usage(*a.old, now));
    } else {
      delta = NonZeroDelta(delta, {});
    }
    if (delta.empty()) co_return std::nullopt;
    auto store = stores_->Get("resourcequotas");
    if (!store) co_return std::nullopt;
    auto quotas = co_await ::admission::ListCached(store, a.ns);
    if (!quotas) co_return quotas.error();
    const registry::Strategy* status = StatusStrategy(store->Spec());
    // Every quota is checked as listed before any is charged (to its newest version), so a
    // refusal by one leaves the others as they were.
    std::vector<std::string> charged;
    for (const json& q : *quotas) {
      auto checked = Charge(q, *evaluator, delta, a, object);
      if (!checked) co_return checked.error();
      if (*checked) charged.push_back(registry::MetaString(q, "name"));
    }
    if (a.options.dry_run || !status) co_return std::nullopt;
    for (const std::string& name : charged) {
      registry::WriteOptions write;
      write.subresource = "status";
      write.field_manager = "resourcequota-admission";
      const Attributes* attributes = &a;
      const json* written_object = &object;
      registry::UpdateFunc charge = [this, evaluator, delta, attributes, written_object](
                                        const json* newest) -> Awaitable<registry::Result<json>> {
        if (!newest) co_return std::unexpected(apimachinery::NewInternalError("quota is gone"));
        json updated = *newest;
        auto checked = Charge(updated, *evaluator, delta, *attributes, *written_object);
        if (!checked) co_return std::unexpected(checked.error());
        if (*checked) updated["status"]["used"] = **checked;
        co_return updated;
      };
      auto written = co_await store->Update(a.ns, name, charge, write, status);
      if (!written && written.error().code == 403) co_return written.error();
      if (!written) {
        co_return apimachinery::NewInternalError("resource quota evaluation failed: " +
                                                 written.error().message);
      }
    }
    co_return std::nullopt;
  }

 private:
  // The quota's new status.used with `delta` charged (null when the quota does not limit
  // the object), or why the object may not be made, as upstream's checkRequest says it.
  registry::Result<std::optional<json>> Charge(const json& q, const quota::Evaluator& evaluator,
                                               const quota::ResourceList& delta,
                                               const Attributes& a, const json& object) const {
    const std::string quota_name = registry::MetaString(q, "name");
    for (const quota::ScopeRequirement& r : quota::ScopeRequirements(Field(q, "spec"))) {
      auto matched = evaluator.MatchesScope(r, object);
      if (!matched) {
        return std::unexpected(apimachinery::NewForbidden(
            a.spec.Resource(), a.name, "failed matching quota scope: " + matched.error()));
      }
      if (!*matched) return std::optional<json>();
    }
    const quota::ResourceList hard = quota::ParseResourceList(Field(Field(q, "status"), "hard"));
    const std::set<std::string> restricted = evaluator.MatchingResources(Names(hard));
    if (restricted.empty()) return std::optional<json>();
    if (a.spec.group.empty() && a.spec.plural == "pods") {
      if (auto missing = PodConstraints(restricted, object)) {
        return std::unexpected(apimachinery::NewForbidden(
            a.spec.Resource(), a.name, "failed quota: " + quota_name + ": " + *missing));
      }
    }
    const json& used_json = Field(Field(q, "status"), "used");
    std::vector<std::string> unknown;
    for (const std::string& name : restricted) {
      if (!used_json.is_object() || !used_json.contains(name)) unknown.push_back(name);
    }
    if (!unknown.empty()) {
      return std::unexpected(apimachinery::NewForbidden(
          a.spec.Resource(), a.name,
          "status unknown for quota: " + quota_name + ", resources: " +
              util::Join(std::vector<std::string>(restricted.begin(), restricted.end()), ",")));
    }
    const quota::ResourceList used = quota::ParseResourceList(used_json);
    const quota::ResourceList requested = quota::Mask(delta, Names(hard));
    if (requested.empty()) return std::optional<json>();
    const quota::ResourceList after = quota::Add(used, requested);
    std::set<std::string> exceeded;
    for (const auto& [name, q_requested] : requested) {
      auto limit = hard.find(name);
      if (limit != hard.end() && after.at(name).Cmp(limit->second) > 0) exceeded.insert(name);
    }
    if (!exceeded.empty()) {
      return std::unexpected(apimachinery::NewForbidden(
          a.spec.Resource(), a.name,
          "exceeded quota: " + quota_name +
              ", requested: " + Pretty(quota::Mask(requested, exceeded)) +
              ", used: " + Pretty(quota::Mask(used, exceeded)) +
              ", limited: " + Pretty(quota::Mask(hard, exceeded))));
    }
    json out = used_json;
    for (const auto& [name, value] : after) {
      if (requested.contains(name)) out[name] = value.String();
    }
    return std::optional<json>(std::move(out));
  }

  static const registry::Strategy* StatusStrategy(const registry::ResourceSpec& spec) {
    for (const registry::Subresource& s : spec.subresources) {
      if (s.name == "status") return s.strategy ? s.strategy.get() : spec.strategy.get();
    }
    return nullptr;
  }

  std::shared_ptr<const ::admission::Stores> stores_;
  quota::Registry registry_;  // immutable after construction
};

}  // namespace

::admission::PluginPtr NewResourceQuota(std::shared_ptr<const ::admission::Stores> stores) {
  return std::make_shared<ResourceQuota>(std::move(stores));
}

}  // namespace plugin::admission
