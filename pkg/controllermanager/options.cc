#include "pkg/controllermanager/options.h"

#include "pkg/controllermanager/controller_names.h"
#include "pkg/controllermanager/controllers_flag.h"
#include "pkg/util/file.h"
#include "pkg/util/strings.h"

namespace controllermanager {

namespace {

// --cluster-signing-<flag>-{cert,key}-file and the signer kubernetes.io/<signer> it is for.
constexpr std::pair<const char*, const char*> kSigningFlagSigners[] = {
    {"kubelet-serving", "kubelet-serving"},
    {"kubelet-client", "kube-apiserver-client-kubelet"},
    {"kube-apiserver-client", "kube-apiserver-client"},
    {"legacy-unknown", "legacy-unknown"}};
// How upstream's validation names each pair when one file is missing (sic).
constexpr std::pair<const char*, const char*> kSigningFlagLabels[] = {
    {"kubelet-serving", "cluster-signing-kubelet-serving"},
    {"kubelet-client", "cluster-signing-kube-apiserver-client"},
    {"kube-apiserver-client", "cluster-signing-kube-apiserver"},
    {"legacy-unknown", "cluster-signing-legacy-unknown"}};

}  // namespace

void GenericOptions::AddFlags(options::FlagSet& fs) {
  fs.Section("Generic flags");
  fs.StringList("controllers", &controllers,
                "A list of controllers to enable. '*' enables all on-by-default controllers, "
                "'foo' enables the controller named 'foo', '-foo' disables the controller "
                "named 'foo'.\nAll controllers: " +
                    util::Join(KnownControllers(), ", ") + "\nDisabled-by-default controllers: " +
                    util::Join(ControllersDisabledByDefault(), ", "));
  fs.Duration("controller-start-interval", &controller_start_interval,
              "Interval between starting controller managers.");
  fs.Duration("min-resync-period", &min_resync_period,
              "The resync period in reflectors will be random between MinResyncPeriod and "
              "2*MinResyncPeriod.");
  fs.Float("kube-api-qps", &kube_api_qps, "QPS to use while talking with kubernetes apiserver.");
  fs.Int("kube-api-burst", &kube_api_burst,
         "Burst to use while talking with kubernetes apiserver.");
  fs.String("kube-api-content-type", &kube_api_content_type,
            "Content type of requests sent to apiserver.");
}

void LeaderElectionOptions::AddFlags(options::FlagSet& fs) {
  fs.Section("Leader-election flags");
  fs.Bool("leader-elect", &leader_elect,
          "Start a leader election client and gain leadership before executing the main loop. "
          "Enable this when running replicated components for high availability.");
  fs.Duration("leader-elect-lease-duration", &lease_duration,
              "The duration that non-leader candidates will wait after observing a leadership "
              "renewal until attempting to acquire leadership of a led but unrenewed leader "
              "slot.");
  fs.Duration("leader-elect-renew-deadline", &renew_deadline,
              "The interval between attempts by the acting master to renew a leadership slot "
              "before it stops leading. This must be less than the lease duration.");
  fs.Duration("leader-elect-retry-period", &retry_period,
              "The duration the clients should wait between attempting acquisition and renewal "
              "of a leadership.");
  fs.String("leader-elect-resource-lock", &resource_lock,
            "The type of resource object that is used for locking during leader election. "
            "Supported options are 'leases'.");
  fs.String("leader-elect-resource-name", &resource_name,
            "The name of resource object that is used for locking during leader election.");
  fs.String("leader-elect-resource-namespace", &resource_namespace,
            "The namespace of resource object that is used for locking during leader "
            "election.");
}

std::vector<std::string> LeaderElectionOptions::Validate() const {
  std::vector<std::string> errors;
  if (!leader_elect) return errors;
  if (resource_lock == "endpoints") {
    errors.push_back(
        "endpoints lock is removed, migrate to endpointsleases (using version "
        "v0.27.x)");
  } else if (resource_lock == "configmaps") {
    errors.push_back(
        "configmaps lock is removed, migrate to configmapsleases (using version "
        "v0.27.x)");
  } else if (resource_lock == "endpointsleases") {
    errors.push_back("endpointsleases lock is removed, migrate to leases");
  } else if (resource_lock == "configmapsleases") {
    errors.push_back("configmapsleases lock is removed, migrated to leases");
  } else if (resource_lock != "leases") {
    errors.push_back("Invalid lock-type " + resource_lock);
  }
  if (lease_duration <= renew_deadline) {
    errors.push_back("leaseDuration must be greater than renewDeadline");
  }
  if (renew_deadline.count() <= 1.2 * static_cast<double>(retry_period.count())) {
    errors.push_back("renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (lease_duration.count() <= 0) errors.push_back("leaseDuration must be greater than zero");
  if (retry_period.count() <= 0) errors.push_back("retryPeriod must be greater than zero");
  if (resource_name.empty()) errors.push_back("leader-elect-resource-name: Required value");
  if (resource_namespace.empty()) {
    errors.push_back("leader-elect-resource-namespace: Required value");
  }
  return errors;
}

void ServingOptions::AddFlags(options::FlagSet& fs) {
  fs.Section("Secure serving flags");
  fs.String("bind-address", &bind_address,
            "The IP address on which to listen for the --secure-port port.");
  fs.Int("secure-port", &secure_port,
         "The port on which to serve HTTPS with authentication and authorization. If 0, don't "
         "serve HTTPS at all.");
  fs.String("cert-dir", &cert_dir,
            "The directory where the TLS certs are located. If --tls-cert-file and "
            "--tls-private-key-file are provided, this flag will be ignored.");
  fs.String("tls-cert-file", &tls_cert_file,
            "File containing the default x509 Certificate for HTTPS.");
  fs.String("tls-private-key-file", &tls_private_key_file,
            "File containing the default x509 private key matching --tls-cert-file.");
  fs.Section("Authentication and authorization flags");
  fs.String("authentication-kubeconfig", &authentication_kubeconfig,
            "kubeconfig file pointing at the 'core' kubernetes server with enough rights to "
            "create tokenreviews.authentication.k8s.io. This is optional.");
  fs.Bool("authentication-skip-lookup", &authentication_skip_lookup,
          "If false, the authentication-kubeconfig will be used to lookup missing "
          "authentication configuration from the cluster.");
  fs.String("authorization-kubeconfig", &authorization_kubeconfig,
            "kubeconfig file pointing at the 'core' kubernetes server with enough rights to "
            "create subjectaccessreviews.authorization.k8s.io. This is optional.");
  fs.StringList("authorization-always-allow-paths", &authorization_always_allow_paths,
                "A list of HTTP paths to skip during authorization, i.e. these are authorized "
                "without contacting the 'core' kubernetes server.");
}

std::vector<std::string> ServingOptions::Validate() const {
  std::vector<std::string> errors;
  if (secure_port < 0 || secure_port > 65535) {
    errors.push_back("--secure-port " + std::to_string(secure_port) +
                     " must be between 0 and 65535, inclusive. 0 for turning off secure port");
  }
  if (tls_cert_file.empty() != tls_private_key_file.empty()) {
    errors.push_back("--tls-cert-file and --tls-private-key-file must be given together");
  }
  return errors;
}

void KubeControllerManagerOptions::AddFlags(options::FlagSet& fs) {
  generic.AddFlags(fs);
  leader_election.AddFlags(fs);
  serving.AddFlags(fs);
  fs.Section("Misc flags");
  fs.String("kubeconfig", &kubeconfig,
            "Path to kubeconfig file with authorization and master location information "
            "(the master location can be overridden by the master flag).");
  fs.String("master", &master,
            "The address of the Kubernetes API server (overrides any value in kubeconfig).");
  fs.Section("Service account controller flags");
  fs.Bool("use-service-account-credentials", &use_service_account_credentials,
          "If true, use individual service account credentials for each controller.");
  fs.String("service-account-private-key-file", &service_account_private_key_file,
            "Filename containing a PEM-encoded private RSA or ECDSA key used to sign service "
            "account tokens.");
  fs.String("root-ca-file", &root_ca_file,
            "If set, this root certificate authority will be included in service account's "
            "token secret. This must be a valid PEM-encoded CA bundle.");
  fs.Int("concurrent-serviceaccount-token-syncs", &concurrent_serviceaccount_token_syncs,
         "The number of service account token objects that are allowed to sync concurrently.");
  fs.Section("CSR signing controller flags");
  fs.String("cluster-signing-cert-file", &cluster_signing_cert_file,
            "Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped "
            "certificates.  If specified, no more specific --cluster-signing-* flag may be "
            "specified.");
  fs.String("cluster-signing-key-file", &cluster_signing_key_file,
            "Filename containing a PEM-encoded RSA or ECDSA private key used to sign "
            "cluster-scoped certificates.  If specified, no more specific --cluster-signing-* "
            "flag may be specified.");
  for (const auto& [flag, signer] : kSigningFlagSigners) {
    auto& files = cluster_signing_signer_files[flag];
    fs.String("cluster-signing-" + std::string(flag) + "-cert-file", &files.first,
              "Filename containing a PEM-encoded X509 CA certificate used to issue certificates "
              "for the kubernetes.io/" +
                  std::string(signer) +
                  " signer.  If specified, --cluster-signing-{cert,key}-file must not be set.");
    fs.String("cluster-signing-" + std::string(flag) + "-key-file", &files.second,
              "Filename containing a PEM-encoded RSA or ECDSA private key used to sign "
              "certificates for the kubernetes.io/" +
                  std::string(signer) +
                  " signer.  If specified, --cluster-signing-{cert,key}-file must not be set.");
  }
  fs.Duration("cluster-signing-duration", &cluster_signing_duration,
              "The max length of duration signed certificates will be given.  Individual CSRs "
              "may request shorter certs by setting spec.expirationSeconds.");
  fs.Section("Namespace controller flags");
  fs.Int("concurrent-namespace-syncs", &concurrent_namespace_syncs,
         "The number of namespace objects that are allowed to sync concurrently.");
  fs.Duration("namespace-sync-period", &namespace_sync_period,
              "The period for syncing namespace life-cycle updates");
  fs.Section("Garbage collector controller flags");
  fs.Int("concurrent-gc-syncs", &concurrent_gc_syncs,
         "The number of garbage collector workers that are allowed to sync concurrently.");
  fs.Bool("enable-garbage-collector", &enable_garbage_collector,
          "Enables the generic garbage collector. MUST be synced with the corresponding flag "
          "of the kube-apiserver.");
  fs.Section("Resource quota controller flags");
  fs.Duration("resource-quota-sync-period", &resource_quota_sync_period,
              "The period for syncing quota usage status in the system");
  fs.Int("concurrent-resource-quota-syncs", &concurrent_resource_quota_syncs,
         "The number of resource quotas that are allowed to sync concurrently.");
  fs.Section("TTL-after-finished controller flags");
  fs.Int("concurrent-ttl-after-finished-syncs", &concurrent_ttl_after_finished_syncs,
         "The number of ttl-after-finished-controller workers that are allowed to sync "
         "concurrently.");
  fs.Section("Logs flags");
  fs.Int("v", &verbosity, "number for the log level verbosity");
  fs.Shorthand('v', "v");
  fs.Bool("help", &help, "help for kube-controller-manager");
  fs.Shorthand('h', "help");
  fs.Bool("version", &version, "Print version information and quit");
}

std::vector<std::string> KubeControllerManagerOptions::Validate() const {
  std::vector<std::string> errors = ValidateControllers(generic.controllers);
  for (std::string& e : leader_election.Validate()) errors.push_back(std::move(e));
  for (std::string& e : serving.Validate()) errors.push_back(std::move(e));
  if (generic.kube_api_burst < 0) errors.push_back("--kube-api-burst must not be negative");
  // Upstream's CSRSigningControllerOptions.Validate, with its labels for each signer.
  bool any_signer_file = false;
  for (const auto& [flag, label] : kSigningFlagLabels) {
    auto files = cluster_signing_signer_files.find(flag);
    if (files == cluster_signing_signer_files.end()) continue;
    const auto& [cert, key] = files->second;
    any_signer_file = any_signer_file || !cert.empty() || !key.empty();
    if (cert.empty() && !key.empty()) {
      errors.push_back("\"" + std::string(label) + "\": cannot specify key without cert");
    } else if (!cert.empty() && key.empty()) {
      errors.push_back("\"" + std::string(label) + "\": cannot specify cert without key");
    }
  }
  if ((!cluster_signing_cert_file.empty() || !cluster_signing_key_file.empty()) &&
      any_signer_file) {
    errors.push_back(
        "cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file "
        "flags at the same time");
  }
  if (concurrent_gc_syncs < 1) errors.push_back("concurrent-gc-syncs must be greater than 0");
  return errors;
}

std::expected<controller::ControllerOptions, std::vector<std::string>>
KubeControllerManagerOptions::ControllerOptions() const {
  controller::ControllerOptions o;
  std::vector<std::string> errors;
  auto read = [&errors](const std::string& path, const char* what, std::string& into) {
    if (path.empty()) return;
    auto text = util::ReadFile(path);
    if (!text) {
      errors.push_back(std::string(what) + " " + path + ": " + text.error());
      return;
    }
    into = std::move(*text);
  };
  read(service_account_private_key_file, "error reading key for service account token controller:",
       o.service_account_private_key_pem);
  read(root_ca_file, "error parsing root-ca-file at", o.root_ca_pem);
  read(cluster_signing_cert_file, "--cluster-signing-cert-file", o.cluster_signing_cert_pem);
  read(cluster_signing_key_file, "--cluster-signing-key-file", o.cluster_signing_key_pem);
  for (const auto& [flag, files] : cluster_signing_signer_files) {
    if (files.first.empty() && files.second.empty()) continue;
    auto& pems = o.cluster_signing_per_signer[flag];
    const std::string cert_flag = "--cluster-signing-" + flag + "-cert-file";
    const std::string key_flag = "--cluster-signing-" + flag + "-key-file";
    read(files.first, cert_flag.c_str(), pems.first);
    read(files.second, key_flag.c_str(), pems.second);
  }
  o.concurrent_namespace_syncs = concurrent_namespace_syncs;
  o.namespace_sync_period =
      std::chrono::duration_cast<std::chrono::milliseconds>(namespace_sync_period);
  o.concurrent_gc_syncs = concurrent_gc_syncs;
  o.enable_garbage_collector = enable_garbage_collector;
  o.concurrent_serviceaccount_token_syncs = concurrent_serviceaccount_token_syncs;
  o.cluster_signing_duration =
      std::chrono::duration_cast<std::chrono::milliseconds>(cluster_signing_duration);
  o.resource_quota_sync_period =
      std::chrono::duration_cast<std::chrono::milliseconds>(resource_quota_sync_period);
  o.concurrent_resource_quota_syncs = concurrent_resource_quota_syncs;
  o.concurrent_ttl_after_finished_syncs = concurrent_ttl_after_finished_syncs;
  if (!errors.empty()) return std::unexpected(errors);
  return o;
}

}  // namespace controllermanager
