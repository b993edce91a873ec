#include "pkg/plugin/admission/limit_ranger.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/controller/resourcequota/pods.h"
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

constexpr char kAnnotation[] = "kubernetes.io/limit-ranger";

bool IsPod(const Attributes& a) { return a.spec.group.empty() && a.spec.plural == "pods"; }
bool IsClaim(const Attributes& a) {
  return a.spec.group.empty() && a.spec.plural == "persistentvolumeclaims";
}

// Pods created and claims created or updated, through the resource itself (upstream does
// not look at pod updates: their containers' resources cannot change).
bool Applies(const Attributes& a) {
  if (!a.options.subresource.empty()) return false;
  if (IsPod(a)) return a.operation == Operation::kCreate;
  return IsClaim(a) && (a.operation == Operation::kCreate || a.operation == Operation::kUpdate);
}

// The items of the namespace's LimitRanges of one type (Container, Pod,
// PersistentVolumeClaim).
Awaitable<registry::Result<std::vector<json>>> LimitItems(
    std::shared_ptr<const ::admission::Stores> stores, std::string ns, std::string type) {
  auto store = stores->Get("limitranges");
  if (!store) co_return std::vector<json>{};
  auto ranges = co_await ::admission::ListCached(store, std::move(ns));
  if (!ranges) co_return std::unexpected(ranges.error());
  std::vector<json> items;
  for (const json& range : *ranges) {
    for (const json& item : Field(Field(range, "spec"), "limits")) {
      if (Field(item, "type") == type) items.push_back(item);
    }
  }
  co_return items;
}

json ToJSON(const controller::resourcequota::ResourceList& list) {
  json out = json::object();
  for (const auto& [name, q] : list) out[name] = q.String();
  return out;
}

std::optional<util::Quantity> QuantityOf(const json& list, const std::string& resource) {
  return ParseQuantity(Field(list, resource.c_str()));
}

std::string Text(const json& list, const std::string& resource) {
  auto q = QuantityOf(list, resource);
  return q ? q->String() : "";
}

// Upstream's min, max and limit/request ratio checks of one container, a pod's totals or a
// claim, in its words; a claim's max bounds its request only (maxRequestConstraint).
void CheckBounds(const json& item, const std::string& type, const json& requests,
                 const json& limits, std::vector<std::string>& errors) {
  const bool claim = type == "PersistentVolumeClaim";
  for (const auto& [resource, value] : Field(item, "min").items()) {
    auto enforced = ParseQuantity(value);
    if (!enforced) continue;
    auto req = QuantityOf(requests, resource), lim = QuantityOf(limits, resource);
    const std::string bound = resource + " usage per " + type + " is " + enforced->String();
    if (!req) {
      errors.push_back("minimum " + bound + ".  No request is specified");
    } else if (req->Cmp(*enforced) < 0) {
      errors.push_back("minimum " + bound + ", but request is " + Text(requests, resource));
    } else if (lim && lim->Cmp(*enforced) < 0) {
      errors.push_back("minimum " + bound + ", but limit is " + Text(limits, resource));
    }
  }
  for (const auto& [resource, value] : Field(item, "max").items()) {
    auto enforced = ParseQuantity(value);
    if (!enforced) continue;
    auto req = QuantityOf(requests, resource), lim = QuantityOf(limits, resource);
    const std::string bound = resource + " usage per " + type + " is " + enforced->String();
    if (claim) {
      if (!req) {
        errors.push_back("maximum " + bound + ".  No request is specified");
      } else if (req->Cmp(*enforced) > 0) {
        errors.push_back("maximum " + bound + ", but request is " + Text(requests, resource));
      }
      continue;
    }
    if (!lim) {
      errors.push_back("maximum " + bound + ".  No limit is specified");
    } else if (lim->Cmp(*enforced) > 0) {
      errors.push_back("maximum " + bound + ", but limit is " + Text(limits, resource));
    } else if (req && req->Cmp(*enforced) > 0) {
      errors.push_back("maximum " + bound + ", but request is " + Text(requests, resource));
    }
  }
  if (claim) return;
  for (const auto& [resource, value] : Field(item, "maxLimitRequestRatio").items()) {
    auto enforced = ParseQuantity(value);
    if (!enforced) continue;
    auto req = QuantityOf(requests, resource), lim = QuantityOf(limits, resource);
    const std::string bound =
        resource + " max limit to request ratio per " + type + " is " + enforced->String();
    if (!req || req->IsZero()) {
      errors.push_back(bound + ", but no request is specified or request is 0");
    } else if (!lim || lim->IsZero()) {
      errors.push_back(bound + ", but no limit is specified or limit is 0");
    } else {
      const double ratio = static_cast<double>(lim->nano()) / static_cast<double>(req->nano());
      if (ratio * 1e9 > static_cast<double>(enforced->nano())) {
        char shown[64];
        std::snprintf(shown, sizeof shown, "%f", ratio);
        errors.push_back(bound + ", but provided ratio is " + shown);
      }
    }
  }
}

class LimitRanger final : public ::admission::Plugin {
 public:
  explicit LimitRanger(std::shared_ptr<const ::admission::Stores> stores)
      : stores_(std::move(stores)) {}

  // Defaults: each Container item's `default` as limits and `defaultRequest` as requests of
  // every container and init container that sets none, recorded in the annotation.
  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& pod) const override {
    if (!Applies(a) || !IsPod(a)) co_return std::nullopt;
    auto items = co_await LimitItems(stores_, a.ns, "Container");
    if (!items) co_return items.error();
    if (items->empty()) co_return std::nullopt;
    json defaults = {{"limits", json::object()}, {"requests", json::object()}};
    for (const json& item : *items) {
      for (auto [from, to] :
           {std::pair{"default", "limits"}, std::pair{"defaultRequest", "requests"}}) {
        for (const auto& [resource, value] : Field(item, from).items())
          defaults[to][resource] = value;
      }
    }
    std::vector<std::string> notes;
    json& spec = pod["spec"];
    for (auto [list, what] :
         {std::pair{"containers", "container"}, std::pair{"initContainers", "init container"}}) {
      if (!spec.is_object() || !spec.contains(list) || !spec[list].is_array()) continue;
      for (json& c : spec[list]) {
        for (const char* kind : {"requests", "limits"}) {
          std::vector<std::string> set;
          for (const auto& [resource, value] : defaults[kind].items()) {
            json& resources = c["resources"];
            if (!resources.is_object()) resources = json::object();
            if (resources.contains(kind) && resources[kind].contains(resource)) continue;
            resources[kind][resource] = value;
            set.push_back(resource);
          }
          if (set.empty()) continue;
          std::sort(set.begin(), set.end());
          notes.push_back(util::Join(set, ", ") +
                          (std::string(kind) == "requests" ? " request" : " limit") + " for " +
                          what + " " + c.value("name", ""));
        }
      }
    }
    if (!notes.empty()) {
      pod["metadata"]["annotations"][kAnnotation] =
          "LimitRanger plugin set: " + util::Join(notes, "; ");
    }
    co_return std::nullopt;
  }

  // Bounds: a claim's PersistentVolumeClaim items; a pod's Container items for each
  // container and init container, and its Pod items for its totals (upstream's pod requests
  // and limits: the containers', at least each init container's, and the overhead).
  Awaitable<std::optional<Status>> Validate(const Attributes& a,
                                            const json& object) const override {
    if (!Applies(a)) co_return std::nullopt;
    std::vector<std::string> errors;
    if (IsClaim(a)) {
      auto items = co_await LimitItems(stores_, a.ns, "PersistentVolumeClaim");
      if (!items) co_return items.error();
      const json& resources = Field(Field(object, "spec"), "resources");
      for (const json& item : *items) {
        CheckBounds(item, "PersistentVolumeClaim", Field(resources, "requests"),
                    Field(resources, "limits"), errors);
      }
    } else {
      auto items = co_await LimitItems(stores_, a.ns, "Container");
      if (!items) co_return items.error();
      const json& spec = Field(object, "spec");
      for (const json& item : *items) {
        for (const char* list : {"containers", "initContainers"}) {
          for (const json& c : Field(spec, list)) {
            const json& resources = Field(c, "resources");
            CheckBounds(item, "Container", Field(resources, "requests"), Field(resources, "limits"),
                        errors);
          }
        }
      }
      auto pod_items = co_await LimitItems(stores_, a.ns, "Pod");
      if (!pod_items) co_return pod_items.error();
      if (!pod_items->empty()) {
        const json requests = ToJSON(controller::resourcequota::PodRequests(object));
        const json limits = ToJSON(controller::resourcequota::PodLimits(object));
        for (const json& item : *pod_items) CheckBounds(item, "Pod", requests, limits, errors);
      }
    }
    if (errors.empty()) co_return std::nullopt;
    co_return apimachinery::NewForbidden(
        a.spec.Resource(), a.name,
        errors.size() == 1 ? errors[0] : "[" + util::Join(errors, ", ") + "]");
  }

 private:
  std::shared_ptr<const ::admission::Stores> stores_;
};

}  // namespace

::admission::PluginPtr NewLimitRanger(std::shared_ptr<const ::admission::Stores> stores) {
  return std::make_shared<LimitRanger>(std::move(stores));
}

}  // namespace plugin::admission
