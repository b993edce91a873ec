#include "pkg/genericserver/authn/x509.h"

namespace authn {

AuthenticateResult X509Authenticator::Authenticate(const genericserver::Request& request) const {
  const genericserver::TlsPeer* peer = request.peer.get();
  if (!peer || !peer->presented) return std::nullopt;
  if (!peer->verified) {
    return std::unexpected("verifying certificate " + peer->common_name +
                           " failed: " + peer->verify_error);
  }
  if (peer->common_name.empty()) return std::nullopt;
  UserInfo user;
  user.name = peer->common_name;
  user.groups = peer->organizations;
  return user;
}

}  // namespace authn
