#pragma once
// Per-request state the filters fill in on the way to the handler. Owned by the
// connection that read the request; lives until the handler chain returns.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "pkg/genericserver/authn/user.h"
#include "pkg/genericserver/endpoints/request_info.h"
#include "pkg/genericserver/server/request.h"

namespace audit {
class Context;
}

namespace genericserver {

struct RequestContext {
  Request request;
  endpoints::RequestInfo info;          // set by WithRequestInfo
  std::optional<authn::UserInfo> user;  // set by WithAuthentication
  std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now();
  // Set by WithTimeout for requests that are not long-running.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::string audit_id;
  // Set by WithAudit while the request is audited (null otherwise): what the filters and
  // handlers below add to its event (pkg/genericserver/audit/context.h).
  audit::Context* audit = nullptr;
  // What the handlers and admission warn the client of, sent as Warning headers with the
  // answer (upstream's warning recorder).
  std::vector<std::string> warnings;
};

}  // namespace genericserver
