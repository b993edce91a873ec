#include "pkg/plugin/admission/resource_quota.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

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

// The core kinds upstream also counts under their plain name.
constexpr const char* kLegacyCounted[] = {
    "pods",    "services",   "replicationcontrollers", "resourcequotas",
    "secrets", "configmaps", "persistentvolumeclaims"};

// The quota names one object of this resource uses: count/<resource>[.<group>], and the plain
// name of the core kinds counted so.
std::vector<std::string> CountNames(const registry::ResourceSpec& spec) {
  std::vector<std::string> names = {
      "count/" + (spec.group.empty() ? spec.plural : spec.plural + "." + spec.group)};
  if (spec.group.empty() &&
      std::ranges::find(kLegacyCounted, spec.plural) != std::end(kLegacyCounted)) {
    names.push_back(spec.plural);
  }
  return names;
}

// "a=1,b=2", sorted by name (upstream's prettyPrint).
std::string Pretty(const std::map<std::string, std::string>& values) {
  std::vector<std::string> out;
  for (const auto& [k, v] : values) out.push_back(k + "=" + v);
  return util::Join(out, ",");
}

// The quota with one more of each of `names` it limits, or why the object may not be made.
registry::Result<json> Charge(const json& quota, const std::vector<std::string>& names,
                              const registry::ResourceSpec& spec, const std::string& object) {
  const json& hard = Field(Field(quota, "spec"), "hard");
  const json& used = Field(Field(quota, "status"), "used");
  const std::string quota_name = registry::MetaString(quota, "name");
  std::vector<std::string> limited;
  for (const std::string& n : names) {
    if (hard.is_object() && hard.contains(n)) limited.push_back(n);
  }
  json charged = quota;
  if (limited.empty()) return charged;
  std::vector<std::string> unknown;
  for (const std::string& n : limited) {
    if (!used.is_object() || !used.contains(n)) unknown.push_back(n);
  }
  if (!unknown.empty()) {
    std::sort(unknown.begin(), unknown.end());
    return std::unexpected(apimachinery::NewForbidden(
        spec.Resource(), object,
        "status unknown for quota: " + quota_name + ", resources: " + util::Join(unknown, ",")));
  }
  std::map<std::string, std::string> requested, in_use, limits;
  bool exceeded = false;
  for (const std::string& n : limited) {
    util::Quantity now = ParseQuantity(used[n]).value_or(util::Quantity());
    const util::Quantity max = ParseQuantity(hard[n]).value_or(util::Quantity());
    requested[n] = "1";
    in_use[n] = now.String();
    limits[n] = max.String();
    now.Add(util::Quantity(1));
    if (now.Cmp(max) > 0) exceeded = true;
    charged["status"]["used"][n] = now.String();
  }
  if (exceeded) {
    return std::unexpected(apimachinery::NewForbidden(
        spec.Resource(), object,
        "exceeded quota: " + quota_name + ", requested: " + Pretty(requested) +
            ", used: " + Pretty(in_use) + ", limited: " + Pretty(limits)));
  }
  return charged;
}

class ResourceQuota final : public ::admission::Plugin {
 public:
  explicit ResourceQuota(std::shared_ptr<const ::admission::Stores> stores)
      : stores_(std::move(stores)) {}

  // A create of a namespaced object is charged to every quota of its namespace that limits
  // its count: refused when one would go over, else the quotas' status.used raised (a write
  // that retries when the quota changed meanwhile, as upstream's admission serializes on it).
  Awaitable<std::optional<Status>> Validate(const Attributes& a, const json&) const override {
    if (a.operation != Operation::kCreate || !a.spec.namespaced || !a.options.subresource.empty()) {
      co_return std::nullopt;
    }
    auto store = stores_->Get("resourcequotas");
    if (!store) co_return std::nullopt;
    auto quotas = co_await ::admission::ListCached(store, a.ns);
    if (!quotas) co_return quotas.error();
    const std::vector<std::string> names = CountNames(a.spec);
    const registry::Strategy* status = StatusStrategy(store->Spec());
    // Every quota is checked as listed before any is charged (to its newest version), so a
    // refusal by one leaves the others as they were.
    std::vector<json> charged;
    for (json& quota : *quotas) {
      auto checked = Charge(quota, names, a.spec, a.name);
      if (!checked) co_return checked.error();
      if (*checked != quota) charged.push_back(std::move(quota));
    }
    if (a.options.dry_run || !status) co_return std::nullopt;
    for (const json& quota : charged) {
      registry::WriteOptions write;
      write.subresource = "status";
      write.field_manager = "resourcequota-admission";
      const registry::ResourceSpec* spec = &a.spec;
      const std::string object = a.name;
      registry::UpdateFunc charge =
          [names, spec, object](const json* newest) -> Awaitable<registry::Result<json>> {
        if (!newest) co_return std::unexpected(apimachinery::NewInternalError("quota is gone"));
        co_return Charge(*newest, names, *spec, object);
      };
      auto written =
          co_await store->Update(a.ns, registry::MetaString(quota, "name"), charge, write, status);
      if (!written && written.error().code == 403) co_return written.error();
      if (!written) {
        co_return apimachinery::NewInternalError("resource quota evaluation failed: " +
                                                 written.error().message);
      }
    }
    co_return std::nullopt;
  }

 private:
  static const registry::Strategy* StatusStrategy(const registry::ResourceSpec& spec) {
    for (const registry::Subresource& s : spec.subresources) {
      if (s.name == "status") return s.strategy ? s.strategy.get() : spec.strategy.get();
    }
    return nullptr;
  }

  std::shared_ptr<const ::admission::Stores> stores_;
};

}  // namespace

::admission::PluginPtr NewResourceQuota(std::shared_ptr<const ::admission::Stores> stores) {
  return std::make_shared<ResourceQuota>(std::move(stores));
}

}  // namespace plugin::admission
