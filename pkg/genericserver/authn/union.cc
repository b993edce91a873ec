#include "pkg/genericserver/authn/union.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "pkg/genericserver/authn/token_file.h"
#include "pkg/util/strings.h"

namespace authn {
namespace {

// The answers so far, in order: the first user ends the search.
class Attempt {
 public:
  // Whether the search is over.
  bool Take(AuthenticateResult r) {
    if (!r) {
      errors_.push_back(r.error());
      return false;
    }
    if (!*r) return false;
    user_ = std::move(**r);
    return true;
  }

  AuthenticateResult Result(const genericserver::Request& request, bool anonymous) && {
    if (user_) {
      if (!user_->InGroup(kAllAuthenticated) && !user_->InGroup(kAllUnauthenticated)) {
        user_->groups.push_back(kAllAuthenticated);
      }
      return std::move(*user_);
    }
    // A token nobody accepted is refused, not taken for anonymous, as upstream refuses it.
    if (errors_.empty() && !BearerToken(request).empty()) errors_.push_back(kInvalidBearerToken);
    // One error as it is, several as upstream's aggregate prints them: "[a, b]".
    if (errors_.size() == 1) return std::unexpected(errors_[0]);
    if (!errors_.empty()) return std::unexpected("[" + util::Join(errors_, ", ") + "]");
    if (!anonymous) return std::nullopt;
    UserInfo anon;
    anon.name = kAnonymousUser;
    anon.groups = {kAllUnauthenticated};
    return anon;
  }

 private:
  std::optional<UserInfo> user_;
  std::vector<std::string> errors_;
};

class UnionAuthenticator final : public Authenticator {
 public:
  UnionAuthenticator(std::vector<AuthenticatorPtr> list, bool anonymous)
      : list_(std::move(list)), anonymous_(anonymous) {}

  AuthenticateResult Authenticate(const genericserver::Request& request) const override {
    Attempt attempt;
    for (const AuthenticatorPtr& a : list_) {
      if (attempt.Take(a->Authenticate(request))) break;
    }
    return std::move(attempt).Result(request, anonymous_);
  }

  Awaitable<AuthenticateResult> AuthenticateAsync(
      const genericserver::Request& request) const override {
    Attempt attempt;
    for (const AuthenticatorPtr& a : list_) {
      AuthenticateResult r = co_await a->AuthenticateAsync(request);
      if (attempt.Take(std::move(r))) break;
    }
    co_return std::move(attempt).Result(request, anonymous_);
  }

 private:
  std::vector<AuthenticatorPtr> list_;
  bool anonymous_;
};

class ImplicitAudiences final : public Authenticator {
 public:
  ImplicitAudiences(std::vector<std::string> implicit, AuthenticatorPtr delegate)
      : implicit_(std::move(implicit)), delegate_(std::move(delegate)) {}

  AuthenticateResult Authenticate(const genericserver::Request& request) const override {
    std::vector<std::string> audiences = Audiences(request);
    if (audiences.empty() && !request.audiences.empty()) return std::nullopt;
    return Mark(delegate_->Authenticate(request), std::move(audiences));
  }

  Awaitable<AuthenticateResult> AuthenticateAsync(
      const genericserver::Request& request) const override {
    std::vector<std::string> audiences = Audiences(request);
    if (audiences.empty() && !request.audiences.empty()) co_return std::nullopt;
    AuthenticateResult r = co_await delegate_->AuthenticateAsync(request);
    co_return Mark(std::move(r), std::move(audiences));
  }

 private:
  std::vector<std::string> Audiences(const genericserver::Request& request) const {
    return request.audiences.empty() ? implicit_ : IntersectAudiences(implicit_, request.audiences);
  }
  static AuthenticateResult Mark(AuthenticateResult r, std::vector<std::string> audiences) {
    if (r && *r) (*r)->audiences = std::move(audiences);
    return r;
  }

  std::vector<std::string> implicit_;
  AuthenticatorPtr delegate_;
};

}  // namespace

AuthenticatorPtr WithImplicitAudiences(std::vector<std::string> implicit,
                                       AuthenticatorPtr authenticator) {
  return std::make_shared<ImplicitAudiences>(std::move(implicit), std::move(authenticator));
}

AuthenticatorPtr NewUnionAuthenticator(std::vector<AuthenticatorPtr> authenticators,
                                       bool anonymous) {
  return std::make_shared<UnionAuthenticator>(std::move(authenticators), anonymous);
}

}  // namespace authn
