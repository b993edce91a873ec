#pragma once
// certificatesigningrequest-cleaner-controller (csrcleaner): upstream's CSRCleanerController.
// Once the CSR cache synced, and then every hour, it deletes the requests that are
//  - approved and issued, the Approved condition updated more than 1 h ago;
//  - denied, the Denied condition updated more than 1 h ago;
//  - failed, the Failed condition updated more than 1 h ago;
//  - pending (no conditions at all) and created more than 24 h ago;
//  - approved with an issued certificate that has expired;
// logging upstream's line for each. Upstream's first pass runs before its informer synced
// (so it sees nothing until an hour later); this one waits for the cache.
//
// Threads: the pass runs on its own strand; it reads the informer's cache.

#include <chrono>
#include <expected>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/controller_context.h"

namespace controller::certificates {

inline constexpr std::chrono::hours kCleanerPollingInterval{1};
inline constexpr std::chrono::hours kApprovedExpiration{1};
inline constexpr std::chrono::hours kDeniedExpiration{1};
inline constexpr std::chrono::hours kPendingExpiration{24};

// Why the request is to be deleted at `now`, as the log line upstream writes (message and
// key-value pairs), or nothing when it stays.
std::optional<std::string> CleanReason(const nlohmann::json& csr,
                                       std::chrono::system_clock::time_point now);

std::expected<InitResult, std::string> StartCSRCleanerController(ControllerContext& ctx);

}  // namespace controller::certificates
