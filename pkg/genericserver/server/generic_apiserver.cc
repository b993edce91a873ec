#include "pkg/genericserver/server/generic_apiserver.h"

#include "pkg/genericserver/endpoints/discovery_handler.h"
#include "pkg/genericserver/server/handler_chain.h"
#include "pkg/genericserver/server/responses.h"

namespace genericserver {

GenericAPIServer::GenericAPIServer(std::string name, CompletedConfig config,
                                   DelegationTarget& delegate)
    : name_(std::move(name)),
      config_(std::move(config)),
      delegate_(delegate),
      director_(std::make_unique<Director>(name_, delegate.UnprotectedHandler())),
      chain_(BuildHandlerChain(*director_, config_)) {
  const Config& c = config_.Get();
  Mux().Handle("/version", MakeHandler([v = c.version](RequestContext&, ResponseWriter& out) {
                 return WriteJSON(out, 200, EncodeVersion(v));
               }));
  Mux().Handle("/metrics", MakeHandler([m = c.metrics](RequestContext&,
                                                       ResponseWriter& out) -> Awaitable<void> {
                 Response r;
                 r.headers.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                 r.body = m->Render();
                 co_await out.Respond(std::move(r));
               }));
}

GenericAPIServer::~GenericAPIServer() = default;

void GenericAPIServer::AddPostStartHook(std::string name, PostStartHookFunc fn) {
  hooks_.push_back(std::make_shared<PostStartHook>(std::move(name), std::move(fn)));
  boot_checks_.push_back(hooks_.back()->Check());
}

void GenericAPIServer::AddBootSequenceHealthCheck(HealthCheck check) {
  boot_checks_.push_back(std::move(check));
}

void GenericAPIServer::AddHealthChecks(std::vector<HealthCheck> checks) {
  for (auto& c : checks) health_checks_.push_back(std::move(c));
}

void GenericAPIServer::AddReadyzChecks(std::vector<HealthCheck> checks) {
  for (auto& c : checks) readyz_checks_.push_back(std::move(c));
}

void GenericAPIServer::InstallAPIGroup(endpoints::APIGroupInfo info,
                                       std::map<std::string, HandlerPtr> handlers) {
  // Discovery documents answer with or without a trailing slash, as upstream's router does.
  auto document = [this](const std::string& path, std::string body) {
    auto serve = [body = std::move(body)](RequestContext&, ResponseWriter& out) {
      return WriteJSON(out, 200, body);
    };
    Mux().Handle(path, MakeHandler(serve));
    Mux().Handle(path + "/", MakeHandler(serve));
  };
  const std::string base = "/apis/" + info.group.name;
  document(base, endpoints::EncodeAPIGroup(info.group));
  for (const std::string& version : info.group.versions) {
    const std::string gv = info.group.name + "/" + version;
    document(base + "/" + version, endpoints::EncodeAPIResourceList(gv, info.resources[version]));
    if (auto it = handlers.find(version); it != handlers.end()) {
      Mux().HandlePrefix(base + "/" + version + "/", std::move(it->second));
    }
  }
  groups_.push_back(std::move(info));
}

void GenericAPIServer::InstallLegacyAPIGroup(endpoints::APIGroupInfo info,
                                             std::map<std::string, HandlerPtr> handlers) {
  endpoints::DiscoveryDocuments documents;
  documents.legacy = [body = endpoints::EncodeAPIVersions(
                          info.group.versions, GetConfig().external_address)] { return body; };
  documents.groups = [info] { return std::vector<endpoints::APIGroupInfo>{info}; };
  Mux().Handle("/api", endpoints::NewDiscoveryHandler(documents));
  Mux().Handle("/api/", endpoints::NewDiscoveryHandler(std::move(documents)));
  groups_.push_back(info);
  for (const std::string& version : info.group.versions) {
    auto serve = [body = endpoints::EncodeAPIResourceList(version, info.resources[version])](
                     RequestContext&, ResponseWriter& out) { return WriteJSON(out, 200, body); };
    Mux().Handle("/api/" + version, MakeHandler(serve));
    Mux().Handle("/api/" + version + "/", MakeHandler(serve));
    if (auto it = handlers.find(version); it != handlers.end()) {
      Mux().HandlePrefix("/api/" + version + "/", std::move(it->second));
    }
  }
}

std::vector<PostStartHookPtr> GenericAPIServer::PostStartHooks() const {
  std::vector<PostStartHookPtr> all = delegate_.PostStartHooks();
  all.insert(all.end(), hooks_.begin(), hooks_.end());
  return all;
}

std::vector<HealthCheck> GenericAPIServer::BootSequenceChecks() const {
  std::vector<HealthCheck> all = delegate_.BootSequenceChecks();
  all.insert(all.end(), boot_checks_.begin(), boot_checks_.end());
  return all;
}

std::vector<HealthCheck> GenericAPIServer::HealthChecks() const {
  std::vector<HealthCheck> all = health_checks_;
  for (auto& c : delegate_.HealthChecks()) all.push_back(std::move(c));
  return all;
}

std::vector<HealthCheck> GenericAPIServer::ReadyzChecks() const {
  std::vector<HealthCheck> all = readyz_checks_;
  for (auto& c : delegate_.ReadyzChecks()) all.push_back(std::move(c));
  return all;
}

void GenericAPIServer::AddDynamicGroups(
    std::function<std::vector<endpoints::APIGroupInfo>()> groups) {
  dynamic_groups_ = std::move(groups);
}

std::vector<endpoints::APIGroupInfo> GenericAPIServer::ListedGroups() const {
  std::vector<endpoints::APIGroupInfo> all = groups_;
  if (dynamic_groups_) {
    for (auto& g : dynamic_groups_()) all.push_back(std::move(g));
  }
  for (auto& g : delegate_.ListedGroups()) all.push_back(std::move(g));
  return all;
}

void GenericAPIServer::PrepareRun() {
  delegate_.PrepareRun();
  // ping first, shutdown last, as upstream lists them.
  std::vector<HealthCheck> health = {{"ping", [] { return std::expected<void, std::string>(); }},
                                     {"log", [] { return std::expected<void, std::string>(); }}};
  for (auto& c : HealthChecks()) health.push_back(std::move(c));
  // readyz: its own checks after the common ones (etcd-readiness, informer-sync), then the
  // start-up sequence, shutdown last.
  std::vector<HealthCheck> ready = health;
  for (auto& c : ReadyzChecks()) ready.push_back(std::move(c));
  for (auto& c : BootSequenceChecks()) {
    health.push_back(c);
    ready.push_back(std::move(c));
  }
  ready.push_back(
      {"shutdown", [lifecycle = GetConfig().lifecycle]() -> std::expected<void, std::string> {
         if (lifecycle->ShutdownInitiated()) {
           return std::unexpected("process is shutting down");
         }
         return {};
       }});
  for (const char* endpoint : {"healthz", "livez"}) {
    Mux().Handle(std::string("/") + endpoint, NewHealthHandler(endpoint, health));
    Mux().HandlePrefix(std::string("/") + endpoint + "/", NewHealthHandler(endpoint, health));
  }
  Mux().Handle("/readyz", NewHealthHandler("readyz", ready));
  Mux().HandlePrefix("/readyz/", NewHealthHandler("readyz", ready));
}

}  // namespace genericserver
