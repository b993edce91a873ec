#include "pkg/aggregator/proxy.h"

#include <algorithm>
#include <cctype>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/endpoints/version_priority.h"
#include "pkg/genericserver/server/responses.h"
#include "pkg/util/log.h"
#include "pkg/util/percent_encode.h"
#include "pkg/util/strings.h"

namespace aggregator {
namespace {

using genericserver::Headers;
using transport::Clock;

// Upstream's dial timeout for proxied requests; the rest of the exchange is bounded by the
// request's own deadline (none for watches).
constexpr auto kDialTimeout = std::chrono::seconds(30);
// Answers that declare a length up to this are read whole and sent in one piece; longer
// ones and chunked ones (watches, logs) are passed on as they arrive.
constexpr uint64_t kBufferedLimit = 8 << 20;

using util::EqualsIgnoreCase;

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

// Fields that describe one hop, not the message (RFC 9110 7.6.1), and the ones the proxy
// sets itself.
bool HopByHop(std::string_view name) {
  for (std::string_view h :
       {"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
        "TE", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Host"}) {
    if (EqualsIgnoreCase(name, h)) return true;
  }
  return false;
}

// What the caller sent that must not reach the extension server: its credentials and any
// identity headers of its own (only the aggregator may assert an identity there).
bool Withheld(std::string_view name) {
  return EqualsIgnoreCase(name, "Authorization") || StartsWithIgnoreCase(name, "Impersonate-") ||
         StartsWithIgnoreCase(name, "X-Remote-") || EqualsIgnoreCase(name, "Audit-ID");
}

bool IsUpgrade(const genericserver::Request& request) {
  if (!request.headers.Get("Upgrade")) return false;
  for (std::string_view value : request.headers.Values("Connection")) {
    if (util::ToLower(value).find("upgrade") != std::string::npos) return true;
  }
  return false;
}

// A header name part as Go's net/http would accept it: token characters kept, anything else
// percent-encoded (upstream's headerKeyEscape).
std::string HeaderKeyEscape(std::string_view key) {
  return util::PercentEncode(key, "!#$&'*+-.^_`|~");
}

std::string ClientIP(const std::string& remote_address) {
  if (remote_address.starts_with('['))
    return remote_address.substr(1, remote_address.find(']') - 1);
  return remote_address.substr(0, remote_address.rfind(':'));
}

// The request as the extension server gets it.
Headers ForwardedHeaders(const genericserver::RequestContext& ctx, const std::string& host) {
  Headers headers;
  headers.Add("Host", host);
  for (const auto& [name, value] : ctx.request.headers.Items()) {
    if (!HopByHop(name) && !Withheld(name)) headers.Add(name, value);
  }
  SetAuthProxyHeaders(headers, *ctx.user);
  if (!ctx.audit_id.empty()) headers.Add("Audit-ID", ctx.audit_id);
  std::string forwarded = std::string(ctx.request.headers.Get("X-Forwarded-For").value_or(""));
  const std::string ip = ClientIP(ctx.request.remote_address);
  headers.Set("X-Forwarded-For", forwarded.empty() ? ip : forwarded + ", " + ip);
  return headers;
}

// The answer's fields the caller gets.
Headers ReturnedHeaders(const Headers& from) {
  Headers headers;
  for (const auto& [name, value] : from.Items()) {
    if (!HopByHop(name) && !EqualsIgnoreCase(name, "Audit-ID")) headers.Add(name, value);
  }
  return headers;
}

class ProxyHandler final : public genericserver::Handler {
 public:
  explicit ProxyHandler(ProxyConfig config) : c_(std::move(config)) {}

  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    // /apis/<group>[/<version>[/...]]
    const std::vector<std::string> parts = util::Split(ctx.request.path.substr(6), '/');
    if (parts.empty() || parts[0].empty()) {
      co_await c_.next->Serve(ctx, out);
      co_return;
    }
    if (parts.size() == 1 || (parts.size() == 2 && parts[1].empty())) {
      if (auto group = RemoteGroup(parts[0])) {
        genericserver::Response response;
        response.headers.Set("Content-Type", "application/json");
        response.body = endpoints::EncodeAPIGroup(*group);
        co_await out.Respond(std::move(response));
        co_return;
      }
      co_await c_.next->Serve(ctx, out);
      co_return;
    }
    APIServiceInfoPtr info = c_.table->Find(parts[0], parts[1]);
    if (!info || !info->service) {
      co_await c_.next->Serve(ctx, out);
      co_return;
    }
    co_await Proxy(ctx, out, std::move(info));
  }

 private:
  // The group document of a group served only by remote APIServices, its versions by
  // priority; std::nullopt when the chain serves the group itself.
  std::optional<endpoints::APIGroup> RemoteGroup(const std::string& name) const {
    std::vector<APIServiceInfoPtr> versions;
    for (const APIServiceInfoPtr& info : c_.table->All()) {
      if (info->group != name) continue;
      if (!info->service) return std::nullopt;
      versions.push_back(info);
    }
    if (versions.empty()) return std::nullopt;
    std::sort(versions.begin(), versions.end(), [](const auto& a, const auto& b) {
      if (a->version_priority != b->version_priority)
        return a->version_priority > b->version_priority;
      return endpoints::VersionPriorityLess(a->version, b->version);
    });
    endpoints::APIGroup group{name, {}};
    for (const auto& info : versions) group.versions.push_back(info->version);
    return group;
  }

  Awaitable<void> Proxy(genericserver::RequestContext& ctx, genericserver::ResponseWriter& out,
                        APIServiceInfoPtr info) {
    if (!info->available) {
      co_await genericserver::WriteStatus(
          out, apimachinery::NewServiceUnavailable("service unavailable"));
      co_return;
    }
    if (!info->tls) {
      co_await genericserver::WriteStatus(out, apimachinery::NewInternalError(info->tls_error));
      co_return;
    }
    if (!ctx.user) {
      co_await genericserver::WriteStatus(out, apimachinery::NewInternalError("missing user"));
      co_return;
    }
    if (IsUpgrade(ctx.request)) {
      co_await genericserver::WriteStatus(
          out, apimachinery::NewBadRequest(
                   "Upgrade requests (exec, attach, port-forward) to aggregated API "
                   "servers are not supported by this server"));
      co_return;
    }
    const ServiceReference& svc = *info->service;
    auto where = co_await c_.resolve(svc.ns, svc.name, svc.port);
    if (!where) {
      KLOG_WARNING << "error resolving " << svc.ns << "/" << svc.name << ": " << where.error();
      co_await genericserver::WriteStatus(
          out, apimachinery::NewServiceUnavailable("service unavailable"));
      co_return;
    }
    auto hostport = transport::SplitHostPort(*where);
    if (!hostport) {
      co_await genericserver::WriteStatus(
          out, apimachinery::NewServiceUnavailable("service unavailable"));
      co_return;
    }
    const Clock::time_point deadline = ctx.deadline;
    const Clock::time_point dial_deadline = std::min(deadline, Clock::now() + kDialTimeout);
    auto connection = co_await transport::Connection::Dial(
        info->tls, hostport->first, hostport->second, info->ServerName(), dial_deadline);
    if (!connection) {
      co_await Unreachable(out, *info, connection.error());
      co_return;
    }
    std::shared_ptr<transport::Connection> conn = std::move(*connection);
    // Streams end when the server shuts down.
    const uint64_t closer = c_.lifecycle->OnCloseStreams([conn] { conn->Close(); });
    co_await Exchange(ctx, out, *info, conn, *where, deadline);
    c_.lifecycle->Unregister(closer);
  }

  Awaitable<void> Exchange(genericserver::RequestContext& ctx, genericserver::ResponseWriter& out,
                           const APIServiceInfo& info,
                           const std::shared_ptr<transport::Connection>& connection,
                           const std::string& host, Clock::time_point deadline) {
    transport::Connection& conn = *connection;
    const Headers headers = ForwardedHeaders(ctx, host);
    auto sent = co_await conn.Send(ctx.request.method, ctx.request.target, headers,
                                   ctx.request.body, deadline);
    if (!sent) {
      co_await Unreachable(out, info, sent.error());
      co_return;
    }
    auto head = co_await conn.ReadHead(deadline);
    if (!head) {
      co_await Unreachable(out, info, head.error());
      co_return;
    }
    if (head->content_length && *head->content_length <= kBufferedLimit) {
      auto body = co_await conn.ReadAll(kBufferedLimit, deadline);
      if (!body) {
        co_await Unreachable(out, info, body.error());
        co_return;
      }
      genericserver::Response response;
      response.status = head->status;
      response.headers = ReturnedHeaders(head->headers);
      response.body = std::move(*body);
      co_await out.Respond(std::move(response));
      co_return;
    }
    Headers returned = ReturnedHeaders(head->headers);
    if (!co_await out.StartStream(head->status, std::move(returned))) co_return;
    // A caller that leaves ends the stream at once, even while the server is silent.
    out.OnClientGone([connection] { connection->Close(); });
    while (true) {
      auto piece = co_await conn.ReadSome(deadline);
      if (!piece) {
        KLOG_V(2) << "proxying " << ctx.request.path << " to " << info.name
                  << ": the answer broke off: " << piece.error();
        break;
      }
      if (!*piece) break;
      if (!co_await out.WriteChunk(**piece)) co_return;  // the caller is gone
    }
    co_await out.FinishStream();
  }

  // A connection or exchange failure: upstream's responder answers 503 with the error.
  Awaitable<void> Unreachable(genericserver::ResponseWriter& out, const APIServiceInfo& info,
                              const std::string& error) {
    KLOG_WARNING << "proxying to APIService " << info.name << ": " << error;
    if (c_.unreachable) c_.unreachable(info.name);
    co_await genericserver::WriteStatus(out, apimachinery::NewServiceUnavailable(error));
  }

  ProxyConfig c_;
};

}  // namespace

void SetAuthProxyHeaders(Headers& headers, const authn::UserInfo& user) {
  headers.Set("X-Remote-User", user.name);
  for (const std::string& group : user.groups) headers.Add("X-Remote-Group", group);
  for (const auto& [key, values] : user.extra) {
    const std::string name = "X-Remote-Extra-" + HeaderKeyEscape(key);
    for (const std::string& value : values) headers.Add(name, value);
  }
}

genericserver::HandlerPtr NewProxyHandler(ProxyConfig config) {
  return std::make_unique<ProxyHandler>(std::move(config));
}

}  // namespace aggregator
