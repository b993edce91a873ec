#pragma once
// What a server exposes to the server in front of it. The front server calls the
// delegate's UNFILTERED handler for every request it does not serve itself (its own
// filters already ran), and gathers the delegate's hooks, checks and groups so that
// the outermost server runs and reports them all.

#include <vector>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/server/handler.h"
#include "pkg/genericserver/server/healthz.h"
#include "pkg/genericserver/server/hooks.h"
#include "pkg/genericserver/server/mux.h"

namespace genericserver {

class DelegationTarget {
 public:
  virtual ~DelegationTarget() = default;
  virtual Handler& UnprotectedHandler() = 0;
  virtual std::vector<PostStartHookPtr> PostStartHooks() const = 0;
  // Checks for /healthz, /livez and /readyz alike.
  virtual std::vector<HealthCheck> HealthChecks() const = 0;
  // Checks for /readyz only.
  virtual std::vector<HealthCheck> ReadyzChecks() const = 0;
  // The hooks' checks and the other checks of the start-up sequence, on all three
  // endpoints after the others: the delegate's first, then in the order they were added.
  virtual std::vector<HealthCheck> BootSequenceChecks() const = 0;
  // API groups with their resources, this server's and then its delegates'; the legacy
  // core group (name "") included, which /apis does not list.
  virtual std::vector<endpoints::APIGroupInfo> ListedGroups() const = 0;
  // Final wiring before serving; recurses down the chain.
  virtual void PrepareRun() = 0;
};

// The end of the chain: every request reaching it gets the 404 Status.
class EmptyDelegate final : public DelegationTarget {
 public:
  Handler& UnprotectedHandler() override { return not_found_; }
  std::vector<PostStartHookPtr> PostStartHooks() const override { return {}; }
  std::vector<HealthCheck> HealthChecks() const override { return {}; }
  std::vector<HealthCheck> ReadyzChecks() const override { return {}; }
  std::vector<HealthCheck> BootSequenceChecks() const override { return {}; }
  std::vector<endpoints::APIGroupInfo> ListedGroups() const override { return {}; }
  void PrepareRun() override {}

 private:
  NotFoundHandler not_found_;
};

}  // namespace genericserver
