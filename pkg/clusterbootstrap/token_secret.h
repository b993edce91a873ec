#pragma once
// Bootstrap token Secrets (k8s.io/cluster-bootstrap's token api and secret helpers): the
// names and keys, a value of their data, the token id their name carries, whether and
// when they expire, and whether one may sign the cluster-info ConfigMap. Pure; shared by
// the bootstrap controllers (pkg/controller/bootstrap) and the bootstrap token
// authenticator (pkg/plugin/authenticator/bootstrap_token.h).

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/util/timestamp.h"

namespace clusterbootstrap {

// The times the bootstrap controllers compare (RFC 3339 as util::ParseRFC3339 reads it).
using Time = util::MicroTime;

inline constexpr char kSecretTypeBootstrapToken[] = "bootstrap.kubernetes.io/token";
inline constexpr char kTokenSecretNamespace[] = "kube-system";
inline constexpr char kTokenSecretPrefix[] = "bootstrap-token-";
inline constexpr char kTokenIDKey[] = "token-id";
inline constexpr char kTokenSecretKey[] = "token-secret";
inline constexpr char kTokenExpirationKey[] = "expiration";
inline constexpr char kTokenUsageSigningKey[] = "usage-bootstrap-signing";
inline constexpr char kTokenUsageAuthenticationKey[] = "usage-bootstrap-authentication";
inline constexpr char kTokenExtraGroupsKey[] = "auth-extra-groups";
// The group of every bootstrap token's user, and the prefix of its name.
inline constexpr char kBootstrapDefaultGroup[] = "system:bootstrappers";
inline constexpr char kBootstrapUserPrefix[] = "system:bootstrap:";

// A Secret of type bootstrap.kubernetes.io/token in kube-system: what the token cleaner
// and the bootstrap signer are told about (upstream's filter of their handlers).
bool IsWatchedTokenSecret(const nlohmann::json& secret);

// The decoded value of data[key]; empty when there is none (or it is not base64).
std::string SecretData(const nlohmann::json& secret, std::string_view key);

// The token id of a name "bootstrap-token-<id>", the id six of [a-z0-9].
std::optional<std::string> TokenIDFromName(std::string_view name);

// The groups a token's user is in: system:bootstrappers and those of `auth-extra-groups`
// (a comma-separated list, each of the form system:bootstrappers:<name>, as upstream's
// BootstrapGroupPattern), sorted without repeats; an error names the first that is not.
std::expected<std::vector<std::string>, std::string> TokenGroups(const nlohmann::json& secret);

// As cluster-bootstrap's GetExpiration: without `expiration` the secret never expires
// (not expired, nothing remaining); an `expiration` that is not RFC 3339 counts as
// expired; otherwise it is expired once the time has come, else `remaining` is left.
struct Expiration {
  bool expired = false;
  std::chrono::microseconds remaining{0};
};
Expiration GetExpiration(const nlohmann::json& secret, Time now);

// The token a Secret holds if it may sign (upstream's validateSecretForSigning): a name
// "bootstrap-token-<id>" whose id is data `token-id`, a non-empty `token-secret`, not
// expired, and `usage-bootstrap-signing` "true".
struct SigningToken {
  std::string id;
  std::string secret;
};
std::optional<SigningToken> TokenForSigning(const nlohmann::json& secret, Time now);

}  // namespace clusterbootstrap
