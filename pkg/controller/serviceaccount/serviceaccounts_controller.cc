#include "pkg/controller/serviceaccount/serviceaccounts_controller.h"

#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/worker.h"

namespace controller::serviceaccount {

using nlohmann::json;

namespace {

const client::GroupVersionResource kNamespaces{"", "v1", "namespaces"};
const client::GroupVersionResource kServiceAccounts{"", "v1", "serviceaccounts"};
constexpr char kDefault[] = "default";

bool Terminating(const json& ns) {
  return ns.value("status", json::object()).value("phase", "") == "Terminating" ||
         ns.value("metadata", json::object()).contains("deletionTimestamp");
}

}  // namespace

std::expected<InitResult, std::string> StartServiceAccountController(ControllerContext& ctx) {
  auto namespaces = ctx.informers->ForResource(kNamespaces);
  auto accounts = ctx.informers->ForResource(kServiceAccounts);
  auto queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto api = ctx.client_for("service-account-controller");

  namespaces->AddEventHandler(EnqueueObjects(queue));
  client::ResourceEventHandler on_account;
  on_account.on_delete = [queue](const client::ObjectPtr& o) {
    const json& meta = (*o)["metadata"];
    if (meta.value("name", "") == kDefault) Enqueue(queue, meta.value("namespace", ""));
  };
  accounts->AddEventHandler(std::move(on_account));

  SyncFunc sync = [namespaces, accounts, api](const std::string& ns) -> Awaitable<SyncResult> {
    client::ObjectPtr object = namespaces->Get(ns);
    if (!object || Terminating(*object)) co_return SyncResult();
    if (accounts->Get(ns + "/" + kDefault)) co_return SyncResult();
    json account = {{"apiVersion", "v1"},
                    {"kind", "ServiceAccount"},
                    {"metadata", {{"name", kDefault}, {"namespace", ns}}}};
    auto created = co_await api->Post(client::ResourcePath(kServiceAccounts, ns), account);
    if (created || created.error().IsAlreadyExists()) co_return SyncResult();
    // A namespace that began terminating meanwhile refuses new content: nothing to do.
    if (created.error().code == 403 && created.error().reason == "Forbidden" &&
        created.error().message.find("being terminated") != std::string::npos) {
      co_return SyncResult();
    }
    co_return std::unexpected(created.error().String());
  };
  RunWorkers(queue, 1, "service account", std::move(sync), {namespaces, accounts});
  return InitResult{true};
}

}  // namespace controller::serviceaccount
