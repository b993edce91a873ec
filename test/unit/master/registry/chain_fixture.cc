#include "test/unit/master/registry/chain_fixture.h"

#include <catch2/catch.hpp>

namespace testing {
namespace {

genericserver::CompletedConfig OpenConfig() {
  genericserver::Config c;  // anonymous users, AlwaysAllow
  return c.Complete();
}

}  // namespace

Chain::Chain(master::Config master) : config_(OpenConfig()) {
  storage::StorageConfig s;
  s.backend = "memory";
  storage_ = std::move(*storage::StorageFactory::Open(s, *config_.Get().io));
  chain_ = std::make_unique<app::ServerChain>(app::CreateServerChain(config_, *storage_, master));
  chain_->Outermost().PrepareRun();
  REQUIRE(Do("POST", "/api/v1/namespaces", R"({"metadata":{"name":"default"}})").status == 201);
}

Chain::~Chain() = default;

Recorded Chain::Do(std::string method, std::string target, std::string body,
                   std::vector<std::string> headers) {
  auto ctx = MakeRequest(std::move(method), std::move(target), std::move(body));
  bool typed = false;
  for (const std::string& h : headers) {
    const size_t colon = h.find(':');
    ctx.request.headers.Add(h.substr(0, colon), h.substr(colon + 2));
    typed = typed || h.starts_with("Content-Type");
  }
  if (!typed && !ctx.request.body.empty()) {
    ctx.request.headers.Add("Content-Type", "application/json");
  }
  return Serve(chain_->Outermost().FilteredHandler(), std::move(ctx));
}

nlohmann::json Chain::Create(const std::string& collection, const nlohmann::json& object) {
  auto r = Do("POST", collection, object.dump());
  INFO(r.body);
  REQUIRE(r.status == 201);
  return r.Json();
}

}  // namespace testing
