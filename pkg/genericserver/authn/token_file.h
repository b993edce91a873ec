#pragma once
// Static bearer tokens from a --token-auth-file: one CSV record per token,
//   token,user,uid[,"group1,group2"]
// the format upstream kube-apiserver reads.

#include <expected>
#include <map>
#include <string>
#include <string_view>

#include "pkg/genericserver/authn/authenticator.h"

namespace authn {

class TokenFileAuthenticator final : public Authenticator {
 public:
  // Reads and parses the file; an error names the file and the bad record.
  static std::expected<std::shared_ptr<TokenFileAuthenticator>, std::string> Load(
      const std::string& path);
  // Parses file contents; path is used in messages only.
  static std::expected<std::shared_ptr<TokenFileAuthenticator>, std::string> Parse(
      std::string_view contents, const std::string& path);

  // "Authorization: Bearer <token>": a known token is its user; an unknown one is not this
  // authenticator's (the union refuses it when no other takes it).
  AuthenticateResult Authenticate(const genericserver::Request& request) const override;
  size_t size() const { return tokens_.size(); }

 private:
  std::map<std::string, UserInfo, std::less<>> tokens_;
};

// The token of an "Authorization: Bearer <token>" header, or empty.
std::string_view BearerToken(const genericserver::Request& request);

}  // namespace authn
