#include "pkg/genericserver/authn/request_header.h"

#include <algorithm>
#include <optional>

#include "pkg/util/strings.h"

namespace authn {
namespace {

bool HasPrefixIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && util::EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go's url.PathUnescape: every '%' must start a two-digit hex escape; '+' stays.
std::optional<std::string> PathUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = Hex(s[i + 1]), lo = Hex(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// The value of the first of names that has one.
std::string FirstValue(const genericserver::Headers& headers,
                       const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    std::optional<std::string_view> value = headers.Get(name);
    if (value && !value->empty()) return std::string(*value);
  }
  return "";
}

}  // namespace

RequestHeaderConfig StandardRequestHeaders() {
  RequestHeaderConfig c;
  c.username_headers = {"X-Remote-User"};
  c.uid_headers = {"X-Remote-Uid"};
  c.group_headers = {"X-Remote-Group"};
  c.extra_header_prefixes = {"X-Remote-Extra-"};
  return c;
}

std::string ExtraKey(std::string_view name_after_prefix) {
  std::string lower = util::ToLower(name_after_prefix);
  std::optional<std::string> decoded = PathUnescape(lower);
  return decoded ? *decoded : lower;
}

AuthenticateResult RequestHeaderAuthenticator::Authenticate(
    const genericserver::Request& request) const {
  const genericserver::TlsPeer* peer = request.peer.get();
  if (!peer || !peer->presented) return std::nullopt;
  if (!peer->request_header_verified) {
    return std::unexpected(
        "verifying certificate " + peer->common_name +
        " against the request-header CAs failed: " + peer->request_header_verify_error);
  }
  if (!config_.allowed_names.empty() &&
      std::ranges::find(config_.allowed_names, peer->common_name) == config_.allowed_names.end()) {
    return std::unexpected("x509: subject with cn=" + peer->common_name +
                           " is not in the allowed list");
  }
  const genericserver::Headers& headers = request.headers;
  UserInfo user;
  user.name = FirstValue(headers, config_.username_headers);
  if (user.name.empty()) return std::nullopt;
  user.uid = FirstValue(headers, config_.uid_headers);
  for (const std::string& name : config_.group_headers) {
    for (std::string_view value : headers.Values(name)) {
      if (!value.empty()) user.groups.emplace_back(value);
    }
  }
  // Prefixes first, then headers in arrival order: the order of each key's values.
  for (const std::string& prefix : config_.extra_header_prefixes) {
    for (const auto& [name, value] : headers.Items()) {
      if (!HasPrefixIgnoreCase(name, prefix)) continue;
      user.extra[ExtraKey(std::string_view(name).substr(prefix.size()))].push_back(value);
    }
  }
  return user;
}

void ClearAuthenticationHeaders(genericserver::Headers& headers,
                                const RequestHeaderConfig& config) {
  for (const std::string& name : config.username_headers) headers.Remove(name);
  for (const std::string& name : config.uid_headers) headers.Remove(name);
  for (const std::string& name : config.group_headers) headers.Remove(name);
  if (config.extra_header_prefixes.empty()) return;
  std::vector<std::string> prefixed;
  for (const auto& [name, value] : headers.Items()) {
    for (const std::string& prefix : config.extra_header_prefixes) {
      if (HasPrefixIgnoreCase(name, prefix)) {
        prefixed.push_back(name);
        break;
      }
    }
  }
  for (const std::string& name : prefixed) headers.Remove(name);
}

}  // namespace authn
