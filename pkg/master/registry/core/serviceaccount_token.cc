// serviceaccounts/token: a TokenRequest for a service account answered with a signed token
// (what `kubectl create token` and the kubelet ask for). Nothing is stored; the token is a
// JWT the service-account authenticator accepts until it expires.
#include "pkg/master/registry/core/serviceaccount_token.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/authn/service_account_token.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/registry/subresource_action.h"
#include "pkg/master/registry/fields.h"
#include "pkg/util/uuid.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr int64_t kDefaultExpirationSeconds = 3600;
constexpr int64_t kMinExpirationSeconds = 600;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;

class TokenRequest final : public registry::SubresourceAction {
 public:
  explicit TokenRequest(TokenSigner signer) : signer_(std::move(signer)) {}

  Awaitable<registry::Result<json>> Post(registry::Store& store, std::string ns, std::string name,
                                         json body, registry::WriteOptions) const override {
    const json& spec = Sub(body, "spec");
    const int64_t seconds = Int(spec, "expirationSeconds", kDefaultExpirationSeconds);
    registry::FieldErrors errors;
    if (seconds < kMinExpirationSeconds) {
      v::FieldError e = v::FieldInvalid("spec.expirationSeconds", std::to_string(seconds),
                                        "may not specify a duration less than 10 minutes");
      e.value_form = v::ValueForm::kVerbatim;
      errors.push_back(e);
    } else if (seconds > kMaxExpirationSeconds) {
      v::FieldError e = v::FieldInvalid("spec.expirationSeconds", std::to_string(seconds),
                                        "may not specify a duration larger than 2^32 seconds");
      e.value_form = v::ValueForm::kVerbatim;
      errors.push_back(e);
    }
    const json& bound = Sub(spec, "boundObjectRef");
    const std::string bound_kind = Str(bound, "kind");
    const bool is_bound = Present(spec, "boundObjectRef") != nullptr;
    if (is_bound && bound_kind != "Pod" && bound_kind != "Secret" && bound_kind != "Node") {
      errors.push_back(
          v::FieldNotSupported("spec.boundObjectRef.kind", bound_kind, {"Node", "Pod", "Secret"}));
    }
    if (!errors.empty()) {
      co_return std::unexpected(
          v::NewInvalid("authentication.k8s.io", "TokenRequest", name, errors));
    }
    auto sa = co_await store.Get(ns, name, "");  // the newest
    if (!sa) co_return std::unexpected(sa.error());
    const json account = registry::Parse(**sa);
    // The bound object must exist (with the uid the request names, if any), as upstream.
    std::string bound_uid, node_name, node_uid;
    if (is_bound) {
      const std::string bound_ns = bound_kind == "Node" ? "" : ns;  // nodes are cluster-wide
      auto object = co_await BoundObject(bound_kind, bound_ns, Str(bound, "name"));
      if (!object) co_return std::unexpected(object.error());
      bound_uid = registry::MetaString(*object, "uid");
      if (bound_kind == "Pod" && Str(Sub(*object, "spec"), "serviceAccountName") != name) {
        co_return std::unexpected(
            apimachinery::NewBadRequest("cannot bind token for serviceaccount \"" + name +
                                        "\" to pod running with different serviceaccount name."));
      }
      if (!Str(bound, "uid").empty() && Str(bound, "uid") != bound_uid) {
        co_return std::unexpected(apimachinery::NewConflict(
            {"", bound_kind}, Str(bound, "name"),
            "the UID in the bound object reference (" + Str(bound, "uid") +
                ") does not match the UID in record. The object might have been deleted and "
                "then recreated"));
      }
      // A pod's token names its node too, the node's uid when it exists.
      node_name = bound_kind == "Pod" ? Str(Sub(*object, "spec"), "nodeName") : "";
      if (!node_name.empty()) {
        if (auto node = co_await BoundObject("Node", "", node_name)) {
          node_uid = registry::MetaString(*node, "uid");
        }
      }
    }

    authn::ServiceAccountClaims claims;
    claims.issuer = signer_.issuer;
    claims.audiences = signer_.api_audiences;
    if (const json& audiences = List(spec, "audiences"); !audiences.empty()) {
      claims.audiences.clear();
      for (const json& a : audiences) {
        if (a.is_string()) claims.audiences.push_back(a.get<std::string>());
      }
    }
    claims.ns = ns;
    claims.name = name;
    claims.uid = registry::MetaString(account, "uid");
    const auto now =
        std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    claims.issued_at = now;
    claims.expires_at = now + std::chrono::seconds(seconds);
    claims.jti = util::NewUUID();
    claims.bound_kind = bound_kind;
    claims.bound_name = Str(bound, "name");
    claims.bound_uid = bound_uid;
    claims.pod_node_name = node_name;
    claims.pod_node_uid = node_uid;
    auto token = authn::SignServiceAccountToken(claims, signer_.signing_key);
    if (!token) co_return std::unexpected(apimachinery::NewInternalError(token.error()));

    json answer = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}};
    json meta = Sub(body, "metadata");
    meta["name"] = name;
    meta["namespace"] = ns;
    if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
    answer["metadata"] = std::move(meta);
    json answer_spec = spec;
    answer_spec["audiences"] = claims.audiences;
    answer_spec["expirationSeconds"] = seconds;
    if (!is_bound) answer_spec["boundObjectRef"] = nullptr;
    answer["spec"] = std::move(answer_spec);
    answer["status"] = {{"token", *token},
                        {"expirationTimestamp", registry::FormatTime(claims.expires_at)}};
    co_return answer;
  }

 private:
  Awaitable<registry::Result<json>> BoundObject(std::string kind, std::string ns,
                                                std::string name) const {
    const std::shared_ptr<registry::Store>& store = kind == "Pod"      ? signer_.pods
                                                    : kind == "Secret" ? signer_.secrets
                                                                       : signer_.nodes;
    if (!store) co_return std::unexpected(apimachinery::NewInternalError("no " + kind + " store"));
    auto object = co_await store->Get(std::move(ns), std::move(name), "");
    if (!object) co_return std::unexpected(object.error());
    co_return registry::Parse(**object);
  }

  TokenSigner signer_;
};

}  // namespace

registry::Subresource ServiceAccountToken(TokenSigner signer) {
  return {"token", {"authentication.k8s.io", "v1", "TokenRequest"},  {"create"}, nullptr,
          nullptr, std::make_shared<TokenRequest>(std::move(signer))};
}

}  // namespace master::resources
