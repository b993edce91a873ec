// The three servers chained by delegation, exercised in-process.
#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "cmd/kube-apiserver/app/server.h"
#include "test/unit/support/handler_harness.h"

namespace {
genericserver::CompletedConfig OpenConfig() {
  genericserver::Config c;  // anonymous users, AlwaysAllow
  return c.Complete();
}

std::unique_ptr<storage::StorageFactory> MemoryStorage(const genericserver::CompletedConfig& c) {
  storage::StorageConfig s;
  s.backend = "memory";
  return std::move(*storage::StorageFactory::Open(s, *c.Get().io));
}
}  // namespace

TEST_CASE("delegation: each server answers its own paths, the rest fall through") {
  auto config = OpenConfig();
  auto storage = MemoryStorage(config);
  app::ServerChain chain = app::CreateServerChain(config, *storage);
  chain.Outermost().PrepareRun();
  genericserver::Handler& front = chain.Outermost().FilteredHandler();

  auto apis = testing::Serve(front, testing::MakeRequest("GET", "/apis"));
  REQUIRE(apis.status == 200);
  std::vector<std::string> names;
  const nlohmann::json list = apis.Json();
  for (const auto& g : list["groups"]) names.push_back(g["name"]);
  // Upstream's order: by group priority (18000, 17800, ... 16200), then by name.
  CHECK(names == std::vector<std::string>{
                     "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io",
                     "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
                     "networking.k8s.io", "policy", "rbac.authorization.k8s.io", "storage.k8s.io",
                     "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
                     "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io",
                     "flowcontrol.apiserver.k8s.io"});

  auto core = testing::Serve(front, testing::MakeRequest("GET", "/api"));
  CHECK(core.Json()["kind"] == "APIVersions");
  auto ext = testing::Serve(front, testing::MakeRequest("GET", "/apis/apiextensions.k8s.io/v1"));
  CHECK(ext.Json()["groupVersion"] == "apiextensions.k8s.io/v1");
  auto reg = testing::Serve(front, testing::MakeRequest("GET", "/apis/apiregistration.k8s.io"));
  CHECK(reg.Json()["kind"] == "APIGroup");
  auto none = testing::Serve(front, testing::MakeRequest("GET", "/no/such/path"));
  CHECK(none.status == 404);
  CHECK(none.Json()["reason"] == "NotFound");

  // Which server owns what: asked without the servers in front of them.
  genericserver::Handler& master = chain.master->GenericServer().UnprotectedHandler();
  genericserver::Handler& extensions = chain.extensions->GenericServer().UnprotectedHandler();
  CHECK(testing::Serve(master, testing::MakeRequest("GET", "/api")).status == 200);
  CHECK(
      testing::Serve(master, testing::MakeRequest("GET", "/apis/apiextensions.k8s.io/v1")).status ==
      200);
  CHECK(
      testing::Serve(master, testing::MakeRequest("GET", "/apis/apiregistration.k8s.io")).status ==
      404);
  CHECK(testing::Serve(extensions, testing::MakeRequest("GET", "/api")).status == 404);
  CHECK(testing::Serve(extensions, testing::MakeRequest("GET", "/apis/apiextensions.k8s.io"))
            .status == 200);
}

TEST_CASE("delegation: filters run once, on the outermost server") {
  auto config = OpenConfig();
  auto storage = MemoryStorage(config);
  app::ServerChain chain = app::CreateServerChain(config, *storage);
  chain.Outermost().PrepareRun();
  testing::Serve(chain.Outermost().FilteredHandler(),
                 testing::MakeRequest("GET", "/apis/apiextensions.k8s.io/v1"));
  std::string metrics = config.Get().metrics->Render();
  CHECK(metrics.find("apiserver_request_total{code=\"200\",component=\"apiserver\",dry_run=\"\","
                     "group=\"\",resource=\"\",scope=\"\",subresource=\"\",verb=\"GET\","
                     "version=\"\"} 1\n") != std::string::npos);
}

TEST_CASE("delegation: the outermost server reports and runs the hooks of the whole chain") {
  auto config = OpenConfig();
  genericserver::EmptyDelegate end;
  auto inner = config.New("inner", end);
  inner->AddPostStartHook("inner-hook", []() -> Awaitable<std::expected<void, std::string>> {
    co_return std::expected<void, std::string>();
  });
  inner->AddReadyzChecks({{"inner-ready", [] { return std::expected<void, std::string>(); }}});
  auto outer = config.New("outer", *inner);
  outer->PrepareRun();
  REQUIRE(outer->PostStartHooks().size() == 1);

  auto before = testing::Serve(outer->FilteredHandler(), testing::MakeRequest("GET", "/readyz"));
  CHECK(before.status == 500);
  CHECK(before.body.find("[-]poststarthook/inner-hook failed: reason withheld") !=
        std::string::npos);
  CHECK(before.body.find("[+]inner-ready ok") != std::string::npos);

  boost::asio::io_context io;
  boost::asio::co_spawn(io, outer->PostStartHooks()[0]->Run(), [](auto, auto) {});
  io.run();
  auto after =
      testing::Serve(outer->FilteredHandler(), testing::MakeRequest("GET", "/readyz?verbose"));
  CHECK(after.status == 200);
  CHECK(after.body.find("[+]poststarthook/inner-hook ok") != std::string::npos);
  CHECK(after.body.ends_with("[+]shutdown ok\nreadyz check passed\n"));

  config.Get().lifecycle->InitiateShutdown();
  auto stopping = testing::Serve(outer->FilteredHandler(), testing::MakeRequest("GET", "/readyz"));
  CHECK(stopping.status == 500);
  CHECK(stopping.body.find("[-]shutdown failed") != std::string::npos);
  // Liveness does not depend on shutdown.
  CHECK(testing::Serve(outer->FilteredHandler(), testing::MakeRequest("GET", "/livez")).status ==
        200);
}

TEST_CASE(
    "delegation: hooks are listed innermost first, in the order they were added, and a "
    "delegate's late hook runs") {
  auto config = OpenConfig();
  genericserver::EmptyDelegate end;
  auto inner = config.New("inner", end);
  auto done = []() -> Awaitable<std::expected<void, std::string>> {
    co_return std::expected<void, std::string>();
  };
  inner->AddPostStartHook("inner-1", done);
  inner->AddPostStartHook("inner-2", done);
  auto outer = config.New("outer", *inner);
  outer->AddPostStartHook("outer-1", done);
  outer->AddBootSequenceHealthCheck(
      {"outer-check", [] { return std::expected<void, std::string>(); }});
  outer->AddPostStartHook("outer-2", done);
  // Added to the delegate after the front server was built: still part of the chain.
  inner->AddPostStartHook("inner-late", done);
  outer->AddReadyzChecks({{"outer-ready", [] { return std::expected<void, std::string>(); }}});
  outer->PrepareRun();

  std::vector<std::string> names;
  for (const auto& hook : outer->PostStartHooks()) names.push_back(hook->Name());
  CHECK(names ==
        std::vector<std::string>{"inner-1", "inner-2", "inner-late", "outer-1", "outer-2"});
  boost::asio::io_context io;
  for (const auto& hook : outer->PostStartHooks()) {
    boost::asio::co_spawn(io, hook->Run(), [](auto, auto) {});
  }
  io.run();
  auto ready =
      testing::Serve(outer->FilteredHandler(), testing::MakeRequest("GET", "/readyz?verbose"));
  CHECK(ready.body ==
        "[+]ping ok\n[+]log ok\n[+]outer-ready ok\n[+]poststarthook/inner-1 ok\n"
        "[+]poststarthook/inner-2 ok\n[+]poststarthook/inner-late ok\n"
        "[+]poststarthook/outer-1 ok\n[+]outer-check ok\n[+]poststarthook/outer-2 ok\n"
        "[+]shutdown ok\nreadyz check passed\n");
  auto live =
      testing::Serve(outer->FilteredHandler(), testing::MakeRequest("GET", "/livez?verbose"));
  CHECK(live.body ==
        "[+]ping ok\n[+]log ok\n[+]poststarthook/inner-1 ok\n[+]poststarthook/inner-2 ok\n"
        "[+]poststarthook/inner-late ok\n[+]poststarthook/outer-1 ok\n[+]outer-check ok\n"
        "[+]poststarthook/outer-2 ok\nlivez check passed\n");
}
