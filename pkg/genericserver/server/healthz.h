#pragma once
// /healthz, /livez and /readyz: each runs its named checks and answers "ok", or with
// ?verbose one "[+]name ok" / "[-]name failed: reason withheld" line per check.
// ?exclude=NAME skips a check; /readyz/NAME runs that one check alone.

#include <expected>
#include <functional>
#include <string>
#include <vector>

#include "pkg/genericserver/server/handler.h"

namespace genericserver {

struct HealthCheck {
  std::string name;
  // Must be quick and non-blocking: it runs on an I/O thread.
  std::function<std::expected<void, std::string>()> check;
};

// Serves "/<endpoint>" and "/<endpoint>/<check>" (register it for both the exact path
// and the "/<endpoint>/" prefix).
HandlerPtr NewHealthHandler(std::string endpoint, std::vector<HealthCheck> checks);

}  // namespace genericserver
