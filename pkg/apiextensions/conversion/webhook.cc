// The HTTPS side of the conversion webhook client: the client config of the CRD (upstream's
// webhookClientConfigForCRD and ClientManager.HookClient), one POST per conversion on a fresh
// connection, and transport errors worded as Go's net/http and crypto/tls word them.
#include "pkg/apiextensions/conversion/webhook.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/conversion/review.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/transport/https_client.h"
#include "pkg/util/base64.h"
#include "pkg/util/uuid.h"

namespace apiextensions::conversion {

namespace {

using Clock = transport::Clock;
using json = nlohmann::json;

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
  std::shared_ptr<const transport::TLSClient> tls;
};

namespace {

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
    auto split = transport::SplitHostPort(*where);
    if (!split)
      co_return std::unexpected("dial tcp: address " + *where + ": missing port in address");
    host = split->first;
    port = split->second;
    if (Clock::now() >= deadline)
      co_return std::unexpected(std::string(transport::kDeadlineExceeded));
  }
  auto connection =
      co_await transport::Connection::Dial(impl->tls, host, port, impl->server_name, deadline);
  if (!connection) co_return std::unexpected(connection.error());
  transport::Connection& c = **connection;
  genericserver::Headers headers;
  headers.Add("Host", impl->host_header);
  headers.Add("User-Agent", std::string(kUserAgent));
  headers.Add("Content-Type", "application/json");
  headers.Add("Accept", "application/json, */*");
  auto sent = co_await c.Send("POST", impl->target, headers, std::move(body), deadline);
  if (!sent) co_return std::unexpected(sent.error());
  auto head = co_await c.ReadHead(deadline);
  if (!head) co_return std::unexpected(head.error());
  auto read = co_await c.ReadAll(kMaxResponseBytes, deadline);
  if (!read) co_return std::unexpected(read.error());
  HttpAnswer answer;
  answer.status = head->status;
  answer.content_type = std::string(head->headers.Get("Content-Type").value_or(""));
  answer.body = std::move(*read);
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
  transport::TLSClientConfig tls_config;
  tls_config.ca_pem = std::move(ca_pem);
  auto tls = transport::TLSClient::New(tls_config);
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
