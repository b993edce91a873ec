// The HTTPS side of the conversion webhook client: the client config of the CRD (upstream's
// webhookClientConfigForCRD and ClientManager.HookClient), one POST per conversion on a fresh
// connection, and transport errors worded as Go's net/http and crypto/tls word them.
#include "pkg/apiextensions/conversion/webhook.h"

#include <utility>  // before Asio, see awaitable.h

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cctype>
#include <ctime>
#include <optional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/conversion/review.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/util/base64.h"
#include "pkg/util/openssl.h"
#include "pkg/util/uuid.h"

namespace apiextensions::conversion {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

constexpr std::string_view kDeadlineExceeded = "context deadline exceeded";
constexpr std::string_view kUserAgent = "kube-apiserver-admission";
// Upstream reads answers whole; this only stops a runaway webhook from exhausting memory.
constexpr uint64_t kMaxResponseBytes = uint64_t{1} << 30;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const json* Field(const json* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

std::string StringField(const json* object, std::string_view key) {
  const json* v = Field(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// Go's path.Join("/", p): a rooted, cleaned path ("/" when empty).
std::string CleanRootedPath(std::string_view p) {
  std::vector<std::string_view> parts;
  while (!p.empty()) {
    const size_t slash = p.find('/');
    const std::string_view part = p.substr(0, slash);
    p = slash == std::string_view::npos ? std::string_view() : p.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view part : parts) out += "/" + std::string(part);
  return out.empty() ? "/" : out;
}

// url.QueryEscape.
std::string QueryEscape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool IsIPLiteral(const std::string& host) {
  beast::error_code ec;
  net::ip::make_address(host, ec);
  return !ec;
}

// net.SplitHostPort for "host:port" and "[v6]:port".
std::optional<std::pair<std::string, std::string>> SplitHostPort(std::string_view hostport) {
  if (hostport.starts_with('[')) {
    const size_t close = hostport.find(']');
    if (close == std::string_view::npos || close + 1 >= hostport.size() ||
        hostport[close + 1] != ':') {
      return std::nullopt;
    }
    return std::pair{std::string(hostport.substr(1, close - 1)),
                     std::string(hostport.substr(close + 2))};
  }
  const size_t colon = hostport.rfind(':');
  if (colon == std::string_view::npos || hostport.find(':') != colon) return std::nullopt;
  return std::pair{std::string(hostport.substr(0, colon)), std::string(hostport.substr(colon + 1))};
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
  bool operator()(bool preverified, net::ssl::verify_context& ctx) const {
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
};

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

// Cancels a name lookup when the call's deadline passes.
struct CancelResolver {
  std::shared_ptr<tcp::resolver> resolver;
  void operator()(const beast::error_code& ec) const {
    if (!ec) resolver->cancel();
  }
};

}  // namespace

struct WebhookConverter::Impl {
  std::string webhook_name;  // conversion_webhook_for_<crd>
  bool service = false;
  std::string service_namespace;
  std::string service_name;
  int service_port = 443;
  std::string dial_host;    // URL webhooks: the host, without IPv6 brackets
  std::string dial_port;    // URL webhooks: the port, 443 by default
  std::string server_name;  // the name the certificate must carry (and SNI unless an IP)
  std::string host_header;  // as Go sends it: the URL's host as written, or <svc>:<port>
  std::string target;       // path?timeout=...
  std::string url;          // https://<host_header><target>
  util::Duration timeout{};
  ServiceResolver resolve;
  std::shared_ptr<net::ssl::context> tls;
};

namespace {

std::expected<std::shared_ptr<net::ssl::context>, std::string> NewTlsContext(
    const std::string& ca_pem) {
  try {
    auto ctx = std::make_shared<net::ssl::context>(net::ssl::context::tls_client);
    ctx->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                     net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                     net::ssl::context::no_tlsv1_1);
    if (ca_pem.empty()) {
      ctx->set_default_verify_paths();
    } else {
      // Only the bundle's certificates are trusted, as Go's RootCAs.
      util::openssl::Bio bio = util::openssl::MemoryBio(ca_pem);
      X509_STORE* store = SSL_CTX_get_cert_store(ctx->native_handle());
      int added = 0;
      while (bio != nullptr) {
        X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
        if (cert == nullptr) break;
        if (X509_STORE_add_cert(store, cert) == 1) ++added;
        X509_free(cert);
      }
      ERR_clear_error();
      if (added == 0) {
        return std::unexpected(
            "unable to load root certificates: unable to parse bytes as PEM block");
      }
    }
    // HTTP/1.1 only, as upstream's webhook clients (http://issue.k8s.io/75791).
    static const unsigned char kAlpn[] = "\x08http/1.1";
    SSL_CTX_set_alpn_protos(ctx->native_handle(), kAlpn, sizeof kAlpn - 1);
    ctx->set_verify_mode(net::ssl::verify_peer);
    return ctx;
  } catch (const boost::system::system_error& e) {
    return std::unexpected(std::string("TLS configuration: ") + e.what());
  }
}

// Name lookup bounded by the deadline; IP literals need none.
Awaitable<std::expected<std::vector<tcp::endpoint>, std::string>> Lookup(
    std::string host, std::string port, Clock::time_point deadline) {
  std::vector<tcp::endpoint> out;
  unsigned long port_number = 0;
  try {
    port_number = std::stoul(port);
  } catch (...) {
    port_number = 65536;
  }
  if (port_number > 65535)
    co_return std::unexpected("dial tcp: lookup tcp/" + port + ": unknown port");
  beast::error_code ec;
  const net::ip::address addr = net::ip::make_address(host, ec);
  if (!ec) {
    out.emplace_back(addr, static_cast<unsigned short>(port_number));
    co_return out;
  }
  auto ex = co_await net::this_coro::executor;
  auto resolver = std::make_shared<tcp::resolver>(ex);
  net::steady_timer timer(ex);
  if (deadline != Clock::time_point::max()) {
    timer.expires_at(deadline);
    timer.async_wait(CancelResolver{resolver});
  }
  ec = {};
  auto results =
      co_await resolver->async_resolve(host, port, net::redirect_error(net::use_awaitable, ec));
  timer.cancel();
  if (ec == net::error::operation_aborted && Clock::now() >= deadline) {
    co_return std::unexpected(std::string(kDeadlineExceeded));
  }
  if (ec == net::error::host_not_found || ec == net::error::host_not_found_try_again ||
      (!ec && results.empty())) {
    co_return std::unexpected("dial tcp: lookup " + host + ": no such host");
  }
  if (ec) co_return std::unexpected("dial tcp: lookup " + host + ": " + ErrnoText(ec));
  for (const auto& entry : results) out.push_back(entry.endpoint());
  co_return out;
}

// One POST on a fresh connection: the answer, or the text Go would put after `Post "<url>": `.
Awaitable<std::expected<HttpAnswer, std::string>> Post(
    std::shared_ptr<const WebhookConverter::Impl> impl, std::string body) {
  const Clock::time_point deadline =
      impl->timeout > util::Duration::zero()
          ? Clock::now() + std::chrono::duration_cast<Clock::duration>(impl->timeout)
          : Clock::time_point::max();
  std::string host = impl->dial_host;
  std::string port = impl->dial_port;
  if (impl->service) {
    auto where =
        co_await impl->resolve(impl->service_namespace, impl->service_name, impl->service_port);
    if (!where) co_return std::unexpected(where.error());
    auto split = SplitHostPort(*where);
    if (!split)
      co_return std::unexpected("dial tcp: address " + *where + ": missing port in address");
    host = split->first;
    port = split->second;
    if (Clock::now() >= deadline) co_return std::unexpected(std::string(kDeadlineExceeded));
  }
  auto endpoints = co_await Lookup(host, port, deadline);
  if (!endpoints) co_return std::unexpected(endpoints.error());

  auto ex = co_await net::this_coro::executor;
  beast::ssl_stream<beast::tcp_stream> stream(ex, *impl->tls);
  beast::tcp_stream& tcp_stream = beast::get_lowest_layer(stream);
  beast::error_code ec;
  std::string dial_error;
  bool connected = false;
  for (const tcp::endpoint& ep : *endpoints) {
    if (deadline == Clock::time_point::max()) {
      tcp_stream.expires_never();
    } else {
      tcp_stream.expires_at(deadline);
    }
    ec = {};
    co_await tcp_stream.async_connect(ep, net::redirect_error(net::use_awaitable, ec));
    if (!ec) {
      connected = true;
      break;
    }
    if (ec == beast::error::timeout || Clock::now() >= deadline) {
      co_return std::unexpected(std::string(kDeadlineExceeded));
    }
    if (dial_error.empty())
      dial_error = "dial tcp " + EndpointString(ep) + ": connect: " + ErrnoText(ec);
    beast::error_code ignored;
    tcp_stream.socket().close(ignored);
  }
  if (!connected) co_return std::unexpected(dial_error);
  std::string local, remote;
  {
    beast::error_code ignored;
    local = EndpointString(tcp_stream.socket().local_endpoint(ignored));
    remote = EndpointString(tcp_stream.socket().remote_endpoint(ignored));
    tcp_stream.socket().set_option(tcp::no_delay(true), ignored);
  }

  SSL* ssl = stream.native_handle();
  const bool ip = IsIPLiteral(impl->server_name);
  if (!ip) SSL_set_tlsext_host_name(ssl, impl->server_name.c_str());
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(
      param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT);
  if (ip) {
    X509_VERIFY_PARAM_set1_ip_asc(param, impl->server_name.c_str());
  } else {
    X509_VERIFY_PARAM_set1_host(param, impl->server_name.c_str(), impl->server_name.size());
  }
  VerifyRecord verify;
  stream.set_verify_mode(net::ssl::verify_peer);
  stream.set_verify_callback(RecordVerifyErrors{&verify});
  ec = {};
  co_await stream.async_handshake(net::ssl::stream_base::client,
                                  net::redirect_error(net::use_awaitable, ec));
  if (ec) {
    ERR_clear_error();
    if (Clock::now() >= deadline) co_return std::unexpected(std::string(kDeadlineExceeded));
    co_return std::unexpected(HandshakeError(ec, local, remote));
  }
  if (auto bad = VerifyErrorText(verify, ssl, impl->server_name)) {
    beast::error_code ignored;
    tcp_stream.socket().close(ignored);
    co_return std::unexpected("tls: failed to verify certificate: " + *bad);
  }

  http::request<http::string_body> req(http::verb::post, impl->target, 11);
  req.set(http::field::host, impl->host_header);
  req.set(http::field::user_agent, kUserAgent);
  req.set(http::field::content_type, "application/json");
  req.set(http::field::accept, "application/json, */*");
  req.body() = std::move(body);
  req.prepare_payload();
  ec = {};
  co_await http::async_write(stream, req, net::redirect_error(net::use_awaitable, ec));
  if (ec && Clock::now() >= deadline) co_return std::unexpected(std::string(kDeadlineExceeded));
  if (ec) co_return std::unexpected(IoError("write", ec, local, remote));

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxResponseBytes);
  ec = {};
  co_await http::async_read(stream, buffer, parser, net::redirect_error(net::use_awaitable, ec));
  if (ec && Clock::now() >= deadline) co_return std::unexpected(std::string(kDeadlineExceeded));
  if (ec) co_return std::unexpected(IoError("read", ec, local, remote));

  HttpAnswer answer;
  answer.status = parser.get().result_int();
  answer.content_type = std::string(parser.get()[http::field::content_type]);
  answer.body = std::move(parser.get().body());
  beast::error_code ignored;
  tcp_stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  tcp_stream.close();
  co_return answer;
}

// isEmptyUnstructuredObject: nothing but apiVersion and kind.
bool IsEmptyObject(const json& object) {
  return object.is_object() && object.size() == 2 && object.contains("apiVersion") &&
         object.contains("kind");
}

}  // namespace

WebhookConverter::WebhookConverter(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const std::string& WebhookConverter::url() const { return impl_->url; }

std::expected<std::shared_ptr<WebhookConverter>, std::string> WebhookConverter::New(
    const json& crd, ServiceResolver resolve_service, util::Duration timeout) {
  const std::string crd_name = StringField(Field(&crd, "metadata"), "name");
  const json* conversion = Field(Field(&crd, "spec"), "conversion");
  const std::string strategy = StringField(conversion, "strategy");
  if (strategy != "Webhook") {
    return std::unexpected("CustomResourceDefinition " + crd_name +
                           " does not use a conversion webhook (strategy " +
                           apimachinery::validation::GoQuote(strategy) + ")");
  }
  const json* webhook = Field(conversion, "webhook");
  if (webhook == nullptr || !webhook->is_object()) {
    return std::unexpected("CustomResourceDefinition " + crd_name +
                           ": spec.conversion.webhook is required for the Webhook strategy");
  }
  // createConversionReviewObjects: the first version of the list this side speaks. Upstream
  // speaks v1beta1 too; this server only v1.
  bool v1 = false, v1beta1 = false;
  if (const json* versions = Field(webhook, "conversionReviewVersions");
      versions != nullptr && versions->is_array()) {
    for (const json& ver : *versions) {
      if (ver == "v1") v1 = true;
      if (ver == "v1beta1") v1beta1 = true;
    }
  }
  if (!v1) {
    if (v1beta1) {
      return std::unexpected("conversionReviewVersions of CustomResourceDefinition " + crd_name +
                             ": only v1 ConversionReviews are supported by this server");
    }
    return std::unexpected("no supported conversion review versions");
  }

  auto impl = std::make_shared<Impl>();
  impl->webhook_name = "conversion_webhook_for_" + crd_name;
  impl->timeout = timeout;
  const json* client_config = Field(webhook, "clientConfig");
  const auto calling_error = [&](const std::string& why) {
    return std::unexpected("failed calling webhook " +
                           apimachinery::validation::GoQuote(impl->webhook_name) + ": " + why);
  };
  std::string path;
  if (const json* service = Field(client_config, "service")) {
    impl->service = true;
    impl->service_namespace = StringField(service, "namespace");
    impl->service_name = StringField(service, "name");
    if (const json* port = Field(service, "port"); port != nullptr && port->is_number_integer()) {
      impl->service_port = port->get<int>();
    }
    if (impl->service_port == 0) impl->service_port = 443;
    path = StringField(service, "path");
    impl->server_name = impl->service_name + "." + impl->service_namespace + ".svc";
    impl->host_header = impl->server_name + ":" + std::to_string(impl->service_port);
    if (!resolve_service) return std::unexpected("a service webhook needs a service resolver");
    impl->resolve = std::move(resolve_service);
  } else {
    const std::string url = StringField(client_config, "url");
    if (url.empty()) return calling_error("webhook configuration must have either service or URL");
    const size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) {
      return calling_error("Unparsable URL: parse " + apimachinery::validation::GoQuote(url) +
                           ": missing protocol scheme");
    }
    if (Lower(url.substr(0, scheme_end)) != "https") {
      return std::unexpected("webhook URL " + apimachinery::validation::GoQuote(url) +
                             ": only https URLs are supported");
    }
    std::string_view rest = std::string_view(url).substr(scheme_end + 3);
    const size_t authority_end = rest.find_first_of("/?#");
    const std::string_view authority = rest.substr(0, authority_end);
    rest =
        authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
    // The query and fragment (which validation forbids) are dropped, as upstream drops them.
    path = std::string(rest.substr(0, rest.find_first_of("?#")));
    if (authority.find('@') != std::string_view::npos) {
      return std::unexpected("webhook URL " + apimachinery::validation::GoQuote(url) +
                             ": user information is not supported");
    }
    impl->host_header = std::string(authority);
    std::string_view host = authority;
    std::string port = "443";
    if (host.starts_with('[')) {
      const size_t close = host.find(']');
      if (close == std::string_view::npos) {
        return calling_error("Unparsable URL: parse " + apimachinery::validation::GoQuote(url) +
                             ": missing ']' in host");
      }
      if (close + 1 < host.size()) {
        if (host[close + 1] != ':') {
          return calling_error("Unparsable URL: parse " + apimachinery::validation::GoQuote(url) +
                               ": invalid port after host");
        }
        if (close + 2 < host.size()) port = std::string(host.substr(close + 2));
      }
      host = host.substr(1, close - 1);
    } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
      if (colon + 1 < host.size()) port = std::string(host.substr(colon + 1));
      host = host.substr(0, colon);
    }
    for (char c : port) {
      if (c < '0' || c > '9') {
        return calling_error("Unparsable URL: parse " + apimachinery::validation::GoQuote(url) +
                             ": invalid port " + apimachinery::validation::GoQuote(":" + port) +
                             " after host");
      }
    }
    if (host.empty())
      return std::unexpected("webhook URL " + apimachinery::validation::GoQuote(url) + ": no host");
    impl->dial_host = std::string(host);
    impl->dial_port = port;
    impl->server_name = impl->dial_host;
  }
  impl->target = CleanRootedPath(path);
  if (timeout > util::Duration::zero()) {
    impl->target += "?timeout=" + QueryEscape(util::FormatDuration(timeout));
  }
  impl->url = "https://" + impl->host_header + impl->target;

  std::string ca_pem;
  if (const std::string encoded = StringField(client_config, "caBundle"); !encoded.empty()) {
    auto decoded = util::Base64Decode(encoded);
    if (!decoded) return std::unexpected("clientConfig.caBundle is not valid base64");
    ca_pem = std::move(*decoded);
  }
  auto tls = NewTlsContext(ca_pem);
  if (!tls) return std::unexpected(tls.error());
  impl->tls = std::move(*tls);
  return std::shared_ptr<WebhookConverter>(new WebhookConverter(std::move(impl)));
}

Awaitable<std::expected<std::vector<json>, std::string>> WebhookConverter::Convert(
    std::vector<json> objects, std::string desired_api_version) const {
  // Held by the coroutine: the converter may go away while a call runs.
  std::shared_ptr<const Impl> impl = impl_;
  auto to_gv = ParseGroupVersion(desired_api_version);
  if (!to_gv) co_return std::unexpected(to_gv.error());
  const std::string to = GroupVersionString(*to_gv);
  if (objects.size() == 1 && IsEmptyObject(objects[0])) {
    objects[0]["apiVersion"] = to;
    co_return objects;
  }
  std::vector<size_t> indexes;
  std::vector<json> sent;
  for (size_t i = 0; i < objects.size(); ++i) {
    const json* api_version = Field(&objects[i], "apiVersion");
    if (api_version != nullptr && api_version->is_string() && *api_version == to) continue;
    indexes.push_back(i);
    sent.push_back(objects[i]);
  }
  if (indexes.empty()) co_return objects;

  const std::string label = ObjectGVKString(sent.front());
  const bool single = objects.size() == 1;
  const std::string uid = util::NewUUID();
  std::string body =
      NewConversionReview(uid, to, sent).dump(-1, ' ', false, json::error_handler_t::replace);
  auto answer = co_await Post(impl, std::move(body));
  if (!answer) {
    co_return std::unexpected("conversion webhook for " + label + " failed: Post " +
                              apimachinery::validation::GoQuote(impl->url) + ": " + answer.error());
  }
  auto converted = ReadConversionAnswer(*answer, uid, to, sent, single, label);
  if (!converted) co_return std::unexpected(converted.error());
  for (size_t k = 0; k < indexes.size(); ++k) objects[indexes[k]] = std::move((*converted)[k]);
  co_return objects;
}

}  // namespace apiextensions::conversion
