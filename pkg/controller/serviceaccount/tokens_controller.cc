#include "pkg/controller/serviceaccount/tokens_controller.h"

#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"
#include "pkg/controller/worker.h"
#include "pkg/genericserver/authn/service_account_token.h"
#include "pkg/util/base64.h"

namespace controller::serviceaccount {

using nlohmann::json;

namespace {

const client::GroupVersionResource kServiceAccounts{"", "v1", "serviceaccounts"};
const client::GroupVersionResource kSecrets{"", "v1", "secrets"};
constexpr char kTokenType[] = "kubernetes.io/service-account-token";
constexpr char kNameAnnotation[] = "kubernetes.io/service-account.name";
constexpr char kUIDAnnotation[] = "kubernetes.io/service-account.uid";

bool IsTokenSecret(const json& secret) { return secret.value("type", "") == kTokenType; }

// The Secret is a token of this account: the names match, and the uid when it is recorded.
bool References(const json& secret, const json& account) {
  if (!IsTokenSecret(secret) || Annotation(secret, kNameAnnotation) != Meta(account, "name")) {
    return false;
  }
  const std::string uid = Annotation(secret, kUIDAnnotation);
  return uid.empty() || uid == Meta(account, "uid");
}

std::string DataString(const json& secret, const char* key) {
  auto data = secret.value("data", json::object());
  auto it = data.find(key);
  if (it == data.end() || !it->is_string()) return "";
  auto decoded = util::Base64Decode(it->get<std::string>());
  return decoded ? *decoded : "";
}

struct Shared {
  std::shared_ptr<client::SharedInformer> accounts, secrets;
  std::shared_ptr<client::RestClient> api;
  std::string key_pem, ca_pem;
};

// Deletes a token Secret, only the one seen (its uid); gone already is success.
Awaitable<SyncResult> DeleteSecret(const Shared& s, const json& secret) {
  std::string target =
      client::ResourcePath(kSecrets, Meta(secret, "namespace"), Meta(secret, "name"));
  json options = DeleteOptionsWithUID(Meta(secret, "uid"));
  auto deleted = co_await s.api->Delete(target, &options);
  if (deleted || deleted.error().IsNotFound() || deleted.error().IsConflict()) {
    co_return SyncResult();
  }
  co_return std::unexpected(deleted.error().String());
}

// The account as the server has it now: the cache first, then a live read (a Secret made
// just after its account may be seen before the account's informer has it).
Awaitable<client::Result<std::optional<json>>> LiveAccount(const Shared& s, const std::string& ns,
                                                           const std::string& name) {
  if (client::ObjectPtr cached = s.accounts->Get(ns + "/" + name)) {
    co_return std::optional<json>(*cached);
  }
  auto live = co_await s.api->Get(client::ResourcePath(kServiceAccounts, ns, name));
  if (live) co_return std::optional<json>(std::move(*live));
  if (live.error().IsNotFound()) co_return std::optional<json>();
  co_return std::unexpected(live.error());
}

// A deleted token Secret leaves its account's `secrets` list.
Awaitable<SyncResult> RemoveReference(const Shared& s, const std::string& ns,
                                      const std::string& name) {
  for (const client::ObjectPtr& account : s.accounts->ByIndex(client::kNamespaceIndex, ns)) {
    json secrets = account->value("secrets", json::array());
    json kept = json::array();
    for (const json& ref : secrets) {
      if (!(ref.is_object() && ref.value("name", "") == name)) kept.push_back(ref);
    }
    if (kept.size() == secrets.size()) continue;
    json updated = *account;
    updated["secrets"] = std::move(kept);
    std::string target = client::ResourcePath(kServiceAccounts, ns, Meta(*account, "name"));
    auto put = co_await s.api->Put(target, updated);
    if (!put && !put.error().IsNotFound()) co_return std::unexpected(put.error().String());
  }
  co_return SyncResult();
}

Awaitable<SyncResult> SyncSecret(std::shared_ptr<const Shared> shared, std::string key) {
  const Shared& s = *shared;
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  client::ObjectPtr cached = s.secrets->Get(key);
  if (!cached) co_return co_await RemoveReference(s, ns, name);
  if (!IsTokenSecret(*cached)) co_return SyncResult();
  const json& secret = *cached;

  auto account = co_await LiveAccount(s, ns, Annotation(secret, kNameAnnotation));
  if (!account) co_return std::unexpected(account.error().String());
  if (!*account || !References(secret, **account)) co_return co_await DeleteSecret(s, secret);

  const std::string uid = Meta(**account, "uid");
  // Without a root CA, an existing ca.crt is left as it is (as upstream).
  const bool needs_ca = !s.ca_pem.empty() && DataString(secret, "ca.crt") != s.ca_pem;
  const bool needs_namespace = DataString(secret, "namespace") != ns;
  const bool needs_token = DataString(secret, "token").empty();
  const bool needs_uid = Annotation(secret, kUIDAnnotation) != uid;
  if (!needs_ca && !needs_namespace && !needs_token && !needs_uid) co_return SyncResult();

  // Fill in the Secret as the server has it now (the cache may be behind).
  const std::string target = client::ResourcePath(kSecrets, ns, name);
  auto live = co_await s.api->Get(target);
  if (!live) {
    if (live.error().IsNotFound()) co_return SyncResult();
    co_return std::unexpected(live.error().String());
  }
  json updated = std::move(*live);
  if (Meta(updated, "uid") != Meta(secret, "uid")) co_return SyncResult();  // another one now
  if (!updated.contains("data") || !updated["data"].is_object()) updated["data"] = json::object();
  json& data = updated["data"];
  if (needs_ca) data["ca.crt"] = util::Base64Encode(s.ca_pem);
  if (needs_namespace) data["namespace"] = util::Base64Encode(ns);
  if (DataString(updated, "token").empty()) {
    authn::LegacyServiceAccountClaims claims{
        .ns = ns, .name = Meta(**account, "name"), .uid = uid, .secret_name = name};
    auto token = authn::SignLegacyServiceAccountToken(claims, s.key_pem);
    if (!token) co_return std::unexpected("generating the token: " + token.error());
    data["token"] = util::Base64Encode(*token);
  }
  updated["metadata"]["annotations"][kNameAnnotation] = Meta(**account, "name");
  updated["metadata"]["annotations"][kUIDAnnotation] = uid;
  auto put = co_await s.api->Put(target, updated);
  if (put || put.error().IsNotFound()) co_return SyncResult();
  co_return std::unexpected(put.error().String());
}

// A deleted account takes its token Secrets with it.
Awaitable<SyncResult> SyncAccount(std::shared_ptr<const Shared> shared, std::string key) {
  const Shared& s = *shared;
  if (s.accounts->Get(key)) co_return SyncResult();
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  for (const client::ObjectPtr& secret : s.secrets->ByIndex(client::kNamespaceIndex, ns)) {
    if (!IsTokenSecret(*secret) || Annotation(*secret, kNameAnnotation) != name) continue;
    SyncResult r = co_await DeleteSecret(s, *secret);
    if (!r) co_return r;
  }
  co_return SyncResult();
}

}  // namespace

std::expected<InitResult, std::string> StartTokensController(ControllerContext& ctx) {
  if (ctx.options.service_account_private_key_pem.empty()) {
    return InitResult{.started = false,
                      .skip_reason = "no service account private key file is configured"};
  }
  auto shared = std::make_shared<Shared>(Shared{
      .accounts = ctx.informers->ForResource(kServiceAccounts),
      .secrets = ctx.informers->ForResource(kSecrets),
      // As upstream, the controller's own credentials, never a service account's (it makes
      // the tokens those would use).
      .api = ctx.client,
      .key_pem = ctx.options.service_account_private_key_pem,
      .ca_pem = ctx.options.root_ca_pem,
  });
  auto account_queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto secret_queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));

  client::ResourceEventHandler on_account;
  on_account.on_delete = [account_queue](const client::ObjectPtr& o) {
    Enqueue(account_queue, client::KeyOf(*o));
  };
  shared->accounts->AddEventHandler(std::move(on_account));
  shared->secrets->AddEventHandler(EnqueueObjects(secret_queue, /*deletes=*/true, IsTokenSecret));

  const int workers = std::max(1, ctx.options.concurrent_serviceaccount_token_syncs);
  RunWorkers(account_queue, workers, "service account tokens (accounts)",
             [shared](const std::string& key) { return SyncAccount(shared, key); },
             {shared->accounts, shared->secrets});
  RunWorkers(secret_queue, workers, "service account tokens (secrets)",
             [shared](const std::string& key) { return SyncSecret(shared, key); },
             {shared->accounts, shared->secrets});
  return InitResult{true};
}

}  // namespace controller::serviceaccount
