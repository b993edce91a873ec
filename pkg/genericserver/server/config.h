#pragma once
// Config -> Complete() -> CompletedConfig -> New(name, delegate): the only way to make
// a GenericAPIServer, so that nothing is built from a config whose defaults were not
// filled in.

#include <memory>
#include <string>

#include "pkg/genericserver/audit/backend.h"
#include "pkg/genericserver/audit/policy.h"
#include "pkg/genericserver/authn/authenticator.h"
#include "pkg/genericserver/authn/request_header.h"
#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/genericserver/endpoints/request_info.h"
#include "pkg/genericserver/server/lifecycle.h"
#include "pkg/genericserver/server/metrics.h"
#include "pkg/genericserver/server/secure_serving.h"
#include "pkg/genericserver/server/version.h"
#include "pkg/util/duration.h"

namespace boost::asio {
class io_context;
}

namespace genericserver {

class CompletedConfig;
class DelegationTarget;
class GenericAPIServer;

struct Config {
  // Used by the server that runs, the outermost one.
  SecureServingInfo secure_serving;
  authn::AuthenticatorPtr authenticator;  // default: anonymous only
  // The request-header authentication the authenticator does, if any: its headers are
  // removed from authenticated requests (the standard ones always are).
  std::shared_ptr<const authn::RequestHeaderConfig> request_header;
  authz::AuthorizerPtr authorizer;  // default: AlwaysAllow
  // Both set: requests are audited (--audit-policy-file and a backend).
  std::shared_ptr<const audit::Policy> audit_policy;
  audit::BackendPtr audit_backend;
  std::shared_ptr<const endpoints::RequestInfoResolver> request_info_resolver;
  // Shared by every server of a chain: one set of counters, one shutdown.
  std::shared_ptr<Metrics> metrics;
  std::shared_ptr<Lifecycle> lifecycle;
  int max_requests_in_flight = 400;
  int max_mutating_requests_in_flight = 200;
  util::Duration request_timeout = std::chrono::seconds(60);
  util::Duration shutdown_delay{0};
  VersionInfo version = BuildVersion();
  // "ip:port" that /api reports in serverAddressByClientCIDRs.
  std::string external_address;
  // The I/O loop every server, the storage's watch caches and the hooks run on. Run()
  // runs it on io_threads threads (0: one per core). Shared by the chain; made by
  // Complete() when unset.
  std::shared_ptr<boost::asio::io_context> io;
  int io_threads = 0;

  // Fills every unset member with its default.
  CompletedConfig Complete() const;
};

class CompletedConfig {
 public:
  const Config& Get() const { return config_; }
  // The delegate must outlive the new server.
  std::unique_ptr<GenericAPIServer> New(std::string name, DelegationTarget& delegate) const;

 private:
  friend struct Config;
  explicit CompletedConfig(Config c) : config_(std::move(c)) {}
  Config config_;
};

}  // namespace genericserver
