#include "pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.h"

#include <algorithm>

#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"
#include "pkg/controller/worker.h"
#include "pkg/genericserver/apimachinery/labels/label_selector.h"

namespace controller::clusterroleaggregation {

using nlohmann::json;
namespace labels = apimachinery::labels;

namespace {

const client::GroupVersionResource kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles"};

std::string NameOf(const json& o) { return Meta(o, "name"); }

bool Aggregates(const json& role) {
  auto it = role.find("aggregationRule");
  return it != role.end() && it->is_object();
}

}  // namespace

std::expected<std::optional<json>, std::string> AggregatedRules(
    const json& role, const std::vector<client::ObjectPtr>& all_roles) {
  if (!Aggregates(role)) return std::optional<json>();
  std::vector<labels::Selector> selectors;
  for (const json& s : role["aggregationRule"].value("clusterRoleSelectors", json::array())) {
    auto selector = labels::FromLabelSelector(s);
    if (!selector) return std::unexpected(selector.error());
    if (*selector) selectors.push_back(std::move(**selector));
  }
  std::vector<client::ObjectPtr> sorted = all_roles;
  std::sort(sorted.begin(), sorted.end(),
            [](const client::ObjectPtr& a, const client::ObjectPtr& b) {
              return NameOf(*a) < NameOf(*b);
            });
  const std::string self = NameOf(role);
  json rules = json::array();
  for (const labels::Selector& selector : selectors) {
    for (const client::ObjectPtr& other : sorted) {
      if (NameOf(*other) == self) continue;
      if (!selector.Matches(labels::LabelsOf(*other))) continue;
      for (const json& rule : other->value("rules", json::array())) {
        if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
      }
    }
  }
  return std::optional<json>(std::move(rules));
}

std::expected<InitResult, std::string> StartClusterRoleAggregationController(
    ControllerContext& ctx) {
  auto roles = ctx.informers->ForResource(kClusterRoles);
  auto queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto api = ctx.client_for("clusterrole-aggregation-controller");

  // Any change may change what an aggregated role selects: queue them all.
  auto enqueue_all = [queue, weak = std::weak_ptr<client::SharedInformer>(roles)] {
    auto informer = weak.lock();
    if (!informer) return;
    for (const client::ObjectPtr& r : informer->List()) {
      if (Aggregates(*r)) Enqueue(queue, NameOf(*r));
    }
  };
  client::ResourceEventHandler handler;
  handler.on_add = [enqueue_all](const client::ObjectPtr&) { enqueue_all(); };
  handler.on_update = [enqueue_all](const client::ObjectPtr& old_role,
                                    const client::ObjectPtr& role) {
    if (old_role != role) enqueue_all();  // a resync (the same object) changes nothing
  };
  handler.on_delete = [enqueue_all](const client::ObjectPtr&) { enqueue_all(); };
  roles->AddEventHandler(std::move(handler));

  SyncFunc sync = [roles, api](const std::string& name) -> Awaitable<SyncResult> {
    client::ObjectPtr role = roles->Get(name);
    if (!role) co_return SyncResult();
    auto rules = AggregatedRules(*role, roles->List());
    if (!rules) co_return std::unexpected(rules.error());
    if (!*rules || role->value("rules", json::array()) == **rules) co_return SyncResult();
    json updated = *role;
    updated["rules"] = std::move(**rules);
    auto put = co_await api->Put(client::ResourcePath(kClusterRoles, "", name), updated);
    if (put || put.error().IsNotFound()) co_return SyncResult();
    co_return std::unexpected(put.error().String());
  };
  RunWorkers(queue, 5, "ClusterRoleAggregator", std::move(sync), {roles});
  return InitResult{true};
}

}  // namespace controller::clusterroleaggregation
