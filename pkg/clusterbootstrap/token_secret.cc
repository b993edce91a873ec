#include "pkg/clusterbootstrap/token_secret.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/util/base64.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace clusterbootstrap {

using nlohmann::json;

namespace {

// find() on a value that is not an object finds nothing.
std::string Str(const json& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Meta(const json& object, std::string_view field) {
  auto it = object.find("metadata");
  return it != object.end() ? Str(*it, field) : "";
}

bool LowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// \Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z
bool ValidGroupName(std::string_view group) {
  const std::string_view prefix = "system:bootstrappers:";
  if (!group.starts_with(prefix)) return false;
  const std::string_view rest = group.substr(prefix.size());
  if (rest.empty() || rest.size() > 256 || !LowerAlnum(rest.back())) return false;
  return std::all_of(rest.begin(), rest.end(),
                     [](char c) { return LowerAlnum(c) || c == ':' || c == '-'; });
}

}  // namespace

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
  if (!std::all_of(id.begin(), id.end(), LowerAlnum)) return std::nullopt;
  return std::string(id);
}

std::expected<std::vector<std::string>, std::string> TokenGroups(const json& secret) {
  std::vector<std::string> groups{kBootstrapDefaultGroup};
  const std::string extra = SecretData(secret, kTokenExtraGroupsKey);
  if (!extra.empty()) {
    for (std::string& group : util::Split(extra, ',')) {
      if (!ValidGroupName(group)) {
        return std::unexpected("bootstrap group \"" + group +
                               "\" is invalid (must match "
                               "system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9])");
      }
      groups.push_back(std::move(group));
    }
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
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

}  // namespace clusterbootstrap
