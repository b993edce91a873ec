#include "pkg/plugin/authenticator/bootstrap_token.h"

#include <algorithm>
#include <mutex>
#include <optional>

#include <openssl/crypto.h>
#include <nlohmann/json.hpp>

#include "pkg/clusterbootstrap/token_secret.h"
#include "pkg/genericserver/authn/token_file.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/util/log.h"

namespace authn {
namespace {

using nlohmann::json;
namespace cb = clusterbootstrap;

// Only kube-system's bootstrap-token-* Secrets are kept: the only ones ever looked up.
bool Kept(const json& secret) {
  return registry::MetaString(secret, "namespace") == cb::kTokenSecretNamespace &&
         registry::MetaString(secret, "name").starts_with(cb::kTokenSecretPrefix);
}

struct Token {
  std::string id, secret;
};

// "<id>.<secret>", six and sixteen of [a-z0-9] (upstream's BootstrapTokenPattern).
std::optional<Token> ParseToken(std::string_view token) {
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (token.size() != 6 + 1 + 16 || token[6] != '.') return std::nullopt;
  const std::string_view id = token.substr(0, 6), secret = token.substr(7);
  if (!std::all_of(id.begin(), id.end(), lower_alnum) ||
      !std::all_of(secret.begin(), secret.end(), lower_alnum)) {
    return std::nullopt;
  }
  return Token{std::string(id), std::string(secret)};
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

class BootstrapTokenAuthenticator final : public Authenticator {
 public:
  BootstrapTokenAuthenticator(std::shared_ptr<const BootstrapTokenSecrets> secrets,
                              std::function<util::MicroTime()> now)
      : secrets_(std::move(secrets)), now_(std::move(now)) {}

  AuthenticateResult Authenticate(const genericserver::Request& request) const override {
    std::optional<Token> token = ParseToken(BearerToken(request));
    if (!token) return std::nullopt;
    const std::string name = cb::kTokenSecretPrefix + token->id;
    auto refused = [&name](std::string_view why) -> AuthenticateResult {
      KLOG_V(3) << "Bootstrap secret " << cb::kTokenSecretNamespace << "/" << name
                << " rejected: " << why;
      return std::nullopt;
    };
    std::shared_ptr<const json> secret = secrets_->Find(name);
    if (!secret) {
      KLOG_V(3) << "No secret of name " << name << " to match bootstrap bearer token";
      return std::nullopt;
    }
    if (!registry::MetaString(*secret, "deletionTimestamp").empty()) {
      return refused("it is being deleted");
    }
    if (secret->value("type", "") != cb::kSecretTypeBootstrapToken || !secret->contains("data")) {
      return refused(std::string("its type is not ") + cb::kSecretTypeBootstrapToken);
    }
    if (!ConstantTimeEquals(cb::SecretData(*secret, cb::kTokenSecretKey), token->secret)) {
      return refused("its token-secret does not match the token");
    }
    if (cb::SecretData(*secret, cb::kTokenIDKey) != token->id) {
      return refused("its token-id does not match the token");
    }
    if (cb::GetExpiration(*secret, now_()).expired) return refused("it has expired");
    if (cb::SecretData(*secret, cb::kTokenUsageAuthenticationKey) != "true") {
      return refused(std::string("it is not marked ") + cb::kTokenUsageAuthenticationKey + "=true");
    }
    auto groups = cb::TokenGroups(*secret);
    if (!groups) {
      return refused(std::string("invalid ") + cb::kTokenExtraGroupsKey + ": " + groups.error());
    }
    UserInfo user;
    user.name = cb::kBootstrapUserPrefix + token->id;
    user.groups = std::move(*groups);
    return user;
  }

 private:
  std::shared_ptr<const BootstrapTokenSecrets> secrets_;
  std::function<util::MicroTime()> now_;
};

}  // namespace

void BootstrapTokenSecrets::UpsertLocked(const json& secret) {
  if (Kept(secret))
    secrets_[registry::MetaString(secret, "name")] = std::make_shared<const json>(secret);
}

void BootstrapTokenSecrets::Replace(Kind, const std::vector<json>& secrets) {
  std::unique_lock lock(mu_);
  secrets_.clear();
  for (const json& s : secrets) UpsertLocked(s);
}

void BootstrapTokenSecrets::Upsert(Kind, const json& secret) {
  std::unique_lock lock(mu_);
  UpsertLocked(secret);
}

void BootstrapTokenSecrets::Remove(Kind, const json& secret) {
  if (!Kept(secret)) return;
  std::unique_lock lock(mu_);
  secrets_.erase(registry::MetaString(secret, "name"));
}

void BootstrapTokenSecrets::MarkSynced(Kind) {
  std::unique_lock lock(mu_);
  synced_ = true;
}

bool BootstrapTokenSecrets::Synced() const {
  std::shared_lock lock(mu_);
  return synced_;
}

std::shared_ptr<const json> BootstrapTokenSecrets::Find(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = secrets_.find(name);
  return it == secrets_.end() ? nullptr : it->second;
}

AuthenticatorPtr NewBootstrapTokenAuthenticator(
    std::shared_ptr<const BootstrapTokenSecrets> secrets, std::function<util::MicroTime()> now) {
  return std::make_shared<BootstrapTokenAuthenticator>(std::move(secrets), std::move(now));
}

}  // namespace authn
