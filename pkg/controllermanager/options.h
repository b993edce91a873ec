#pragma once
// kube-controller-manager's options, per concern, with upstream 1.32's flag names and
// defaults (docs/notes/kube-controller-manager-1.32.md section 5): AddFlags registers them,
// Validate returns every error at once (unknown controllers, leader election durations,
// lock type, exclusive signing flags), Complete loads the files they name.

#include <expected>
#include <map>
#include <string>
#include <vector>

#include "pkg/controller/controller_context.h"
#include "pkg/options/flagset.h"
#include "pkg/util/duration.h"

namespace controllermanager {

struct GenericOptions {
  std::vector<std::string> controllers = {"*"};
  util::Duration controller_start_interval{0};
  util::Duration min_resync_period = std::chrono::hours(12);
  double kube_api_qps = 20;
  int kube_api_burst = 30;
  std::string kube_api_content_type = "application/vnd.kubernetes.protobuf";
  void AddFlags(options::FlagSet& fs);
};

struct LeaderElectionOptions {
  bool leader_elect = true;
  util::Duration lease_duration = std::chrono::seconds(15);
  util::Duration renew_deadline = std::chrono::seconds(10);
  util::Duration retry_period = std::chrono::seconds(2);
  std::string resource_lock = "leases";
  std::string resource_name = "kube-controller-manager";
  std::string resource_namespace = "kube-system";
  void AddFlags(options::FlagSet& fs);
  std::vector<std::string> Validate() const;
};

struct ServingOptions {
  std::string bind_address = "0.0.0.0";
  int secure_port = 10257;  // 0: no HTTPS
  std::string cert_dir;
  std::string tls_cert_file, tls_private_key_file;
  std::vector<std::string> authorization_always_allow_paths = {"/healthz", "/readyz", "/livez"};
  std::string authentication_kubeconfig, authorization_kubeconfig;
  bool authentication_skip_lookup = false;
  void AddFlags(options::FlagSet& fs);
  std::vector<std::string> Validate() const;
};

struct KubeControllerManagerOptions {
  GenericOptions generic;
  LeaderElectionOptions leader_election;
  ServingOptions serving;
  std::string kubeconfig;
  std::string master;
  bool use_service_account_credentials = false;
  std::string service_account_private_key_file;
  std::string root_ca_file;
  int concurrent_serviceaccount_token_syncs = 5;
  std::string cluster_signing_cert_file, cluster_signing_key_file;
  // --cluster-signing-<signer>-{cert,key}-file, by <signer>: kubelet-serving, kubelet-client,
  // kube-apiserver-client, legacy-unknown.
  std::map<std::string, std::pair<std::string, std::string>> cluster_signing_signer_files;
  util::Duration cluster_signing_duration = std::chrono::hours(8760);
  int concurrent_namespace_syncs = 10;
  util::Duration namespace_sync_period = std::chrono::minutes(5);
  int concurrent_gc_syncs = 20;
  bool enable_garbage_collector = true;
  util::Duration resource_quota_sync_period = std::chrono::minutes(5);
  int concurrent_resource_quota_syncs = 5;
  int concurrent_ttl_after_finished_syncs = 5;
  int verbosity = 0;
  bool help = false;
  bool version = false;

  void AddFlags(options::FlagSet& fs);
  // Every error at once; the controllers are checked against the known ones.
  std::vector<std::string> Validate() const;
  // The controllers' options, with the key and certificate files read.
  std::expected<controller::ControllerOptions, std::vector<std::string>> ControllerOptions() const;
};

}  // namespace controllermanager
