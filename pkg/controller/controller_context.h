#pragma once
// What every controller's init function gets (upstream's ControllerContext): the io
// executor, the clients, the shared informer factory, the event recorder, the options, and
// the signal that the shared informers have started. An init function registers its
// informers and handlers and spawns its workers; it must not block.
//
// Threads: the context is made before any controller starts and is read-only afterwards,
// except `informers_started` (an atomic) and the thread-safe objects it points to.

#include <atomic>
#include <chrono>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "pkg/client/informer/shared_informer.h"
#include "pkg/client/record/event_recorder.h"
#include "pkg/client/rest/client.h"
#include "pkg/genericserver/server/healthz.h"

namespace controller {

// The options the controllers read (kube-controller-manager's flags of each controller).
struct ControllerOptions {
  int concurrent_namespace_syncs = 10;
  std::chrono::milliseconds namespace_sync_period{std::chrono::minutes(5)};
  int concurrent_gc_syncs = 20;
  bool enable_garbage_collector = true;
  int concurrent_serviceaccount_token_syncs = 5;
  std::string service_account_private_key_pem;
  std::string root_ca_pem;  // --root-ca-file, else the kubeconfig's CA
  std::string cluster_signing_cert_pem, cluster_signing_key_pem;
  // --cluster-signing-<signer>-{cert,key}-file by <signer> (kubelet-serving, kubelet-client,
  // kube-apiserver-client, legacy-unknown): the (cert, key) PEM of the signers given.
  std::map<std::string, std::pair<std::string, std::string>> cluster_signing_per_signer;
  std::chrono::milliseconds cluster_signing_duration{std::chrono::hours(8760)};
  std::chrono::milliseconds resource_quota_sync_period{std::chrono::minutes(5)};
  int concurrent_resource_quota_syncs = 5;
  int concurrent_ttl_after_finished_syncs = 5;
};

struct ControllerContext {
  boost::asio::any_io_executor io;
  // The controller manager's own client (its kubeconfig's credentials).
  std::shared_ptr<client::RestClient> client;
  // A client for one controller; with --use-service-account-credentials each controller acts
  // as its own service account, otherwise this is `client`.
  std::function<std::shared_ptr<client::RestClient>(const std::string& controller)> client_for;
  std::shared_ptr<client::SharedInformerFactory> informers;
  std::shared_ptr<client::EventRecorder> recorder;
  ControllerOptions options;
  // Set once the shared informers were started (controllers that make informers of their
  // own, as the garbage collector, start them after it).
  std::shared_ptr<std::atomic<bool>> informers_started = std::make_shared<std::atomic<bool>>(false);
};

// An init function's outcome: started (with health checks, if any) or declined (skipped,
// with why). An error ends the controller manager.
struct InitResult {
  bool started = false;
  std::string skip_reason{};
  std::vector<genericserver::HealthCheck> checks{};
};
using InitFunc = std::function<std::expected<InitResult, std::string>(ControllerContext&)>;

}  // namespace controller
