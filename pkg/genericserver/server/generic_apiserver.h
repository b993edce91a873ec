#pragma once
// GenericAPIServer: the part every server of the chain shares. It owns a director
// (own routes, else the delegate), the filter chain around it, post-start hooks and
// health checks, and the API groups it installed. Routes and hooks are added while the
// chain is built, before PrepareRun(); afterwards the server is read-only.

#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/delegation_target.h"

namespace genericserver {

class GenericAPIServer final : public DelegationTarget {
 public:
  GenericAPIServer(std::string name, CompletedConfig config, DelegationTarget& delegate);
  ~GenericAPIServer() override;

  const std::string& Name() const { return name_; }
  const Config& GetConfig() const { return config_.Get(); }
  // This server's own routes.
  PathMux& Mux() { return director_->Mux(); }
  // The filtered handler: what the listener calls when this server is outermost.
  Handler& FilteredHandler() { return *chain_; }

  // A hook, reported as "poststarthook/<name>" on /healthz, /livez and /readyz until it
  // finished. Hooks and boot-sequence checks are listed in the order they were added, the
  // delegate's (innermost server first) before this server's, as upstream lists them.
  void AddPostStartHook(std::string name, PostStartHookFunc fn);
  // A check of the start-up sequence listed among the hooks (autoregister-completion).
  void AddBootSequenceHealthCheck(HealthCheck check);
  void AddHealthChecks(std::vector<HealthCheck> checks);
  void AddReadyzChecks(std::vector<HealthCheck> checks);
  // /apis/G, /apis/G/V and, per version, the handler of /apis/G/V/...; the group is
  // listed in /apis.
  void InstallAPIGroup(endpoints::APIGroupInfo info, std::map<std::string, HandlerPtr> handlers);
  // Groups whose resources come and go while serving (custom resources): `groups` is
  // asked for them whenever the chain's groups are listed.
  void AddDynamicGroups(std::function<std::vector<endpoints::APIGroupInfo>()> groups);
  // /api, /api/v1 and /api/v1/... for the core group (not listed in /apis).
  void InstallLegacyAPIGroup(endpoints::APIGroupInfo info,
                             std::map<std::string, HandlerPtr> handlers);

  // DelegationTarget
  Handler& UnprotectedHandler() override { return *director_; }
  std::vector<PostStartHookPtr> PostStartHooks() const override;
  std::vector<HealthCheck> HealthChecks() const override;
  std::vector<HealthCheck> ReadyzChecks() const override;
  std::vector<HealthCheck> BootSequenceChecks() const override;
  std::vector<endpoints::APIGroupInfo> ListedGroups() const override;
  // Installs /healthz, /livez and /readyz with every check of the chain.
  void PrepareRun() override;

  // Serves on the configured port until SIGTERM or SIGINT, then shuts down gracefully:
  // /readyz fails, --shutdown-delay-duration passes, the listener closes, requests in
  // flight finish, streams close. Returns an error if serving could not start or a
  // post-start hook failed. Call PrepareRun() first; only on the outermost server.
  std::expected<void, std::string> Run();

 private:
  std::string name_;
  CompletedConfig config_;
  DelegationTarget& delegate_;
  std::unique_ptr<Director> director_;
  HandlerPtr chain_;
  // Own only; the delegate's are asked for when needed, so that hooks a delegate adds after
  // this server was built run too.
  std::vector<PostStartHookPtr> hooks_;
  std::vector<HealthCheck> boot_checks_;         // own hooks' checks and boot checks, in order
  std::vector<HealthCheck> health_checks_;       // own only
  std::vector<HealthCheck> readyz_checks_;       // own only
  std::vector<endpoints::APIGroupInfo> groups_;  // own only
  std::function<std::vector<endpoints::APIGroupInfo>()> dynamic_groups_;
};

}  // namespace genericserver
