#pragma once
// StartControllers as upstream's (docs/notes/kube-controller-manager-1.32.md section 3): the
// service-account token controller first, then every other known controller in the
// registration order; each one is skipped when it is a cloud-provider controller, off when
// --controllers does not enable it, and otherwise started after a sleep of
// Jitter(--controller-start-interval, 1.0). An init error ends the start (the caller exits
// 1). Each started controller gets a health check named after it.
//
// Threads: a coroutine on any executor; the init functions run on it, one after another.

#include <expected>
#include <map>
#include <string>
#include <vector>

#include "pkg/controller/controller_context.h"
#include "pkg/genericserver/server/awaitable.h"
#include "pkg/util/duration.h"

namespace controllermanager {

struct StartedControllers {
  std::vector<std::string> started, skipped, disabled;
  std::vector<genericserver::HealthCheck> checks;
};

Awaitable<std::expected<StartedControllers, std::string>> StartControllers(
    controller::ControllerContext& ctx, const std::vector<std::string>& controllers_flag,
    util::Duration start_interval, const std::map<std::string, controller::InitFunc>& initializers);

}  // namespace controllermanager
