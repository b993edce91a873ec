#pragma once
// The listener's TLS pieces (internal to secure_serving.cc, which alone includes this and
// Asio's SSL): the server context, the request-header CA store checked apart from the
// client CAs, and what a handshake learned about the client certificate.

#include <openssl/ssl.h>

#include <expected>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ssl/context.hpp>

#include "pkg/genericserver/server/request.h"
#include "pkg/genericserver/server/secure_serving.h"

namespace genericserver {

struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
using CAStore = std::unique_ptr<X509_STORE, StoreFree>;

// The CAs of the PEM bundles in files; `what` names them in errors ("client CA").
std::expected<CAStore, std::string> LoadCAStore(const std::vector<std::string>& files,
                                                const std::string& what);

// The serving certificate and key, TLS 1.2+, ALPN http/1.1, and a client certificate
// requested (never required) and verified against the client CAs.
std::expected<std::unique_ptr<boost::asio::ssl::context>, std::string> MakeTlsContext(
    const SecureServingInfo& info);

// The client certificate as the handshake verified it against the client CAs, and as it
// verifies against the request-header CAs (none when request_header is null).
std::shared_ptr<const TlsPeer> ExtractPeer(SSL* ssl, X509_STORE* request_header);

}  // namespace genericserver
