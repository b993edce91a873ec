#include "pkg/controllermanager/controllermanager.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/kubeconfig.h"
#include "pkg/client/leaderelection/leader_elector.h"
#include "pkg/controllermanager/controller_table.h"
#include "pkg/controllermanager/service_account_credentials.h"
#include "pkg/controllermanager/serving.h"
#include "pkg/controllermanager/start_controllers.h"
#include "pkg/genericserver/server/secure_serving.h"
#include "pkg/genericserver/server/version.h"
#include "pkg/pki/pki.h"
#include "pkg/util/file.h"
#include "pkg/util/log.h"
#include "pkg/util/uuid.h"

namespace controllermanager {

namespace net = boost::asio;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr char kComponent[] = "kube-controller-manager";

// Ends the process at once, as upstream's klog.FlushAndExit: log lines are already written
// (one write(2) each), and nothing else needs to wind down.
[[noreturn]] void Exit(int code) { std::_Exit(code); }

std::string Hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

std::string Seconds(util::Duration d) { return util::FormatDuration(d); }

json Configz(const KubeControllerManagerOptions& o) {
  return {{"kubecontrollermanager.config.k8s.io",
           {{"Generic",
             {{"Port", o.serving.secure_port},
              {"Address", o.serving.bind_address},
              {"MinResyncPeriod", Seconds(o.generic.min_resync_period)},
              {"ClientConnection",
               {{"Kubeconfig", o.kubeconfig},
                {"AcceptContentTypes", ""},
                {"ContentType", o.generic.kube_api_content_type},
                {"QPS", o.generic.kube_api_qps},
                {"Burst", o.generic.kube_api_burst}}},
              {"ControllerStartInterval", Seconds(o.generic.controller_start_interval)},
              {"LeaderElection",
               {{"LeaderElect", o.leader_election.leader_elect},
                {"LeaseDuration", Seconds(o.leader_election.lease_duration)},
                {"RenewDeadline", Seconds(o.leader_election.renew_deadline)},
                {"RetryPeriod", Seconds(o.leader_election.retry_period)},
                {"ResourceLock", o.leader_election.resource_lock},
                {"ResourceName", o.leader_election.resource_name},
                {"ResourceNamespace", o.leader_election.resource_namespace}}},
              {"Controllers", o.generic.controllers}}},
            {"NamespaceController",
             {{"NamespaceSyncPeriod", Seconds(o.namespace_sync_period)},
              {"ConcurrentNamespaceSyncs", o.concurrent_namespace_syncs}}},
            {"GarbageCollectorController",
             {{"EnableGarbageCollector", o.enable_garbage_collector},
              {"ConcurrentGCSyncs", o.concurrent_gc_syncs}}},
            {"ResourceQuotaController",
             {{"ResourceQuotaSyncPeriod", Seconds(o.resource_quota_sync_period)},
              {"ConcurrentResourceQuotaSyncs", o.concurrent_resource_quota_syncs}}},
            {"SAController",
             {{"ServiceAccountKeyFile", o.service_account_private_key_file},
              {"ConcurrentSATokenSyncs", o.concurrent_serviceaccount_token_syncs},
              {"RootCAFile", o.root_ca_file}}}}}};
}

Awaitable<void> Sleep(std::chrono::milliseconds d) {
  net::steady_timer timer(co_await net::this_coro::executor, d);
  co_await timer.async_wait(net::use_awaitable);
}

// upstream's WaitForAPIServer: /healthz answering "ok", polled every second for 10 s.
Awaitable<bool> WaitForAPIServer(client::RestClient& c) {
  for (int i = 0; i < 10; ++i) {
    const std::string no_body, no_type, accept = "*/*";
    auto r = co_await c.Do("GET", "/healthz", no_body, no_type, accept, std::chrono::seconds(5));
    if (r && r->status == 200) co_return true;
    co_await Sleep(std::chrono::seconds(1));
  }
  co_return false;
}

// The serving certificate: the given files, or a self-signed pair for localhost written
// under --cert-dir (a private temporary directory when none is given).
std::expected<genericserver::SecureServingInfo, std::string> ServingInfo(
    const ServingOptions& o, const std::string& client_ca_pem) {
  genericserver::SecureServingInfo info;
  info.bind_address = o.bind_address;
  info.port = o.secure_port;
  std::string dir = o.cert_dir;
  if (dir.empty()) {
    char tmpl[] = "/tmp/kube-controller-manager-XXXXXX";
    if (!mkdtemp(tmpl)) return std::unexpected("creating a directory for the serving certificate");
    dir = tmpl;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!o.tls_cert_file.empty()) {
    info.cert_file = o.tls_cert_file;
    info.key_file = o.tls_private_key_file;
  } else {
    info.cert_file = (fs::path(dir) / "kube-controller-manager.crt").string();
    info.key_file = (fs::path(dir) / "kube-controller-manager.key").string();
    const std::string stamp = std::to_string(std::time(nullptr));
    auto ca = pki::GenerateCA("localhost-ca@" + stamp, std::chrono::hours(24 * 365));
    if (!ca) return std::unexpected("error creating self-signed certificates: " + ca.error());
    pki::CertRequest request;
    request.common_name = "localhost@" + stamp;
    request.dns_names = {"localhost"};
    request.ip_addresses = {"127.0.0.1"};
    request.server_auth = true;
    auto pair = pki::GenerateSigned(*ca, request);
    if (!pair) return std::unexpected("error creating self-signed certificates: " + pair.error());
    if (auto w = util::WriteFileAtomic(info.cert_file, pair->cert_pem + ca->cert_pem, 0644); !w) {
      return std::unexpected(w.error());
    }
    if (auto w = util::WriteFileAtomic(info.key_file, pair->key_pem, 0600); !w) {
      return std::unexpected(w.error());
    }
  }
  if (!client_ca_pem.empty()) {
    const std::string path = (fs::path(dir) / "client-ca.crt").string();
    if (auto w = util::WriteFileAtomic(path, client_ca_pem, 0644); !w) {
      return std::unexpected(w.error());
    }
    info.client_ca_files.push_back(path);
  }
  return info;
}

// The per-controller clients of --use-service-account-credentials.
struct ClientsByName {
  std::mutex mu;  // guards clients
  std::map<std::string, std::shared_ptr<client::RestClient>> clients;
};

struct State {
  const KubeControllerManagerOptions& options;
  net::io_context& io;
  std::shared_ptr<client::RestClient> client;
  std::shared_ptr<HealthChecks> checks = std::make_shared<HealthChecks>();
  std::shared_ptr<client::LeaderElector> elector;
  std::unique_ptr<genericserver::SecureServer> server;
  genericserver::HandlerPtr handler;
  controller::ControllerContext context;
  std::atomic<bool> leading{false};
};

// Upstream's run(): the controller context, StartControllers, then the informers.
Awaitable<void> RunControllers(State& s) {
  if (!(co_await WaitForAPIServer(*s.client))) {
    KLOG_ERROR << "\"Error building controller context\" err=\"failed to wait for apiserver "
                  "being healthy: timed out waiting for the condition\"";
    Exit(1);
  }
  auto started = co_await StartControllers(s.context, s.options.generic.controllers,
                                           s.options.generic.controller_start_interval,
                                           ControllerInitializers());
  if (!started) {
    KLOG_ERROR << "\"Error starting controllers\" err=\"" << started.error() << "\"";
    Exit(1);
  }
  s.checks->Add(std::move(started->checks));
  s.context.informers->Start();
  *s.context.informers_started = true;
}

Awaitable<void> RunAsync(State& s) {
  const KubeControllerManagerOptions& o = s.options;
  const std::string host = Hostname();
  s.context.io = s.io.get_executor();
  s.context.client = s.client;
  if (o.use_service_account_credentials) {
    // One client per controller, made on first use; a client that cannot be made (its
    // TLS settings are the root client's, which loaded) falls back to the root one.
    s.context.client_for = [root = s.client, io = s.io.get_executor(),
                            made = std::make_shared<ClientsByName>()](const std::string& name) {
      std::lock_guard lock(made->mu);
      auto& c = made->clients[name];
      if (!c) {
        auto client = ServiceAccountClient(root, name, io);
        if (!client) KLOG_ERROR << "client for " << name << ": " << client.error();
        c = client ? *client : root;
      }
      return c;
    };
  } else {
    s.context.client_for = [c = s.client](const std::string&) { return c; };
  }
  s.context.informers =
      std::make_shared<client::SharedInformerFactory>(s.client, s.io.get_executor());
  s.context.recorder = client::EventRecorder::New(s.client, kComponent, host, s.io.get_executor());

  if (o.leader_election.leader_elect) {
    client::LeaderElectionConfig le;
    le.lock_namespace = o.leader_election.resource_namespace;
    le.lock_name = o.leader_election.resource_name;
    le.identity = host + "_" + util::NewUUID();
    le.lease_duration =
        std::chrono::duration_cast<std::chrono::milliseconds>(o.leader_election.lease_duration);
    le.renew_deadline =
        std::chrono::duration_cast<std::chrono::milliseconds>(o.leader_election.renew_deadline);
    le.retry_period =
        std::chrono::duration_cast<std::chrono::milliseconds>(o.leader_election.retry_period);
    le.on_started_leading = [&s] {
      s.leading = true;
      net::co_spawn(s.io, RunControllers(s), net::detached);
    };
    le.on_stopped_leading = [] {
      KLOG_ERROR << "\"leaderelection lost\"";
      Exit(1);
    };
    auto recorder = s.context.recorder;
    const std::string ns = le.lock_namespace, name = le.lock_name;
    le.on_event = [recorder, ns, name](const std::string& reason, const std::string& message) {
      client::ObjectReference lease{"coordination.k8s.io/v1", "Lease", ns, name, "", ""};
      recorder->Event(lease, client::kEventNormal, reason, message);
    };
    s.elector = client::LeaderElector::New(s.client, std::move(le), s.io.get_executor());
    s.checks->Add({{"leaderElection", [elector = s.elector] { return elector->Check(); }}});
  }

  if (o.serving.secure_port != 0) {
    std::string client_ca;
    if (!o.serving.authentication_skip_lookup) {
      auto cm = co_await s.client->Get(
          "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
      if (cm) {
        client_ca = cm->value("data", json::object()).value("client-ca-file", "");
      } else {
        KLOG_WARNING << "Unable to get configmap/extension-apiserver-authentication in "
                        "kube-system: "
                     << cm.error().String();
      }
    }
    auto info = ServingInfo(o.serving, client_ca);
    if (!info) {
      KLOG_ERROR << info.error();
      Exit(1);
    }
    ServingConfig serving;
    serving.checks = s.checks;
    serving.delegate = s.client;
    serving.always_allow_paths = o.serving.authorization_always_allow_paths;
    serving.configz = [&o] { return Configz(o).dump(); };
    serving.metrics = [&s] {
      std::string m;
      m += "# HELP leader_election_master_status [ALPHA] Gauge of if the reporting system is "
           "master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the "
           "string used to identify the lease. Please make sure to group by name.\n";
      m += "# TYPE leader_election_master_status gauge\n";
      m += "leader_election_master_status{name=\"" + s.options.leader_election.resource_name +
           "\"} " + (s.elector && s.elector->IsLeader() ? "1" : "0") + "\n";
      m += "# HELP rest_client_requests_total [ALPHA] Number of HTTP requests, partitioned by "
           "status code, method, and host.\n# TYPE rest_client_requests_total counter\n";
      m += "rest_client_requests_total " + std::to_string(s.client->RequestCount()) + "\n";
      return m;
    };
    s.handler = NewServingHandler(std::move(serving));
    auto server = genericserver::SecureServer::Create(s.io, *info, *s.handler);
    if (!server) {
      KLOG_ERROR << "failed to create listener: " << server.error();
      Exit(1);
    }
    s.server = std::move(*server);
    s.server->Start();
    KLOG_INFO << "Serving securely on " << o.serving.bind_address << ":" << s.server->Port();
  }

  if (s.elector) {
    s.elector->Run();
  } else {
    co_await RunControllers(s);
  }
}

}  // namespace

int Run(const KubeControllerManagerOptions& o) {
  KLOG_INFO << "\"Starting\" version=\"" << genericserver::BuildVersion().git_version << "\"";
  client::KubeconfigOverrides overrides;
  overrides.master = o.master;
  std::expected<client::RestConfig, std::string> config =
      o.kubeconfig.empty() && o.master.empty()
          ? std::unexpected(std::string("invalid configuration: no configuration has been "
                                        "provided, try setting KUBERNETES_MASTER environment "
                                        "variable"))
          : client::LoadKubeconfig(o.kubeconfig, overrides);
  if (!config) {
    KLOG_ERROR << config.error();
    return 1;
  }
  config->qps = o.generic.kube_api_qps;
  config->burst = o.generic.kube_api_burst;
  auto controller_options = o.ControllerOptions();
  if (!controller_options) {
    for (const std::string& e : controller_options.error()) KLOG_ERROR << e;
    return 1;
  }
  if (controller_options->root_ca_pem.empty()) controller_options->root_ca_pem = config->ca_pem;

  net::io_context io;
  auto client = client::RestClient::New(*config, kComponent, io.get_executor());
  if (!client) {
    KLOG_ERROR << client.error();
    return 1;
  }
  State state{o, io, *client};
  state.context.options = *controller_options;

  net::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io](const boost::system::error_code& ec, int) {
    if (!ec) io.stop();
  });
  net::co_spawn(io, RunAsync(state), net::detached);
  const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([&io] { io.run(); });
  io.run();
  for (std::thread& t : pool) t.join();
  // Stopped by a signal: the informers' and controllers' coroutines are abandoned with the
  // io_context; nothing they hold needs more than memory.
  Exit(0);
}

}  // namespace controllermanager
