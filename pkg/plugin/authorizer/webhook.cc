#include "pkg/plugin/authorizer/webhook.h"

#include <nlohmann/json.hpp>

#include "pkg/plugin/webhook/webhook_client.h"

namespace authz {
namespace {

using nlohmann::ordered_json;

class WebhookAuthorizer final : public Authorizer {
 public:
  WebhookAuthorizer(std::shared_ptr<webhook::WebhookClient> client,
                    const WebhookAuthorizerOptions& options)
      : client_(std::move(client)), options_(options) {}

  Awaitable<AuthorizationResult> Authorize(const Attributes& a) const override {
    const ordered_json spec = Spec(a);
    const std::string key = spec.dump();
    if (auto hit = cache_.Get(key)) co_return *hit;
    ordered_json review;
    review["kind"] = "SubjectAccessReview";
    review["apiVersion"] = "authorization.k8s.io/" + options_.version;
    review["metadata"] = {{"creationTimestamp", nullptr}};
    review["spec"] = spec;
    review["status"] = {{"allowed", false}};
    const nlohmann::json body(review);
    auto answer = co_await client_->Post(body);
    AuthorizationResult result;
    if (!answer) {
      result.error = "error contacting the authorization webhook: " + answer.error();
      co_return result;
    }
    const nlohmann::json status = answer->value("status", nlohmann::json::object());
    auto flag = [&](const char* field) {
      return status.is_object() && status.value(field, nlohmann::json(false)).is_boolean() &&
             status.value(field, false);
    };
    if (status.is_object() && status.contains("reason") && status["reason"].is_string()) {
      result.reason = status["reason"].get<std::string>();
    }
    if (flag("allowed")) {
      result.decision = Decision::kAllow;
    } else if (flag("denied")) {
      result.decision = Decision::kDeny;
    }
    cache_.Put(
        key, result,
        result.decision == Decision::kAllow ? options_.authorized_ttl : options_.unauthorized_ttl);
    co_return result;
  }

  Rules RulesFor(const authn::UserInfo&, std::string_view) const override {
    Rules r;
    r.incomplete = true;
    r.evaluation_error = "webhook authorizer does not support user rule resolution";
    return r;
  }

 private:
  // The review's spec, fields in upstream's order, empty ones left out.
  ordered_json Spec(const Attributes& a) const {
    const endpoints::RequestInfo& r = a.request;
    ordered_json spec = ordered_json::object();
    auto put = [](ordered_json& o, const char* field, const std::string& value) {
      if (!value.empty()) o[field] = value;
    };
    if (r.is_resource_request) {
      ordered_json attributes = ordered_json::object();
      put(attributes, "namespace", r.namespace_);
      put(attributes, "verb", r.verb);
      put(attributes, "group", r.api_group);
      put(attributes, "version", r.api_version);
      put(attributes, "resource", r.resource);
      put(attributes, "subresource", r.subresource);
      put(attributes, "name", r.name);
      spec["resourceAttributes"] = std::move(attributes);
    } else {
      ordered_json attributes = ordered_json::object();
      put(attributes, "path", r.path);
      put(attributes, "verb", r.verb);
      spec["nonResourceAttributes"] = std::move(attributes);
    }
    put(spec, "user", a.user.name);
    // v1beta1 calls the groups "group".
    if (!a.user.groups.empty()) spec[options_.version == "v1" ? "groups" : "group"] = a.user.groups;
    if (!a.user.extra.empty()) {
      ordered_json extra = ordered_json::object();
      for (const auto& [k, values] : a.user.extra) extra[k] = values;
      spec["extra"] = std::move(extra);
    }
    put(spec, "uid", a.user.uid);
    return spec;
  }

  std::shared_ptr<webhook::WebhookClient> client_;
  WebhookAuthorizerOptions options_;
  mutable webhook::TTLCache<AuthorizationResult> cache_;
};

}  // namespace

std::expected<AuthorizerPtr, std::string> NewWebhookAuthorizer(
    const WebhookAuthorizerOptions& options, boost::asio::any_io_executor executor) {
  auto client = webhook::WebhookClient::New(
      options.config_file, "kube-apiserver-authorization-webhook", std::move(executor));
  if (!client) return std::unexpected(client.error());
  return std::make_shared<WebhookAuthorizer>(*client, options);
}

}  // namespace authz
