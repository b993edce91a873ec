#include "pkg/genericserver/authn/union.h"

#include <algorithm>

#include "pkg/util/strings.h"

namespace authn {
namespace {

// Whether the request carries a bearer token ("Bearer <token>", the scheme in any case), as
// upstream's bearer-token authenticator reads the header.
bool HasBearerToken(const genericserver::Request& request) {
  const std::string_view auth = util::TrimSpace(request.headers.Get("Authorization").value_or(""));
  const size_t space = auth.find(' ');
  if (space == std::string_view::npos || !util::EqualsIgnoreCase(auth.substr(0, space), "bearer")) {
    return false;
  }
  const std::string_view rest = auth.substr(space + 1);
  return !rest.substr(0, rest.find(' ')).empty();
}

class UnionAuthenticator final : public Authenticator {
 public:
  UnionAuthenticator(std::vector<AuthenticatorPtr> list, bool anonymous)
      : list_(std::move(list)), anonymous_(anonymous) {}

  AuthenticateResult Authenticate(const genericserver::Request& request) const override {
    std::vector<std::string> errors;
    for (const AuthenticatorPtr& a : list_) {
      AuthenticateResult r = a->Authenticate(request);
      if (!r) {
        errors.push_back(r.error());
        continue;
      }
      if (*r) {
        UserInfo user = std::move(**r);
        if (!user.InGroup(kAllAuthenticated) && !user.InGroup(kAllUnauthenticated)) {
          user.groups.push_back(kAllAuthenticated);
        }
        return user;
      }
    }
    // A token nobody accepted is refused, not taken for anonymous, as upstream refuses it.
    if (errors.empty() && HasBearerToken(request)) errors.push_back(kInvalidBearerToken);
    if (!errors.empty()) return std::unexpected(util::Join(errors, ", "));
    if (!anonymous_) return std::nullopt;
    UserInfo anon;
    anon.name = kAnonymousUser;
    anon.groups = {kAllUnauthenticated};
    return anon;
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
