#pragma once
// Request-header authentication, upstream's headerrequest authenticator: a front proxy (the
// aggregator of this or another server) that presents a client certificate of a
// request-header CA names the user in headers. The TLS layer verified the certificate
// against those CAs, apart from the client CAs (TlsPeer::request_header_verified).

#include <string>
#include <vector>

#include "pkg/genericserver/authn/authenticator.h"

namespace authn {

struct RequestHeaderConfig {
  std::vector<std::string> username_headers;  // the first one with a value is the user
  // The first one with a value is the user's UID. Upstream 1.32 reads these only with
  // --requestheader-uid-headers behind an alpha gate; here only the standard set has one,
  // to be removed from requests.
  std::vector<std::string> uid_headers;
  std::vector<std::string> group_headers;  // every value of each is a group
  std::vector<std::string> extra_header_prefixes;
  // The certificate's CN must be one of these; empty: any certificate of the CAs.
  std::vector<std::string> allowed_names;
};

// The headers that kube-apiserver's aggregator sets (X-Remote-User, X-Remote-Uid,
// X-Remote-Group, X-Remote-Extra-*): removed from every authenticated request whatever the
// configuration, as upstream does.
RequestHeaderConfig StandardRequestHeaders();

class RequestHeaderAuthenticator final : public Authenticator {
 public:
  explicit RequestHeaderAuthenticator(RequestHeaderConfig config) : config_(std::move(config)) {}
  // No client certificate, or no user name in the headers: no opinion. A certificate that
  // no request-header CA verifies, or whose CN is not allowed: an error (401 unless another
  // authenticator knows the request, e.g. the client CAs trust the same certificate).
  // Otherwise the user, groups and extra of the headers.
  AuthenticateResult Authenticate(const genericserver::Request& request) const override;

 private:
  RequestHeaderConfig config_;
};

// Removes the headers of config (names, and names starting with a prefix; any case).
void ClearAuthenticationHeaders(genericserver::Headers& headers, const RequestHeaderConfig& config);

// The extra key of a header name after its prefix: lower-cased, then percent-decoded
// (left as it is when an escape is malformed), as upstream records extras.
std::string ExtraKey(std::string_view name_after_prefix);

}  // namespace authn
