// authentication.k8s.io/v1: TokenReview (who does this bearer token stand for, as the
// server's authenticator sees it) and SelfSubjectReview (who am I). Created, never stored.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/union.h"
#include "pkg/genericserver/registry/subresource_action.h"
#include "pkg/genericserver/server/request.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

constexpr char kGroupVersion[] = "authentication.k8s.io/v1";

// authentication.k8s.io's UserInfo.
class TokenReview final : public registry::SubresourceAction {
 public:
  TokenReview(authn::AuthenticatorPtr authenticator, std::vector<std::string> api_audiences)
      : authenticator_(std::move(authenticator)), api_audiences_(std::move(api_audiences)) {}

  Awaitable<registry::Result<json>> Post(registry::Store&, std::string, std::string, json body,
                                         registry::WriteOptions) const override {
    const std::string token = Str(Sub(body, "spec"), "token");
    if (token.empty()) {
      co_return std::unexpected(
          apimachinery::NewBadRequest("token is required for TokenReview in authentication"));
    }
    // The token alone, as a request carrying it would present it: no client certificate,
    // and anonymity is no answer.
    genericserver::Request request;
    request.headers.Set("Authorization", "Bearer " + token);
    // For the audiences the review names, else the server's, as upstream asks.
    for (const json& a : List(Sub(body, "spec"), "audiences")) {
      if (a.is_string()) request.audiences.push_back(a.get<std::string>());
    }
    if (request.audiences.empty()) request.audiences = api_audiences_;
    authn::AuthenticateResult result = co_await authenticator_->AuthenticateAsync(request);
    json status = {{"user", json::object()}};
    // A token nobody claims is not authenticated, with no error (upstream asks the token
    // authenticators directly, without the request's "invalid bearer token").
    if (!result && result.error() != authn::kInvalidBearerToken) {
      status["error"] = result.error();
    } else if (result && *result && !(*result)->InGroup(authn::kAllUnauthenticated)) {
      // An authenticator must not find a user for audiences that were not asked for.
      if (!request.audiences.empty() &&
          authn::IntersectAudiences((*result)->audiences, request.audiences).empty()) {
        co_return std::unexpected(apimachinery::NewInternalError("error validating audiences"));
      }
      status["authenticated"] = true;
      status["user"] = authn::UserInfoJSON(**result);
      if (!(*result)->audiences.empty()) status["audiences"] = (*result)->audiences;
    }
    co_return AnswerWithStatus(std::move(body), std::move(status));
  }

 private:
  authn::AuthenticatorPtr authenticator_;
  std::vector<std::string> api_audiences_;
};

class SelfSubjectReview final : public registry::SubresourceAction {
 public:
  Awaitable<registry::Result<json>> Post(registry::Store&, std::string, std::string, json body,
                                         registry::WriteOptions options) const override {
    json status = {{"userInfo", authn::UserInfoJSON(options.user.value_or(authn::UserInfo{}))}};
    co_return AnswerWithStatus(std::move(body), std::move(status));
  }
};

}  // namespace

registry::ResourceSpecPtr TokenReviews(authn::AuthenticatorPtr authenticator,
                                       std::vector<std::string> api_audiences) {
  auto spec = Builtin(kGroupVersion, "tokenreviews");
  spec->create_action =
      std::make_shared<TokenReview>(std::move(authenticator), std::move(api_audiences));
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr SelfSubjectReviews() {
  auto spec = Builtin(kGroupVersion, "selfsubjectreviews");
  spec->create_action = std::make_shared<SelfSubjectReview>();
  return Finish(std::move(spec));
}

}  // namespace master::resources
