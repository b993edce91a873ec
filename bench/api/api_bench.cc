// API benchmarks over TLS with keep-alive, each against a ceiling measured in the same run:
// a bare Beast TLS server (same certificate, same threads) answering with the bytes the real
// server answered, so the ratio is what the API machinery costs on top of HTTP and TLS.
//  1. GET one configmap, in JSON and in protobuf;
//  2. LIST of 500 configmaps, in JSON and in protobuf;
//  3. CREATE of 1 KiB configmaps;
//  4. WATCH fan-out: W watchers of one namespace, a writer creating objects 5 ms apart;
//     latency from sending the create to each watcher reading the event;
//  5. server-side APPLY of a 200-line Deployment (a change, and a no-op re-apply), against
//     the strategic merge patch of the same change on the same server, in the same run;
//  6. RBAC: a GET by a token user allowed by one of 10,000 RoleBindings and
//     ClusterRoleBindings, against the same GET on a server with AlwaysAllow.
//  7. AUDIT: a GET audited at Metadata level to a log file, against the same GET on a
//     server without auditing.
// Usage: api_bench [--binary=PATH] [--backend=sqlite|memory] [--seconds=N] [--connections=N]
//                  [--watchers=N] [--only=get|list|protobuf|create|apply|rbac|audit|watch]
//                  [--quick]
// (results: bench/README.md)
#include "bench/api/client.h"

namespace {

using namespace api_bench;

std::string ConfigMap(const std::string& name, size_t value_bytes) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
         R"(","labels":{"app":"bench"}},"data":{"value":")" + std::string(value_bytes, 'x') +
         "\"}}";
}

// A Deployment of about 200 lines of YAML: three containers with ports, environment,
// mounts, probes and resources, volumes and tolerations.
std::string Deployment(const std::string& name, int replicas) {
  std::string containers;
  for (int c = 0; c < 3; ++c) {
    const std::string n = std::to_string(c);
    std::string env;
    for (int e = 0; e < 6; ++e) {
      env += std::string(e ? "," : "") + R"({"name":"VAR_)" + std::to_string(e) +
             R"(","value":"value-)" + std::to_string(e) + R"("})";
    }
    containers +=
        std::string(c ? "," : "") + R"({"name":"c)" + n +
        R"(","image":"registry.example.com/app:1.)" + n + R"(","args":["--port=808)" + n +
        R"(","--verbose"],"ports":[{"name":"http)" + n + R"(","containerPort":808)" + n +
        R"(},{"name":"metrics)" + n + R"(","containerPort":909)" + n + R"(}],"env":[)" + env +
        R"(],"volumeMounts":[{"name":"config","mountPath":"/etc/app)" + n +
        R"("},{"name":"data","mountPath":"/data)" + n +
        R"("}],"readinessProbe":{"httpGet":{"path":"/ready","port":808)" + n +
        R"(},"periodSeconds":5},"resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}}})";
  }
  return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
         R"(","labels":{"app":"bench","tier":"web"},"annotations":{"owner":"bench"}},"spec":{"replicas":)" +
         std::to_string(replicas) +
         R"(,"selector":{"matchLabels":{"app":"bench"}},"template":{"metadata":{"labels":{"app":"bench"}},"spec":{"containers":[)" +
         containers +
         R"(],"volumes":[{"name":"config","configMap":{"name":"app"}},{"name":"data","emptyDir":{}}],"tolerations":[{"key":"dedicated","operator":"Equal","value":"bench","effect":"NoSchedule"}]}}}})";
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.binary = (fs::path(argv[0]).parent_path() / ".." / "cmd" / "kube-apiserver" / "kube-apiserver")
                 .string();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&a] { return a.substr(a.find('=') + 1); };
    if (a.starts_with("--binary=")) o.binary = value();
    if (a.starts_with("--backend=")) o.backend = value();
    if (a.starts_with("--seconds=")) o.seconds = std::stod(value());
    if (a.starts_with("--connections=")) o.connections = std::stoi(value());
    if (a.starts_with("--watchers=")) o.watchers = std::stoi(value());
    if (a.starts_with("--only=")) o.only = value();
    if (a.starts_with("--rounds=")) o.rounds = std::max(1, std::stoi(value()));
    if (a == "--quick") {
      o.seconds = 1;
      o.rounds = 1;
      o.watchers = 10;
      o.watch_events = 20;
    }
  }
  ::signal(SIGPIPE, SIG_IGN);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows as it happens
  const fs::path dir = fs::temp_directory_path() / ("kas-api-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct RemoveAtExit {  // declared before the processes: removed after they stopped
    fs::path dir;
    ~RemoveAtExit() { fs::remove_all(dir); }
  } remove_at_exit{dir};
  const fs::path pki = dir / "data" / "pki";
  const uint16_t port = FreePort();
  auto server = StartServer(o, dir, port);
  if (!WaitReady(pki, port)) {
    std::fprintf(stderr, "kube-apiserver did not become ready; see %s\n",
                 (dir / "server.log").c_str());
    return 1;
  }
  ssl::context ctx = ClientContext(pki);
  const std::string ns = "/api/v1/namespaces/default/configmaps";
  const std::string list_ns = "/api/v1/namespaces/kube-public/configmaps";

  // The objects, and the answers the ceiling will give.
  CeilingReplies replies;
  auto created = Once(ctx, port, http::verb::post, ns, ConfigMap("one", 200));
  replies.get = {200, "application/json", Once(ctx, port, http::verb::get, ns + "/one").body()};
  for (int i = 0; i < 500; ++i) {
    Once(ctx, port, http::verb::post, list_ns, ConfigMap("item-" + std::to_string(i), 200));
  }
  replies.list = {200, "application/json", Once(ctx, port, http::verb::get, list_ns).body()};
  replies.create = {201, "application/json", created.body()};
  const char* protobuf_type = "application/vnd.kubernetes.protobuf";
  replies.get_protobuf = {200, protobuf_type,
                          Once(ctx, port, http::verb::get, ns + "/one", "", kProtobuf).body()};
  replies.list_protobuf = {200, protobuf_type,
                           Once(ctx, port, http::verb::get, list_ns, "", kProtobuf).body()};
  std::string object = created.body();
  while (object.ends_with('\n')) object.pop_back();
  replies.event = R"({"type":"ADDED","object":)" + object + "}\n";

  // The ceiling in a process of its own, on the same number of threads as the server.
  net::io_context listen_io;
  tcp::acceptor acceptor(listen_io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  acceptor.listen();
  const uint16_t ceiling_port = acceptor.local_endpoint().port();
  const pid_t ceiling_pid = ::fork();
  if (ceiling_pid == 0) {
    Ceiling ceiling(pki, replies, acceptor);
    ceiling.Run(static_cast<int>(std::max(2u, std::thread::hardware_concurrency())));
    std::_Exit(0);
  }
  acceptor.close();
  Child ceiling(ceiling_pid);

  std::printf("backend %s, %d connections, %.0f s per measurement\n\n", o.backend.c_str(),
              o.connections, o.seconds);
  std::printf("%-20s %8s %9s %7s %9s  %13s  %13s  %7s\n", "", "ours/s", "ceiling/s", "ratio",
              "range", "ours p50 p99", "ceil p50 p99", "bytes");
  if (o.Runs("get")) {
    Compare(
        "GET one configmap", o, [&] { return Hammer(ctx, port, http::verb::get, ns + "/one", o); },
        [&] { return Hammer(ctx, ceiling_port, http::verb::get, ns + "/one", o); });
  }
  if (o.Runs("list")) {
    Compare(
        "LIST 500 configmaps", o, [&] { return Hammer(ctx, port, http::verb::get, list_ns, o); },
        [&] { return Hammer(ctx, ceiling_port, http::verb::get, list_ns, o); });
  }
  if (o.Runs("protobuf")) {
    Compare(
        "GET one (protobuf)", o,
        [&] { return Hammer(ctx, port, http::verb::get, ns + "/one", o, nullptr, 200, kProtobuf); },
        [&] {
          return Hammer(ctx, ceiling_port, http::verb::get, ns + "/one", o, nullptr, 200,
                        kProtobuf);
        });
    Compare(
        "LIST 500 (protobuf)", o,
        [&] { return Hammer(ctx, port, http::verb::get, list_ns, o, nullptr, 200, kProtobuf); },
        [&] {
          return Hammer(ctx, ceiling_port, http::verb::get, list_ns, o, nullptr, 200, kProtobuf);
        });
  }
  if (o.Runs("create")) {
    auto fresh = [](int i) { return ConfigMap("c" + std::to_string(i), 1024); };
    int round = 0;  // names stay fresh from one round to the next
    auto named = [&round, fresh](int i) { return fresh(round * 10'000'000 + i); };
    Compare(
        "CREATE 1 KiB", o,
        [&] {
          ++round;
          return Hammer(ctx, port, http::verb::post, ns, o, named, 201);
        },
        [&] { return Hammer(ctx, ceiling_port, http::verb::post, ns, o, named, 201); });
  }
  if (o.Runs("apply")) {
    // Each kind of write on an object of its own (an apply after a strategic merge patch of
    // the same field would conflict).
    const std::string deployments = "/apis/apps/v1/namespaces/default/deployments";
    constexpr char kApply[] = "application/apply-patch+yaml";
    constexpr char kStrategic[] = "application/strategic-merge-patch+json";
    Once(ctx, port, http::verb::patch, deployments + "/applied?fieldManager=bench",
         Deployment("applied", 1), kJSON, kApply);
    Once(ctx, port, http::verb::post, deployments, Deployment("patched", 1));
    auto replicas = [](int i) { return 2 + i % 2; };  // every request a change
    Compare(
        "APPLY change (vs SMP)", o,
        [&] {
          return Hammer(
              ctx, port, http::verb::patch, deployments + "/applied?fieldManager=bench", o,
              [&](int i) { return Deployment("applied", replicas(i)); }, 200, kJSON, kApply);
        },
        [&] {
          return Hammer(
              ctx, port, http::verb::patch, deployments + "/patched", o,
              [&](int i) { return R"({"spec":{"replicas":)" + std::to_string(replicas(i)) + "}}"; },
              200, kJSON, kStrategic);
        });
    Compare(
        "APPLY no-op (vs SMP)", o,
        [&] {
          return Hammer(
              ctx, port, http::verb::patch, deployments + "/applied?fieldManager=bench", o,
              [&](int) { return Deployment("applied", 2); }, 200, kJSON, kApply);
        },
        [&] {
          return Hammer(
              ctx, port, http::verb::patch, deployments + "/patched", o,
              [&](int) { return std::string(R"({"spec":{"replicas":2}})"); }, 200, kJSON,
              kStrategic);
        });
  }
  if (o.Runs("rbac")) {
    // Two more servers knowing the token user "bench": one RBAC with 10,000 bindings (9,000
    // RoleBindings in the namespace read, to other users, and 1,000 ClusterRoleBindings, to
    // groups; one more binds bench to a Role reading configmaps), one AlwaysAllow.
    std::ofstream(dir / "tokens.csv") << "bench-token,bench,uid-bench,\n";
    const std::string tokens = "--token-auth-file=" + (dir / "tokens.csv").string();
    struct Side {
      std::string mode;
      fs::path dir;
      uint16_t port = 0;
      std::unique_ptr<Child> server;
    };
    std::vector<Side> sides(2);
    sides[0].mode = "RBAC";
    sides[0].dir = dir / "rbac";
    sides[1].mode = "AlwaysAllow";
    sides[1].dir = dir / "allow";
    for (Side& side : sides) {
      fs::create_directories(side.dir);
      side.port = FreePort();
      side.server =
          StartServer(o, side.dir, side.port, {"--authorization-mode=" + side.mode, tokens});
      if (!WaitReady(side.dir / "data" / "pki", side.port)) {
        std::fprintf(stderr, "kube-apiserver (%s) did not become ready\n", side.mode.c_str());
        return 1;
      }
    }
    ssl::context admin = ClientContext(sides[0].dir / "data" / "pki");
    const uint16_t rbac_port = sides[0].port;
    const std::string rbac_api = "/apis/rbac.authorization.k8s.io/v1";
    const std::string role_ref =
        R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"reader"})";
    Once(admin, rbac_port, http::verb::post, rbac_api + "/namespaces/default/roles",
         R"({"metadata":{"name":"reader"},"rules":[{"verbs":["get"],"apiGroups":[""],)"
         R"("resources":["configmaps"]}]})");
    Once(admin, rbac_port, http::verb::post, rbac_api + "/clusterroles",
         R"({"metadata":{"name":"reader"},"rules":[{"verbs":["get"],"apiGroups":[""],)"
         R"("resources":["configmaps"]}]})");
    int failed = CreateMany(
        admin, rbac_port, rbac_api + "/namespaces/default/rolebindings", 9000, [&](int i) {
          return R"({"metadata":{"name":"b)" + std::to_string(i) + R"("},)" + role_ref +
                 R"(,"subjects":[{"kind":"User","name":"user-)" + std::to_string(i) + R"("}]})";
        });
    failed += CreateMany(admin, rbac_port, rbac_api + "/clusterrolebindings", 1000, [&](int i) {
      return R"({"metadata":{"name":"c)" + std::to_string(i) +
             R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
             R"("name":"reader"},"subjects":[{"kind":"Group","name":"group-)" +
             std::to_string(i) + R"("}]})";
    });
    Once(admin, rbac_port, http::verb::post, rbac_api + "/namespaces/default/rolebindings",
         R"({"metadata":{"name":"bench"},)" + role_ref +
             R"(,"subjects":[{"kind":"User","name":"bench"}]})");
    if (failed) std::fprintf(stderr, "  %d bindings were not created\n", failed);
    std::vector<ssl::context> as_bench;
    for (Side& side : sides) {
      ssl::context side_admin = ClientContext(side.dir / "data" / "pki");
      Once(side_admin, side.port, http::verb::post, ns, ConfigMap("one", 200));
      as_bench.push_back(ClientContext(side.dir / "data" / "pki", false));
    }
    bearer_token = "bench-token";
    // The binding reaches the authorizer through the watch cache: wait for the first 200.
    for (int i = 0; i < 500; ++i) {
      if (Once(as_bench[0], rbac_port, http::verb::get, ns + "/one").result_int() == 200) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    Compare(
        "GET, RBAC 10k (vs AA)", o,
        [&] { return Hammer(as_bench[0], rbac_port, http::verb::get, ns + "/one", o); },
        [&] { return Hammer(as_bench[1], sides[1].port, http::verb::get, ns + "/one", o); });
    bearer_token.clear();
  }
  if (o.Runs("audit")) {
    // Two more servers: one auditing every request at Metadata to a file, one not.
    std::ofstream(dir / "policy.yaml")
        << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n";
    std::vector<std::pair<fs::path, uint16_t>> sides = {{dir / "audited", 0}, {dir / "plain", 0}};
    std::vector<std::unique_ptr<Child>> servers;
    for (size_t i = 0; i < sides.size(); ++i) {
      fs::create_directories(sides[i].first);
      sides[i].second = FreePort();
      std::vector<std::string> args;
      if (i == 0) {
        args = {"--audit-policy-file=" + (dir / "policy.yaml").string(),
                "--audit-log-path=" + (sides[i].first / "audit.log").string()};
      }
      servers.push_back(StartServer(o, sides[i].first, sides[i].second, args));
      if (!WaitReady(sides[i].first / "data" / "pki", sides[i].second)) {
        std::fprintf(stderr, "kube-apiserver (audit side %zu) did not become ready\n", i);
        return 1;
      }
    }
    std::vector<ssl::context> admins;
    for (const auto& [side_dir, side_port] : sides) {
      admins.push_back(ClientContext(side_dir / "data" / "pki"));
      Once(admins.back(), side_port, http::verb::post, ns, ConfigMap("one", 200));
    }
    Compare(
        "GET, audit Metadata (vs none)", o,
        [&] { return Hammer(admins[0], sides[0].second, http::verb::get, ns + "/one", o); },
        [&] { return Hammer(admins[1], sides[1].second, http::verb::get, ns + "/one", o); });
    std::error_code ec;
    const std::string metrics =
        Once(admins[0], sides[0].second, http::verb::get, "/metrics").body();
    auto line = [&](const std::string& name) {
      const size_t at = metrics.find("\n" + name + " ");
      return at == std::string::npos
                 ? std::string("?")
                 : metrics.substr(at + name.size() + 2,
                                  metrics.find('\n', at + 1) - at - name.size() - 2);
    };
    // Dropped events would flatter the audited side: they are shown beside the log's size.
    std::printf("  audit log: %ju bytes, events %s, dropped %s\n",
                static_cast<uintmax_t>(fs::file_size(sides[0].first / "audit.log", ec)),
                line("apiserver_audit_event_total").c_str(),
                line("apiserver_audit_error_total{plugin=\"log\"}").c_str());
  }
  if (!o.Runs("watch")) return 0;

  // Watch fan-out, in its own namespace so the creates above are not replayed.
  Once(ctx, port, http::verb::post, "/api/v1/namespaces",
       R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"watched"}})");
  const std::string watched = "/api/v1/namespaces/watched/configmaps";
  const std::string rv = [&] {
    auto list = Once(ctx, port, http::verb::get, watched + "?limit=1").body();
    auto at = list.find("\"resourceVersion\":\"");
    return list.substr(at + 19, list.find('"', at + 19) - at - 19);
  }();
  const std::string watch_path = watched + "?watch=true&resourceVersion=" + rv;
  auto event = [](int i) { return ConfigMap("w" + std::to_string(i), 200); };
  const WatchResult w_ours = FanOut(ctx, port, watch_path, watched, o, event);
  const WatchResult w_ceil = FanOut(ctx, ceiling_port, watch_path, watched, o, event);
  std::printf(
      "\nWATCH fan-out: %d watchers, %d creates 5 ms apart (latency ms, create sent to "
      "event read)\n",
      o.watchers, o.watch_events);
  std::printf("%-10s %8s %8s %8s %12s\n", "", "p50", "p99", "max", "delivered");
  for (auto [name, r] : {std::pair{"ours", w_ours}, std::pair{"ceiling", w_ceil}}) {
    std::printf("%-10s %8.2f %8.2f %8.2f %6zu/%zu\n", name, r.p50, r.p99, r.max, r.delivered,
                r.expected);
  }
  return 0;
}
