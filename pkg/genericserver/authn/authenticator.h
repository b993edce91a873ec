#pragma once
// Authenticators map a request's credentials to a user. Implementations are immutable
// after construction (or guard what they cache) and safe to call from any thread.

#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "pkg/genericserver/authn/user.h"
#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/server/request.h"

namespace authn {

// A user; std::nullopt when the request carries no credentials of this kind; or an
// error when it carries credentials of this kind that are not valid (the caller answers
// 401 and does not fall back to anonymous).
using AuthenticateResult = std::expected<std::optional<UserInfo>, std::string>;

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // The answer from what the authenticator holds, at once.
  virtual AuthenticateResult Authenticate(const genericserver::Request& request) const = 0;
  // What the server asks (the authentication filter, TokenReview): the local answer, unless
  // the authenticator asks a remote service (the token webhook), which only this answers.
  virtual Awaitable<AuthenticateResult> AuthenticateAsync(
      const genericserver::Request& request) const {
    co_return Authenticate(request);
  }
};
using AuthenticatorPtr = std::shared_ptr<const Authenticator>;

}  // namespace authn
