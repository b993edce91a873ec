#pragma once
// Authenticators map a request's credentials to a user. Implementations are immutable
// after construction and safe to call from any thread.

#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "pkg/genericserver/authn/user.h"
#include "pkg/genericserver/server/request.h"

namespace authn {

// A user; std::nullopt when the request carries no credentials of this kind; or an
// error when it carries credentials of this kind that are not valid (the caller answers
// 401 and does not fall back to anonymous).
using AuthenticateResult = std::expected<std::optional<UserInfo>, std::string>;

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  virtual AuthenticateResult Authenticate(const genericserver::Request& request) const = 0;
};
using AuthenticatorPtr = std::shared_ptr<const Authenticator>;

}  // namespace authn
