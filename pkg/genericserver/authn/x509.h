#pragma once
// Client certificates: the TLS layer verified the chain against the client CAs during
// the handshake; this maps a verified certificate to a user (CN the name, O the groups).

#include "pkg/genericserver/authn/authenticator.h"

namespace authn {

class X509Authenticator final : public Authenticator {
 public:
  // No certificate: no opinion. A certificate that did not verify: an error (401).
  AuthenticateResult Authenticate(const genericserver::Request& request) const override;
};

}  // namespace authn
