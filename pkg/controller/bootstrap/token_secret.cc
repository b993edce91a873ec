#include "pkg/controller/bootstrap/token_secret.h"

#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"
#include "pkg/util/base64.h"
#include "pkg/util/log.h"

namespace controller::bootstrap {

using nlohmann::json;

bool IsWatchedTokenSecret(const json& secret) {
  return Str(secret, "type") == kSecretTypeBootstrapToken &&
         Meta(secret, "namespace") == kTokenSecretNamespace;
}

std::string SecretData(const json& secret, std::string_view key) {
  auto data = secret.find("data");
  if (data == secret.end() || !data->is_object()) return "";
  auto it = data->find(key);
  if (it == data->end() || !it->is_string()) return "";
  std::optional<std::string> decoded = util::Base64Decode(it->get<std::string>());
  return decoded ? *decoded : "";
}

std::optional<std::string> TokenIDFromName(std::string_view name) {
  const std::string_view prefix = kTokenSecretPrefix;
  if (name.size() != prefix.size() + 6 || name.substr(0, prefix.size()) != prefix) {
    return std::nullopt;
  }
  std::string_view id = name.substr(prefix.size());
  for (char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return std::nullopt;
  }
  return std::string(id);
}

Expiration GetExpiration(const json& secret, Time now) {
  const std::string expiration = SecretData(secret, kTokenExpirationKey);
  if (expiration.empty()) return {};
  const std::string ns = Meta(secret, "namespace"), name = Meta(secret, "name");
  std::optional<Time> at = util::ParseRFC3339(expiration);
  if (!at) {
    KLOG_V(3) << "Unparseable expiration time (" << expiration << ") in " << ns << "/" << name
              << " Secret: parsing time \"" << expiration
              << "\" as \"2006-01-02T15:04:05Z07:00\". Treating as expired.";
    return {true, std::chrono::microseconds(0)};
  }
  const std::chrono::microseconds remaining = *at - now;
  if (remaining.count() <= 0) {
    // Upstream's message, with its arguments in upstream's order.
    KLOG_V(3) << "Expired bootstrap token in " << expiration << "/" << ns << " Secret: " << name;
    return {true, std::chrono::microseconds(0)};
  }
  return {false, remaining};
}

std::optional<SigningToken> TokenForSigning(const json& secret, Time now) {
  const std::string name = Meta(secret, "name");
  const std::string key = Meta(secret, "namespace") + "/" + name;
  std::optional<std::string> name_id = TokenIDFromName(name);
  if (!name_id) {
    KLOG_V(3) << "\"Invalid secret name, must be of the form " << kTokenSecretPrefix
              << "<secret-id>\" secretName=\"" << name << "\"";
    return std::nullopt;
  }
  SigningToken token{SecretData(secret, kTokenIDKey), SecretData(secret, kTokenSecretKey)};
  if (token.id.empty()) {
    KLOG_V(3) << "\"No key in Secret\" key=\"" << kTokenIDKey << "\" secret=\"" << key << "\"";
    return std::nullopt;
  }
  if (token.id != *name_id) {
    KLOG_V(3) << "\"Token ID doesn't match secret name\" tokenID=\"" << token.id
              << "\" secretName=\"" << name << "\"";
    return std::nullopt;
  }
  if (token.secret.empty()) {
    KLOG_V(3) << "\"No key in secret\" key=\"" << kTokenSecretKey << "\" secret=\"" << key << "\"";
    return std::nullopt;
  }
  if (GetExpiration(secret, now).expired) return std::nullopt;
  if (SecretData(secret, kTokenUsageSigningKey) != "true") return std::nullopt;
  return token;
}

}  // namespace controller::bootstrap
