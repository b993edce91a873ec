#pragma once
// The aggregator's flags: --proxy-client-cert-file, --proxy-client-key-file (the client
// certificate presented to extension API servers; generated in --cert-dir when not given)
// and --enable-aggregator-routing.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct AggregatorOptions {
  std::string proxy_client_cert_file;
  std::string proxy_client_key_file;
  // Upstream's default is false: there a kube-proxy makes Service cluster IPs routable.
  // Nothing does in front of this server, so it proxies to an endpoint by default.
  bool enable_aggregator_routing = true;

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // Whether the front-proxy client certificate (and its CA) is generated.
  bool GenerateFrontProxy() const { return proxy_client_cert_file.empty(); }
};

}  // namespace options
