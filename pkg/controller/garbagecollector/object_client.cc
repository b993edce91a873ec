#include "pkg/controller/garbagecollector/object_client.h"

#include <nlohmann/json.hpp>

namespace controller::garbagecollector {

using nlohmann::json;

namespace {

constexpr char kMetadataAccept[] =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

client::Result<ObjectMeta> MetaFromResponse(const client::RawResponse& r) {
  if (r.status < 200 || r.status > 299) {
    return std::unexpected(client::ErrorFromResponse(r.status, r.body));
  }
  json parsed = json::parse(r.body, nullptr, false);
  if (!parsed.is_object()) {
    return std::unexpected(client::ApiError{0, "", "the server's answer is not JSON"});
  }
  return ParseObjectMeta(parsed);
}

class RestObjectClient : public ObjectClient {
 public:
  explicit RestObjectClient(std::shared_ptr<client::RestClient> client)
      : client_(std::move(client)) {}

  Awaitable<client::Result<ObjectMeta>> Get(client::GroupVersionResource gvr,
                                            std::string namespace_name, std::string name) override {
    std::string path = client::ResourcePath(gvr, namespace_name, name);
    auto r =
        co_await client_->Do("GET", std::move(path), std::string(), std::string(), kMetadataAccept);
    if (!r) co_return std::unexpected(r.error());
    co_return MetaFromResponse(*r);
  }

  Awaitable<client::Result<void>> Delete(client::GroupVersionResource gvr,
                                         std::string namespace_name, std::string name,
                                         DeleteOptions options) override {
    json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
    if (!options.precondition_uid.empty()) {
      body["preconditions"] = {{"uid", options.precondition_uid}};
    }
    if (!options.propagation_policy.empty()) {
      body["propagationPolicy"] = options.propagation_policy;
    }
    std::string path = client::ResourcePath(gvr, namespace_name, name);
    auto r = co_await client_->Delete(std::move(path), &body);
    if (!r) co_return std::unexpected(r.error());
    co_return client::Result<void>();
  }

  Awaitable<client::Result<ObjectMeta>> Patch(client::GroupVersionResource gvr,
                                              std::string namespace_name, std::string name,
                                              std::string content_type, std::string body) override {
    std::string path = client::ResourcePath(gvr, namespace_name, name);
    auto r = co_await client_->Do("PATCH", std::move(path), std::move(body),
                                  std::move(content_type), kMetadataAccept);
    if (!r) co_return std::unexpected(r.error());
    co_return MetaFromResponse(*r);
  }

 private:
  std::shared_ptr<client::RestClient> client_;
};

}  // namespace

std::shared_ptr<ObjectClient> NewRestObjectClient(std::shared_ptr<client::RestClient> client) {
  return std::make_shared<RestObjectClient>(std::move(client));
}

}  // namespace controller::garbagecollector
