#pragma once
// --enable-bootstrap-token-auth: bearer tokens "<id>.<secret>" (six and sixteen of [a-z0-9])
// accepted while kube-system holds a Secret `bootstrap-token-<id>` of type
// bootstrap.kubernetes.io/token, not being deleted, whose `token-id` and `token-secret` are
// the token's, not expired, with `usage-bootstrap-authentication` "true" (upstream's
// bootstrap token authenticator). The user is system:bootstrap:<id> in system:bootstrappers
// and the Secret's `auth-extra-groups`. Any other token is not this authenticator's (no
// opinion: what it finds wrong is logged at -v=3, as upstream logs it), so the union refuses
// it unless another authenticator takes it.
//
// Threads: BootstrapTokenSecrets is fed by one writer (the store feed of Secrets) and read
// from any thread; the authenticator is immutable.

#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/authn/authenticator.h"
#include "pkg/util/timestamp.h"

namespace authn {

// The bootstrap token Secrets of kube-system (those named bootstrap-token-*), as the watch
// cache of Secrets holds them; master::FeedInto keeps it current.
class BootstrapTokenSecrets {
 public:
  enum class Kind { kSecret };  // the one kind fed (FeedInto's shape)

  void Replace(Kind, const std::vector<nlohmann::json>& secrets);
  void Upsert(Kind, const nlohmann::json& secret);
  void Remove(Kind, const nlohmann::json& secret);
  void MarkSynced(Kind);
  bool Synced() const;

  // The Secret of that name in kube-system, or null.
  std::shared_ptr<const nlohmann::json> Find(std::string_view name) const;

 private:
  void UpsertLocked(const nlohmann::json& secret);

  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<const nlohmann::json>, std::less<>> secrets_;
  bool synced_ = false;
};

AuthenticatorPtr NewBootstrapTokenAuthenticator(
    std::shared_ptr<const BootstrapTokenSecrets> secrets,
    std::function<util::MicroTime()> now = util::MicroNow);

}  // namespace authn
