#include "pkg/controllermanager/serving.h"

#include <nlohmann/json.hpp>

#include "pkg/util/strings.h"

namespace controllermanager {

namespace gs = genericserver;
using nlohmann::json;

void HealthChecks::Add(std::vector<gs::HealthCheck> checks) {
  std::lock_guard lock(mu_);
  for (gs::HealthCheck& c : checks) checks_.push_back(std::move(c));
}

std::vector<gs::HealthCheck> HealthChecks::Snapshot() const {
  std::lock_guard lock(mu_);
  return checks_;
}

namespace {

gs::Response Text(int status, std::string body, std::string type = "text/plain; charset=utf-8") {
  gs::Response r;
  r.status = status;
  r.headers.Set("Content-Type", std::move(type));
  r.headers.Set("X-Content-Type-Options", "nosniff");
  r.body = std::move(body);
  return r;
}

bool AlwaysAllowed(const std::vector<std::string>& paths, const std::string& path) {
  for (const std::string& p : paths) {
    if (p == path) return true;
    if (p.ends_with('*') && path.starts_with(std::string_view(p).substr(0, p.size() - 1))) {
      return true;
    }
  }
  return false;
}

std::string Verb(const std::string& method) {
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "POST") return "post";
  if (method == "PUT") return "put";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return util::ToLower(method);
}

class ServingHandler : public gs::Handler {
 public:
  explicit ServingHandler(ServingConfig config) : config_(std::move(config)) {}

  Awaitable<void> Serve(gs::RequestContext& ctx, gs::ResponseWriter& out) override {
    const std::string& path = ctx.request.path;
    if (config_.delegate && !AlwaysAllowed(config_.always_allow_paths, path)) {
      auto user = co_await Authenticate(ctx);
      if (!user) {
        co_await out.Respond(Text(401, "Unauthorized"));
        co_return;
      }
      const bool allowed = co_await Authorize(*user, ctx);
      if (!allowed) {
        co_await out.Respond(Text(403, "Forbidden: \"" + path + "\""));
        co_return;
      }
    }
    for (const char* endpoint : {"healthz", "livez", "readyz"}) {
      const std::string base = std::string("/") + endpoint;
      if (path == base || path.starts_with(base + "/")) {
        gs::HandlerPtr health = gs::NewHealthHandler(endpoint, config_.checks->Snapshot());
        co_await health->Serve(ctx, out);
        co_return;
      }
    }
    if (path == "/metrics" && config_.metrics) {
      co_await out.Respond(
          Text(200, config_.metrics(), "text/plain; version=0.0.4; charset=utf-8"));
      co_return;
    }
    if (path == "/configz" && config_.configz) {
      co_await out.Respond(Text(200, config_.configz(), "application/json"));
      co_return;
    }
    co_await out.Respond(Text(404, "404 page not found\n"));
  }

 private:
  // The user of a verified client certificate, or of a bearer token the API server's
  // TokenReview accepts.
  Awaitable<std::optional<json>> Authenticate(const gs::RequestContext& ctx) {
    const gs::TlsPeer* peer = ctx.request.peer.get();
    if (peer && peer->verified) {
      json user = {{"username", peer->common_name}, {"groups", peer->organizations}};
      co_return user;
    }
    auto header = ctx.request.headers.Get("Authorization");
    if (!header || header->size() < 7 || !util::EqualsIgnoreCase(header->substr(0, 7), "bearer "))
      co_return std::nullopt;
    json review = {{"apiVersion", "authentication.k8s.io/v1"},
                   {"kind", "TokenReview"},
                   {"spec", {{"token", std::string(util::TrimSpace(header->substr(7)))}}}};
    auto r = co_await config_.delegate->Post("/apis/authentication.k8s.io/v1/tokenreviews", review);
    if (!r) co_return std::nullopt;
    const json status = r->value("status", json::object());
    if (!status.value("authenticated", false)) co_return std::nullopt;
    co_return status.value("user", json::object());
  }

  Awaitable<bool> Authorize(const json& user, const gs::RequestContext& ctx) {
    json review = {{"apiVersion", "authorization.k8s.io/v1"},
                   {"kind", "SubjectAccessReview"},
                   {"spec",
                    {{"user", user.value("username", "")},
                     {"groups", user.value("groups", json::array())},
                     {"nonResourceAttributes",
                      {{"path", ctx.request.path}, {"verb", Verb(ctx.request.method)}}}}}};
    if (user.contains("uid")) review["spec"]["uid"] = user["uid"];
    if (user.contains("extra")) review["spec"]["extra"] = user["extra"];
    auto r = co_await config_.delegate->Post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                             review);
    if (!r) co_return false;
    co_return r->value("status", json::object()).value("allowed", false);
  }

  ServingConfig config_;
};

}  // namespace

gs::HandlerPtr NewServingHandler(ServingConfig config) {
  return std::make_unique<ServingHandler>(std::move(config));
}

}  // namespace controllermanager
