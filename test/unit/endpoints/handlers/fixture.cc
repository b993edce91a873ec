#include "test/unit/endpoints/handlers/fixture.h"

#include <catch2/catch.hpp>

#include "pkg/genericserver/admission/namespace_lifecycle.h"
#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/endpoints/request_info.h"
#include "pkg/master/registry/resources.h"

namespace testing {

CoreAPI::CoreAPI() {
  storage::StorageConfig config;
  config.backend = "memory";
  storage_ = std::move(*storage::StorageFactory::Open(config, io_));
  handler_ = std::make_unique<endpoints::GroupVersionHandler>("", "v1", nullptr);
  auto namespaces =
      std::make_shared<registry::Store>(master::resources::Namespaces(), storage_->Uncached());
  stores_["namespaces"] = namespaces;
  handler_->Add(namespaces);
  auto admission_stores = std::make_shared<admission::Stores>();
  admission_stores->Add(namespaces);
  auto lifecycle = admission::Chain({admission::NewNamespaceLifecycle(admission_stores)});
  for (auto& spec : {master::resources::ConfigMaps(), master::resources::Secrets(),
                     master::resources::Events(), master::resources::ServiceAccounts({}, {})}) {
    auto store = std::make_shared<registry::Store>(spec, storage_->Uncached(), lifecycle);
    stores_[spec->plural] = store;
    handler_->Add(store);
  }
  REQUIRE(Do("POST", "/api/v1/namespaces", R"({"metadata":{"name":"default"}})").status == 201);
}

CoreAPI::~CoreAPI() = default;

registry::Store& CoreAPI::Store(const std::string& plural) { return *stores_.at(plural); }

genericserver::RequestContext CoreAPI::Request(std::string method, std::string target,
                                               std::string body,
                                               const std::vector<std::string>& headers) {
  auto ctx = MakeRequest(std::move(method), std::move(target), std::move(body));
  for (const std::string& h : headers) {
    const size_t colon = h.find(':');
    ctx.request.headers.Add(h.substr(0, colon), h.substr(colon + 2));
  }
  auto info = endpoints::RequestInfoResolver().Resolve(ctx.request);
  REQUIRE(info);
  ctx.info = *info;
  return ctx;
}

Recorded CoreAPI::Do(std::string method, std::string target, std::string body,
                     std::vector<std::string> headers) {
  return Serve(*handler_, Request(std::move(method), std::move(target), std::move(body), headers));
}

Recorded CoreAPI::DoWhile(std::string method, std::string target,
                          std::function<Awaitable<void>()> alongside,
                          std::vector<std::string> headers) {
  return Serve(*handler_, Request(std::move(method), std::move(target), "", headers),
               std::move(alongside));
}

nlohmann::json CoreAPI::CreateConfigMap(const std::string& name, const nlohmann::json& data,
                                        const nlohmann::json& labels) {
  nlohmann::json cm = {{"metadata", {{"name", name}, {"labels", labels}}}, {"data", data}};
  auto r = Do("POST", "/api/v1/namespaces/default/configmaps", cm.dump());
  REQUIRE(r.status == 201);
  return r.Json();
}

}  // namespace testing
