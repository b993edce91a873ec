#include "pkg/genericserver/transport/go_errors.h"

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include <boost/beast/http/error.hpp>

#include "pkg/genericserver/transport/https_client.h"
#include "pkg/util/openssl.h"

namespace transport {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// time.RFC3339 in UTC.
std::string Rfc3339(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Rfc3339(const ASN1_TIME* at) {
  std::tm tm{};
  if (at == nullptr || ASN1_TIME_to_tm(at, &tm) != 1) return "";
  return Rfc3339(timegm(&tm));
}

struct SubjectNames {
  bool has_san = false;
  std::vector<std::string> dns;
  std::vector<std::string> ips;
  std::string common_name;
};

SubjectNames NamesOf(X509* cert) {
  SubjectNames out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names != nullptr) {
    out.has_san = true;
    for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
      if (name->type == GEN_DNS) {
        const ASN1_STRING* s = name->d.dNSName;
        out.dns.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                             static_cast<size_t>(ASN1_STRING_length(s)));
      } else if (name->type == GEN_IPADD) {
        const ASN1_OCTET_STRING* s = name->d.iPAddress;
        const unsigned char* p = ASN1_STRING_get0_data(s);
        if (ASN1_STRING_length(s) == 4) {
          net::ip::address_v4::bytes_type b;
          std::copy(p, p + 4, b.begin());
          out.ips.push_back(net::ip::address_v4(b).to_string());
        } else if (ASN1_STRING_length(s) == 16) {
          net::ip::address_v6::bytes_type b;
          std::copy(p, p + 16, b.begin());
          out.ips.push_back(net::ip::address_v6(b).to_string());
        }
      }
    }
    GENERAL_NAMES_free(names);
  }
  char cn[256];
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn) > 0) {
    out.common_name = cn;
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// x509.HostnameError.Error().
std::string HostnameErrorText(X509* cert, const std::string& host) {
  const SubjectNames names = NamesOf(cert);
  if (!names.has_san && Lower(names.common_name) == Lower(host)) {
    return "x509: certificate relies on legacy Common Name field, use SANs instead";
  }
  std::string valid;
  if (IsIPLiteral(host)) {
    if (names.ips.empty()) {
      return "x509: cannot validate certificate for " + host +
             " because it doesn't contain any "
             "IP SANs";
    }
    valid = Join(names.ips);
  } else {
    valid = Join(names.dns);
  }
  if (valid.empty())
    return "x509: certificate is not valid for any names, but wanted to match " + host;
  return "x509: certificate is valid for " + valid + ", not " + host;
}

}  // namespace

bool IsIPLiteral(const std::string& host) {
  beast::error_code ec;
  net::ip::make_address(host, ec);
  return !ec;
}

std::string EndpointString(const tcp::endpoint& ep) {
  const std::string addr = ep.address().to_string();
  return (ep.address().is_v6() ? "[" + addr + "]" : addr) + ":" + std::to_string(ep.port());
}

// A syscall error as Go prints it: strerror, lower-cased first letter.
std::string ErrnoText(const beast::error_code& ec) {
  std::string m = ec.message();
  if (!m.empty()) m[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(m[0])));
  return m;
}

// An error reading or writing an established connection, as Go's net/http reports it.
std::string IoError(std::string_view op, const beast::error_code& ec, const std::string& local,
                    const std::string& remote) {
  if (ec == beast::error::timeout) return std::string(kDeadlineExceeded);
  if (ec == http::error::end_of_stream || ec == net::error::eof ||
      ec == net::ssl::error::stream_truncated) {
    return "EOF";
  }
  if (ec == http::error::partial_message) return "unexpected EOF";
  if (ec == net::error::connection_reset || ec == net::error::broken_pipe) {
    return std::string(op) + " tcp " + local + "->" + remote + ": " + std::string(op) + ": " +
           ErrnoText(ec);
  }
  if (ec == http::error::body_limit) return "net/http: response body too large";
  if (ec.category() ==
      http::make_error_code(http::error::bad_target).category()) {  // beast's HTTP parse errors
    return "net/http: HTTP/1.x transport connection broken: malformed HTTP response: " +
           ec.message();
  }
  return ec.message();
}

std::string HandshakeError(const beast::error_code& ec, const std::string& local,
                           const std::string& remote) {
  if (ec.category() == net::error::get_ssl_category()) {
    const unsigned long code = static_cast<unsigned long>(ec.value());
    if (ERR_GET_REASON(code) == SSL_R_WRONG_VERSION_NUMBER) {
      return "tls: first record does not look like a TLS handshake";
    }
    const char* reason = ERR_reason_error_string(code);
    std::string r = reason != nullptr ? reason : ec.message();
    for (std::string_view prefix : {"sslv3 alert ", "tlsv1 alert ", "tlsv13 alert "}) {
      if (r.starts_with(prefix)) return "remote error: tls: " + r.substr(prefix.size());
    }
    return "tls: " + r;
  }
  return IoError("read", ec, local, remote);
}

bool RecordVerifyErrors::operator()(bool preverified, net::ssl::verify_context& ctx) const {
  if (preverified) return true;
  X509_STORE_CTX* store = ctx.native_handle();
  const int err = X509_STORE_CTX_get_error(store);
  const int depth = X509_STORE_CTX_get_error_depth(store);
  switch (err) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
      (depth == 0 ? record->expired : record->unknown_authority) = true;
      break;
    case X509_V_ERR_CERT_NOT_YET_VALID:
      (depth == 0 ? record->not_yet_valid : record->unknown_authority) = true;
      break;
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      record->hostname = true;
      break;
    case X509_V_ERR_INVALID_PURPOSE:
      record->key_usage = true;
      break;
    default:
      record->unknown_authority = true;
  }
  return true;  // decided after the handshake
}

// The verification error Go's crypto/x509 reports first (validity, name, chain, key usage), or
// nullopt when the certificate passed.
std::optional<std::string> VerifyErrorText(const VerifyRecord& r, SSL* ssl,
                                           const std::string& host) {
  if (!r.expired && !r.not_yet_valid && !r.hostname && !r.unknown_authority && !r.key_usage) {
    return std::nullopt;
  }
  util::openssl::Cert cert(SSL_get1_peer_certificate(ssl));
  if (cert == nullptr) return "x509: certificate signed by unknown authority";
  if (r.expired || r.not_yet_valid) {
    const std::string now = Rfc3339(std::time(nullptr));
    if (r.not_yet_valid) {
      return "x509: certificate has expired or is not yet valid: current time " + now +
             " is before " + Rfc3339(X509_get0_notBefore(cert.get()));
    }
    return "x509: certificate has expired or is not yet valid: current time " + now + " is after " +
           Rfc3339(X509_get0_notAfter(cert.get()));
  }
  if (r.hostname) return HostnameErrorText(cert.get(), host);
  if (r.unknown_authority) return "x509: certificate signed by unknown authority";
  return "x509: certificate specifies an incompatible key usage";
}

}  // namespace transport
