#include "pkg/controller/bootstrap/bootstrap_signer.h"

#include <map>

#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/clusterbootstrap/token_secret.h"
#include "pkg/controller/bootstrap/detached_jws.h"
#include "pkg/controller/object.h"
#include "pkg/controller/worker.h"
#include "pkg/util/log.h"

namespace controller::bootstrap {

using nlohmann::json;
using namespace clusterbootstrap;  // NOLINT(build/namespaces): the Secrets' helpers

namespace {

const client::GroupVersionResource kSecrets{"", "v1", "secrets"};
const client::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

bool IsClusterInfo(const json& cm) {
  return Meta(cm, "name") == kClusterInfoName && Meta(cm, "namespace") == kClusterInfoNamespace;
}

}  // namespace

std::optional<json> SignedData(const json& configmap, const std::vector<client::ObjectPtr>& secrets,
                               Time now) {
  json data = configmap.value("data", json::object());
  if (!data.is_object()) data = json::object();
  auto kubeconfig = data.find(kKubeConfigKey);
  if (kubeconfig == data.end() || !kubeconfig->is_string()) {
    KLOG_V(3) << "\"No key in ConfigMap\" key=\"" << kKubeConfigKey << "\" configMap=\""
              << client::KeyOf(configmap) << "\"";
    return std::nullopt;
  }
  const std::string content = kubeconfig->get<std::string>();

  // The signatures there now, by token id, taken out of the data.
  const std::string prefix = kJWSSignatureKeyPrefix;
  std::map<std::string, json> old_signatures;
  for (auto it = data.begin(); it != data.end();) {
    if (it.key().starts_with(prefix)) {
      old_signatures.emplace(it.key().substr(prefix.size()), it.value());
      it = data.erase(it);
    } else {
      ++it;
    }
  }

  // The tokens that may sign, the first Secret of an id winning.
  std::map<std::string, std::string> tokens;
  for (const client::ObjectPtr& secret : secrets) {
    if (!IsWatchedTokenSecret(*secret)) continue;
    std::optional<SigningToken> token = TokenForSigning(*secret, now);
    if (!token) continue;
    if (tokens.contains(token->id)) {
      KLOG_V(1) << "\"Duplicate bootstrap tokens found for id, ignoring on the duplicate "
                   "secret\" tokenID=\""
                << token->id << "\" ignoredSecret=\"" << client::KeyOf(*secret) << "\"";
      continue;
    }
    tokens.emplace(token->id, token->secret);
  }

  bool changed = false;
  for (const auto& [id, secret] : tokens) {
    std::expected<std::string, std::string> signature =
        ComputeDetachedSignature(content, id, secret);
    if (!signature) KLOG_ERROR << signature.error();
    const std::string value = signature ? *signature : std::string();
    auto old = old_signatures.find(id);
    if (old == old_signatures.end() || old->second != value) changed = true;
    if (old != old_signatures.end()) old_signatures.erase(old);
    data[prefix + id] = value;
  }
  if (!old_signatures.empty()) changed = true;  // signatures of tokens gone or unusable
  if (!changed) return std::nullopt;
  return data;
}

std::expected<InitResult, std::string> StartBootstrapSignerController(ControllerContext& ctx) {
  auto secrets = ctx.informers->ForResource(kSecrets);
  auto configmaps = ctx.informers->ForResource(kConfigMaps);
  auto queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto api = ctx.client_for("bootstrap-signer");
  const std::string key = std::string(kClusterInfoNamespace) + "/" + kClusterInfoName;

  client::ResourceEventHandler on_configmap;
  on_configmap.on_add = [queue, key](const client::ObjectPtr& o) {
    if (IsClusterInfo(*o)) Enqueue(queue, key);
  };
  on_configmap.on_update = [queue, key](const client::ObjectPtr&, const client::ObjectPtr& o) {
    if (IsClusterInfo(*o)) Enqueue(queue, key);
  };
  configmaps->AddEventHandler(std::move(on_configmap));
  auto poke = [queue, key](const client::ObjectPtr& o) {
    if (IsWatchedTokenSecret(*o)) Enqueue(queue, key);
  };
  client::ResourceEventHandler on_secret;
  on_secret.on_add = poke;
  on_secret.on_update = [poke](const client::ObjectPtr&, const client::ObjectPtr& o) { poke(o); };
  on_secret.on_delete = poke;
  secrets->AddEventHandler(std::move(on_secret));

  SyncFunc sync = [secrets, configmaps, api](const std::string& key) -> Awaitable<SyncResult> {
    client::ObjectPtr cm = configmaps->Get(key);
    if (!cm) co_return SyncResult();
    std::vector<client::ObjectPtr> tokens =
        secrets->ByIndex(client::kNamespaceIndex, kTokenSecretNamespace);
    std::optional<json> data = SignedData(*cm, tokens, util::MicroNow());
    if (!data) co_return SyncResult();
    json updated = *cm;
    updated["data"] = std::move(*data);
    const std::string path =
        client::ResourcePath(kConfigMaps, kClusterInfoNamespace, kClusterInfoName);
    auto put = co_await api->Put(path, updated);
    if (!put && !put.error().IsConflict() && !put.error().IsNotFound()) {
      KLOG_V(3) << "\"Error updating ConfigMap\" err=\"" << put.error().String() << "\"";
    }
    co_return SyncResult();
  };
  RunWorkers(queue, 1, "bootstrap_signer", std::move(sync), {configmaps, secrets});
  return InitResult{true};
}

}  // namespace controller::bootstrap
