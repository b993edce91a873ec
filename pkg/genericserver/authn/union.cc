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
    if (!errors_.empty()) return std::unexpected(util::Join(errors_, ", "));
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

}  // namespace

AuthenticatorPtr NewUnionAuthenticator(std::vector<AuthenticatorPtr> authenticators,
                                       bool anonymous) {
  return std::make_shared<UnionAuthenticator>(std::move(authenticators), anonymous);
}

}  // namespace authn
