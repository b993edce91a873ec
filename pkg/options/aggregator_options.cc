#include "pkg/options/aggregator_options.h"

#include <filesystem>

#include "pkg/util/strings.h"

namespace options {

void AggregatorOptions::AddFlags(FlagSet& fs) {
  fs.Section("Aggregation flags");
  fs.String("proxy-client-cert-file", &proxy_client_cert_file,
            "PEM client certificate the aggregator presents to extension API servers when it "
            "proxies a request to them; it should be signed by a CA of "
            "--requestheader-client-ca-file, which is published in the "
            "kube-system/extension-apiserver-authentication ConfigMap. Default: "
            "front-proxy-client.crt in --cert-dir, signed by a generated front-proxy CA.");
  fs.String("proxy-client-key-file", &proxy_client_key_file,
            "PEM private key of --proxy-client-cert-file.");
  fs.Bool("enable-aggregator-routing", &enable_aggregator_routing,
          "Proxy requests for an APIService to an endpoint IP of its Service rather than to "
          "its cluster IP. Default true here (upstream: false), as no kube-proxy makes "
          "cluster IPs routable in front of this server.");
}

std::vector<std::string> AggregatorOptions::Validate() const {
  std::vector<std::string> errors;
  if (proxy_client_cert_file.empty() != proxy_client_key_file.empty()) {
    errors.push_back("--proxy-client-cert-file and --proxy-client-key-file must be given together");
  }
  for (const auto& [flag, path] : {std::pair{"--proxy-client-cert-file", proxy_client_cert_file},
                                   std::pair{"--proxy-client-key-file", proxy_client_key_file}}) {
    if (!path.empty() && !std::filesystem::is_regular_file(path)) {
      errors.push_back(std::string(flag) + " " + util::Quote(path) + ": no such file");
    }
  }
  return errors;
}

}  // namespace options
