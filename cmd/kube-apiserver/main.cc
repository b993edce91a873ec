// kube-apiserver: parse flags -> validate -> complete -> create the server chain -> run.
#include <iostream>
#include <string>
#include <vector>

#include "cmd/kube-apiserver/app/server.h"
#include "pkg/options/options.h"
#include "pkg/util/log.h"

int main(int argc, char** argv) {
  options::Options opts;
  options::FlagSet flags("kube-apiserver");
  opts.AddFlags(flags);
  std::vector<std::string> errors = flags.Parse(std::vector<std::string>(argv + 1, argv + argc));
  if (opts.help) {
    std::cout << "kube-apiserver serves the Kubernetes API (level 1."
              << genericserver::BuildVersion().minor << ") from one binary with an embedded "
              << "store.\n\n"
              << flags.Usage();
    return 0;
  }
  if (opts.version) {
    std::cout << "Kubernetes " << genericserver::BuildVersion().git_version << "\n";
    return 0;
  }
  for (std::string& e : opts.Validate()) errors.push_back(std::move(e));
  if (!errors.empty()) {
    for (const std::string& e : errors) std::cerr << "Error: " << e << "\n";
    std::cerr << "Run 'kube-apiserver --help' for usage.\n";
    return 1;
  }
  util::log::SetVerbosity(opts.verbosity);
  KLOG_INFO << "Version: " << genericserver::BuildVersion().git_version;

  auto completed = opts.Complete();
  if (!completed) {
    for (const std::string& e : completed.error()) std::cerr << "Error: " << e << "\n";
    return 1;
  }
  KLOG_INFO << "admin kubeconfig written to " << completed->AdminKubeconfig()
            << "; try: kubectl --kubeconfig " << completed->AdminKubeconfig() << " version";

  const genericserver::CompletedConfig config = completed->GenericConfig().Complete();
  auto storage = storage::StorageFactory::Open(completed->StorageConfig(), *config.Get().io);
  if (!storage) {
    std::cerr << "Error: " << storage.error() << "\n";
    return 1;
  }
  // Declared after the storage: the servers go first, then the storage they use.
  const options::ServiceOptions& services = completed->Get().service;
  master::Config master;
  master.service_cluster_ip_range =
      services.ranges.front().ip + "/" + std::to_string(services.ranges.front().prefix);
  master.node_port_first = services.node_port_first;
  master.node_port_last = services.node_port_last;
  const options::AuthenticationOptions& authentication = completed->Get().authentication;
  master.service_account_signing_key = completed->ServiceAccountSigningKey();
  master.service_account_issuer = authentication.service_account_issuers.front();
  master.api_audiences = authentication.api_audiences;
  master.rbac_policy = completed->RBACPolicy();
  master.service_account_lookup = completed->ServiceAccountLookup();
  master.bootstrap_tokens = completed->BootstrapTokens();
  const options::AdmissionOptions& admission = completed->Get().admission;
  master.admission_plugins = admission.Enabled();
  master.admission_plugin_configs =
      admission.PluginConfigs().value_or(std::map<std::string, std::string>{});
  master.default_not_ready_toleration_seconds = admission.default_not_ready_toleration_seconds;
  master.default_unreachable_toleration_seconds = admission.default_unreachable_toleration_seconds;
  master.service_account_public_keys = completed->ServiceAccountPublicKeys();
  master.service_account_jwks_uri = authentication.service_account_jwks_uri;
  master::bootstrap::ClusterAuthenticationInfo& trust = master.cluster_authentication;
  trust.client_ca = completed->ClientCABundle();
  trust.request_header_ca = completed->RequestHeaderCABundle();
  if (!trust.request_header_ca.empty()) {
    trust.request_header_username_headers = authentication.requestheader_username_headers;
    trust.request_header_group_headers = authentication.requestheader_group_headers;
    trust.request_header_extra_header_prefixes = authentication.requestheader_extra_headers_prefix;
    trust.request_header_allowed_names = authentication.requestheader_allowed_names;
  }
  aggregator::Config aggregator;
  aggregator.proxy_client_cert_file = completed->ProxyClientCertFile();
  aggregator.proxy_client_key_file = completed->ProxyClientKeyFile();
  aggregator.enable_aggregator_routing = completed->Get().aggregator.enable_aggregator_routing;
  app::ServerChain chain = app::CreateServerChain(config, **storage, master, aggregator);
  chain.Outermost().PrepareRun();
  (*storage)->Start();
  auto result = chain.Outermost().Run();
  (*storage)->Stop();
  // What the audit buffers still hold is written before the process ends.
  if (const auto& backend = completed->AuditSetup().backend) backend->Shutdown();
  if (!result) {
    KLOG_ERROR << "Error: " << result.error();
    return 1;
  }
  return 0;
}
