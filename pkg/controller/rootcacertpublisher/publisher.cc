#include "pkg/controller/rootcacertpublisher/publisher.h"

#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"
#include "pkg/controller/worker.h"

namespace controller::rootcacertpublisher {

using nlohmann::json;

namespace {

const client::GroupVersionResource kNamespaces{"", "v1", "namespaces"};
const client::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
constexpr char kDescriptionAnnotation[] = "kubernetes.io/description";
constexpr char kDescription[] =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters.";

bool Active(const json& ns) {
  return ns.value("status", json::object()).value("phase", "") != "Terminating" &&
         !ns.value("metadata", json::object()).contains("deletionTimestamp");
}

}  // namespace

std::expected<InitResult, std::string> StartRootCACertPublisher(ControllerContext& ctx) {
  if (ctx.options.root_ca_pem.empty()) {
    return std::unexpected(
        std::string("no root CA: give --root-ca-file or a kubeconfig with a "
                    "certificate-authority"));
  }
  auto namespaces = ctx.informers->ForResource(kNamespaces);
  auto configmaps = ctx.informers->ForResource(kConfigMaps);
  auto queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto api = ctx.client_for("root-ca-cert-publisher");
  const std::string ca = ctx.options.root_ca_pem;

  namespaces->AddEventHandler(EnqueueObjects(queue));
  auto on_configmap = [queue](const client::ObjectPtr& o) {
    const json& meta = (*o)["metadata"];
    if (meta.value("name", "") == kRootCAConfigMapName) {
      Enqueue(queue, meta.value("namespace", ""));
    }
  };
  client::ResourceEventHandler configmap_handler;
  configmap_handler.on_update = [on_configmap](const client::ObjectPtr&,
                                               const client::ObjectPtr& o) { on_configmap(o); };
  configmap_handler.on_delete = on_configmap;
  configmaps->AddEventHandler(std::move(configmap_handler));

  SyncFunc sync = [namespaces, configmaps, api,
                   ca](const std::string& ns) -> Awaitable<SyncResult> {
    client::ObjectPtr object = namespaces->Get(ns);
    if (!object || !Active(*object)) co_return SyncResult();
    client::ObjectPtr existing = configmaps->Get(ns + "/" + kRootCAConfigMapName);
    if (!existing) {
      json cm = {{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata",
                  {{"name", kRootCAConfigMapName},
                   {"namespace", ns},
                   {"annotations", {{kDescriptionAnnotation, kDescription}}}}},
                 {"data", {{"ca.crt", ca}}}};
      auto created = co_await api->Post(client::ResourcePath(kConfigMaps, ns), cm);
      if (created || created.error().IsAlreadyExists()) co_return SyncResult();
      if (created.error().code == 403 &&
          created.error().message.find("being terminated") != std::string::npos) {
        co_return SyncResult();
      }
      co_return std::unexpected(created.error().String());
    }
    const json data = existing->value("data", json::object());
    if (data == json{{"ca.crt", ca}} &&
        Annotation(*existing, kDescriptionAnnotation) == kDescription) {
      co_return SyncResult();
    }
    json cm = *existing;
    cm["data"] = {{"ca.crt", ca}};
    cm.erase("binaryData");
    cm["metadata"]["annotations"][kDescriptionAnnotation] = kDescription;
    auto updated =
        co_await api->Put(client::ResourcePath(kConfigMaps, ns, kRootCAConfigMapName), cm);
    if (updated || updated.error().IsNotFound()) co_return SyncResult();
    co_return std::unexpected(updated.error().String());
  };
  RunWorkers(queue, 1, "crt configmap", std::move(sync), {namespaces, configmaps});
  return InitResult{true};
}

}  // namespace controller::rootcacertpublisher
