#include "pkg/plugin/authenticator/token_webhook.h"

#include <algorithm>

#include <openssl/evp.h>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/token_file.h"
#include "pkg/plugin/webhook/webhook_client.h"
#include "pkg/util/log.h"

namespace authn {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The cache holds digests, never tokens.
std::string Digest(std::string_view token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(token.data(), token.size(), digest, &size, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(digest), size);
}

std::vector<std::string> Strings(const json& values) {
  std::vector<std::string> out;
  if (!values.is_array()) return out;
  for (const json& v : values) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string String(const json& object, const char* field) {
  if (!object.is_object()) return "";
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

class TokenWebhookAuthenticator final : public Authenticator {
 public:
  TokenWebhookAuthenticator(std::shared_ptr<webhook::WebhookClient> client,
                            TokenWebhookOptions options)
      : client_(std::move(client)), options_(std::move(options)) {}

  // Only a review answers: a token this might know cannot be judged at once.
  AuthenticateResult Authenticate(const genericserver::Request& request) const override {
    if (BearerToken(request).empty()) return std::nullopt;
    return std::unexpected("the token webhook answers asynchronously only");
  }

  Awaitable<AuthenticateResult> AuthenticateAsync(
      const genericserver::Request& request) const override {
    const std::string token(BearerToken(request));
    if (token.empty()) co_return std::nullopt;
    // The audiences asked for (a TokenReview's), else the server's.
    const std::vector<std::string>& want =
        request.audiences.empty() ? options_.api_audiences : request.audiences;
    std::string key = Digest(token);
    for (const std::string& a : want) key += Digest(a);
    if (auto hit = cache_.Get(key)) co_return *hit;
    ordered_json review;
    review["kind"] = "TokenReview";
    review["apiVersion"] = "authentication.k8s.io/" + options_.version;
    review["metadata"] = {{"creationTimestamp", nullptr}};
    review["spec"] = {{"token", token}};
    if (!want.empty()) review["spec"]["audiences"] = want;
    review["status"] = {{"user", json::object()}};
    const json body(review);
    auto answer = co_await client_->Post(body);
    if (!answer) {
      KLOG_ERROR << "Failed to make webhook authenticator request: " << answer.error();
      co_return std::unexpected(answer.error());
    }
    AuthenticateResult result = Judge(answer->value("status", json::object()), want);
    // Users and refusals are kept; errors (the service's status.error too) are asked again.
    if (result) cache_.Put(key, result, options_.cache_ttl);
    co_return result;
  }

 private:
  // The answer's user, good for the audiences `want` and the answer's status.audiences
  // (or, when it names none, the server's) share; none in common: not this one's.
  AuthenticateResult Judge(const json& status, const std::vector<std::string>& want) const {
    if (!status.is_object()) return std::nullopt;
    std::vector<std::string> audiences;
    if (!want.empty()) {
      std::vector<std::string> got = Strings(status.value("audiences", json::array()));
      if (got.empty()) got = options_.api_audiences;
      audiences = IntersectAudiences(want, got);
      if (audiences.empty()) return std::nullopt;
    }
    const auto authenticated = status.find("authenticated");
    if (authenticated == status.end() || !authenticated->is_boolean() || !*authenticated) {
      const std::string error = String(status, "error");
      if (!error.empty()) return std::unexpected(error);
      return std::nullopt;
    }
    const json user = status.value("user", json::object());
    UserInfo info;
    info.name = String(user, "username");
    info.uid = String(user, "uid");
    info.groups = Strings(user.is_object() ? user.value("groups", json::array()) : json());
    const json extra = user.is_object() ? user.value("extra", json::object()) : json();
    if (extra.is_object()) {
      for (const auto& [k, values] : extra.items()) info.extra[k] = Strings(values);
    }
    info.audiences = std::move(audiences);
    return info;
  }

  std::shared_ptr<webhook::WebhookClient> client_;
  TokenWebhookOptions options_;
  mutable webhook::TTLCache<AuthenticateResult> cache_;
};

}  // namespace

std::expected<AuthenticatorPtr, std::string> NewTokenWebhookAuthenticator(
    const TokenWebhookOptions& options, boost::asio::any_io_executor executor) {
  auto client = webhook::WebhookClient::New(
      options.config_file, "kube-apiserver-authentication-webhook", std::move(executor));
  if (!client) return std::unexpected(client.error());
  return std::make_shared<TokenWebhookAuthenticator>(*client, options);
}

}  // namespace authn
