#pragma once
// How Go's net/http and crypto/tls word the failures of an outgoing HTTPS call, which
// upstream's messages quote: connection errors, TLS alerts, and certificate problems in
// Go's order of checks (validity, name, chain, key usage). Internal to the transport:
// includes Beast and OpenSSL.

#include <openssl/ssl.h>

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/error.hpp>

namespace transport {

bool IsIPLiteral(const std::string& host);
// "ip:port", "[v6]:port".
std::string EndpointString(const boost::asio::ip::tcp::endpoint& ep);
// A syscall error as Go prints it: strerror, lower-cased first letter.
std::string ErrnoText(const boost::beast::error_code& ec);
// An error reading or writing an established connection.
std::string IoError(std::string_view op, const boost::beast::error_code& ec,
                    const std::string& local, const std::string& remote);
std::string HandshakeError(const boost::beast::error_code& ec, const std::string& local,
                           const std::string& remote);

// What went wrong verifying the server's certificate: OpenSSL reports each problem to the
// callback, which lets the handshake go on so that Go's order of checks can be applied after.
struct VerifyRecord {
  bool expired = false;        // the leaf: now after notAfter
  bool not_yet_valid = false;  // the leaf: now before notBefore
  bool hostname = false;
  bool unknown_authority = false;
  bool key_usage = false;
};

struct RecordVerifyErrors {
  VerifyRecord* record;
  bool operator()(bool preverified, boost::asio::ssl::verify_context& ctx) const;
};

// The verification error Go's crypto/x509 reports first, or nullopt when the certificate
// passed.
std::optional<std::string> VerifyErrorText(const VerifyRecord& r, SSL* ssl,
                                           const std::string& host);

}  // namespace transport
