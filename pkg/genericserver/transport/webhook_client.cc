// The HTTPS side of a webhook call: the client config (upstream's ClientManager.HookClient), one
// POST per call on a fresh connection, and transport errors worded as Go's net/http and
// crypto/tls word them.
#include "pkg/genericserver/transport/webhook_client.h"

#include <cctype>
#include <mutex>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/transport/https_client.h"
#include "pkg/util/base64.h"
#include "pkg/util/strings.h"

namespace transport {

namespace {

namespace net = boost::asio;

using json = nlohmann::json;

constexpr std::string_view kUserAgent = "kube-apiserver-admission";
// Upstream reads answers whole; this only stops a runaway webhook from exhausting memory.
constexpr uint64_t kMaxResponseBytes = uint64_t{1} << 30;
// Kept connections, as Go's default transport keeps them: a few, for at most 90 s idle.
constexpr size_t kMaxIdle = 8;
constexpr auto kIdleTimeout = std::chrono::seconds(90);

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

// client-go's limit on the text of an error answer it quotes.
constexpr size_t kMaxUnstructuredResponseTextBytes = 2048;

// mime.ParseMediaType's media type, lower-cased; nullopt when it would fail.
std::optional<std::string> MediaType(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.remove_prefix(1);
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  if (media.empty()) return std::nullopt;
  std::string out(media);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// client-go's isTextResponse.
bool IsTextResponse(std::string_view content_type) {
  if (content_type.empty()) return true;
  auto media = MediaType(content_type);
  return media && media->starts_with("text/");
}

// errors.NewGenericServerResponse(code, "POST", GroupResource{}, "", message, ...).Error().
std::string GenericServerResponse(int code, std::string_view body, bool text) {
  std::string server_message = "unknown";
  if (text)
    server_message =
        std::string(util::TrimSpace(body.substr(0, kMaxUnstructuredResponseTextBytes)));
  switch (code) {
    case 409:
      return "the server reported a conflict";
    case 404:
      return "the server could not find the requested resource";
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return server_message;
    case 406:
      if (server_message.empty() || server_message == "unknown") {
        return "the server was unable to respond with a content type that the client supports";
      }
      return server_message;
    case 415:
      return server_message;
    case 405:
      return "the server does not allow this method on the requested resource";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be "
             "processing the request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    default:
      if (code >= 500) {
        return "an error on the server (" + apimachinery::validation::GoQuote(server_message) +
               ") has prevented the request from succeeding";
      }
      return "the server responded with the status code " + std::to_string(code) +
             " but did not return more information";
  }
}

// rest.Result.Error(): a metav1.Status with status Failure in the body of an error answer
// replaces the generic message. The body is decoded with the kind defaulted to nothing and the
// version to "v1", so it must say kind Status.
std::optional<std::string> FailureStatusMessage(std::string_view body) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  auto api_version = doc.find("apiVersion");
  auto kind = doc.find("kind");
  if (api_version != doc.end() && !api_version->is_string() && !api_version->is_null()) {
    return std::nullopt;
  }
  if (kind == doc.end() || !kind->is_string() || kind->get<std::string>() != "Status") {
    return std::nullopt;
  }
  const std::string av =
      api_version != doc.end() && api_version->is_string() ? api_version->get<std::string>() : "";
  if (!av.empty() && av != "v1") return std::nullopt;
  auto status = doc.find("status");
  if (status == doc.end() || !status->is_string() || status->get<std::string>() != "Failure") {
    return std::nullopt;
  }
  auto message = doc.find("message");
  if (message != doc.end() && !message->is_string() && !message->is_null()) return std::nullopt;
  return message != doc.end() && message->is_string() ? message->get<std::string>() : "";
}

}  // namespace

std::string ErrorAnswerText(const HttpAnswer& answer) {
  if (!answer.body.empty()) {
    if (auto message = FailureStatusMessage(answer.body)) return *message;
  }
  return GenericServerResponse(answer.status, answer.body, IsTextResponse(answer.content_type));
}

struct WebhookClient::Impl {
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
  std::shared_ptr<const TLSClient> tls;
  std::string bearer_token;  // sent as Authorization when set

  // Connections kept open after an answer, for the next call to the same address. A
  // connection's I/O always runs on the executor that dialed it (its socket's and timers'),
  // whichever coroutine uses it next. Guarded by idle_mu.
  struct Idle {
    std::unique_ptr<Connection> connection;
    net::any_io_executor executor;
    std::string address;
    Clock::time_point since;
  };
  mutable std::mutex idle_mu;
  mutable std::vector<Idle> idle;

  std::optional<Idle> TakeIdle(const std::string& address) const {
    std::lock_guard lock(idle_mu);
    const Clock::time_point now = Clock::now();
    std::erase_if(idle, [&](const Idle& i) { return now - i.since > kIdleTimeout; });
    for (auto it = idle.begin(); it != idle.end(); ++it) {
      if (it->address == address) {
        Idle found = std::move(*it);
        idle.erase(it);
        return found;
      }
    }
    return std::nullopt;
  }

  void PutIdle(Idle kept) const {
    kept.since = Clock::now();
    std::lock_guard lock(idle_mu);
    if (idle.size() >= kMaxIdle) idle.erase(idle.begin());  // the oldest
    idle.push_back(std::move(kept));
  }
};

namespace {

struct Exchanged {
  ResponseHead head;
  std::string body;
};

// One request and its whole answer on `c`; `answered` tells whether any answer came (a
// kept connection the server closed meanwhile fails before one).
Awaitable<std::expected<Exchanged, std::string>> Exchange(Connection& c, const std::string& target,
                                                          const genericserver::Headers& headers,
                                                          std::string body,
                                                          Clock::time_point deadline,
                                                          bool& answered) {
  answered = false;
  auto sent = co_await c.Send("POST", target, headers, std::move(body), deadline);
  if (!sent) co_return std::unexpected(sent.error());
  auto head = co_await c.ReadHead(deadline);
  if (!head) co_return std::unexpected(head.error());
  answered = true;
  auto read = co_await c.ReadAll(kMaxResponseBytes, deadline);
  if (!read) co_return std::unexpected(read.error());
  co_return Exchanged{std::move(*head), std::move(*read)};
}

}  // namespace

WebhookClient::WebhookClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WebhookClient::~WebhookClient() = default;

const std::string& WebhookClient::url() const { return impl_->url; }

std::string WebhookClient::CredentialsTarget(const json& client_config) {
  if (const json* service = Field(&client_config, "service")) {
    int port = 443;
    if (const json* p = Field(service, "port"); p != nullptr && p->is_number_integer()) {
      port = p->get<int>();
    }
    return StringField(service, "name") + "." + StringField(service, "namespace") +
           ".svc:" + std::to_string(port == 0 ? 443 : port);
  }
  const std::string url = StringField(&client_config, "url");
  std::string_view rest = url;
  const size_t scheme = rest.find("://");
  if (scheme != std::string_view::npos) rest.remove_prefix(scheme + 3);
  return std::string(rest.substr(0, rest.find_first_of("/?#")));
}

std::expected<std::shared_ptr<const WebhookClient>, std::string> WebhookClient::New(
    const json& client_config_json, std::string_view webhook_name, ServiceResolver resolve_service,
    util::Duration timeout, const ClientIdentity& identity) {
  const json* client_config = &client_config_json;
  auto impl = std::make_unique<Impl>();
  impl->timeout = timeout;
  const auto calling_error = [&](const std::string& why) {
    return std::unexpected("failed calling webhook " +
                           apimachinery::validation::GoQuote(std::string(webhook_name)) + ": " +
                           why);
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
  TLSClientConfig tls_config;
  tls_config.ca_pem = std::move(ca_pem);
  tls_config.cert_pem = identity.cert_pem;
  tls_config.key_pem = identity.key_pem;
  impl->bearer_token = identity.bearer_token;
  auto tls = TLSClient::New(tls_config);
  if (!tls) return std::unexpected(tls.error());
  impl->tls = std::move(*tls);
  return std::make_shared<const WebhookClient>(std::move(impl));
}

Awaitable<std::expected<HttpAnswer, std::string>> WebhookClient::Post(
    std::shared_ptr<const WebhookClient> client, std::string body) {
  const Impl* impl = client->impl_.get();
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
  const std::string address = host + ":" + port;
  genericserver::Headers headers;
  headers.Add("Host", impl->host_header);
  headers.Add("User-Agent", std::string(kUserAgent));
  headers.Add("Content-Type", "application/json");
  headers.Add("Accept", "application/json, */*");
  if (!impl->bearer_token.empty()) headers.Add("Authorization", "Bearer " + impl->bearer_token);
  // A kept connection first; one the server closed meanwhile fails before any answer, and
  // the call is made again on a new one, as Go's transport does.
  if (std::optional<Impl::Idle> kept = impl->TakeIdle(address)) {
    bool answered = false;
    std::string copy = body;
    auto exchanged = co_await net::co_spawn(
        kept->executor,
        Exchange(*kept->connection, impl->target, headers, std::move(copy), deadline, answered),
        net::use_awaitable);
    if (exchanged) {
      if (exchanged->head.keep_alive) impl->PutIdle(std::move(*kept));
      HttpAnswer answer{exchanged->head.status,
                        std::string(exchanged->head.headers.Get("Content-Type").value_or("")),
                        std::move(exchanged->body)};
      co_return answer;
    }
    if (answered || Clock::now() >= deadline) co_return std::unexpected(exchanged.error());
  }
  auto dialed = co_await Connection::Dial(impl->tls, host, port, impl->server_name, deadline);
  if (!dialed) co_return std::unexpected(dialed.error());
  net::any_io_executor executor = co_await net::this_coro::executor;
  Impl::Idle fresh{std::move(*dialed), std::move(executor), address, {}};
  bool answered = false;
  auto exchanged = co_await Exchange(*fresh.connection, impl->target, headers, std::move(body),
                                     deadline, answered);
  if (!exchanged) co_return std::unexpected(exchanged.error());
  if (exchanged->head.keep_alive) impl->PutIdle(std::move(fresh));
  HttpAnswer answer{exchanged->head.status,
                    std::string(exchanged->head.headers.Get("Content-Type").value_or("")),
                    std::move(exchanged->body)};
  co_return answer;
}

}  // namespace transport
