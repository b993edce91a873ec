// Protobuf on the wire through the verb handlers: responses when Accept prefers protobuf
// (objects, lists, metadata, errors, watch frames), request bodies (objects, DeleteOptions),
// and resources whose kind has no message (custom resources), which stay JSON only.
#include <catch2/catch.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/messages.h"
#include "pkg/genericserver/apimachinery/protobuf/wire.h"
#include "pkg/genericserver/endpoints/request_info.h"
#include "pkg/genericserver/registry/strategy.h"
#include "test/unit/endpoints/handlers/fixture.h"
#include "test/unit/support/protobuf_body.h"

using nlohmann::json;
using testing::CoreAPI;
namespace pb = apimachinery::protobuf;

namespace {

constexpr char kCMs[] = "/api/v1/namespaces/default/configmaps";
const std::string kAcceptProtobuf = "Accept: application/vnd.kubernetes.protobuf";
// What client-go sends for built-in kinds.
const std::string kClientGo = "Accept: application/vnd.kubernetes.protobuf, application/json";

json FromProtobuf(const std::string& body) {
  auto envelope = pb::DecodeEnvelope(body);
  REQUIRE(envelope.has_value());
  auto object = pb::ToJSON(*envelope);
  REQUIRE(object.has_value());
  return *object;
}

// The frames of a protobuf watch stream: each a big-endian length and a WatchEvent.
std::vector<std::pair<std::string, json>> WatchFrames(std::string_view stream) {
  std::vector<std::pair<std::string, json>> events;
  while (stream.size() >= 4) {
    std::uint32_t size = 0;
    for (int i = 0; i < 4; ++i) size = size << 8 | static_cast<unsigned char>(stream[i]);
    REQUIRE(stream.size() >= 4 + size);
    pb::Reader reader(stream.substr(4, size));
    std::string type, raw;
    while (!reader.AtEnd()) {
      auto tag = reader.ReadTag();
      REQUIRE(tag.has_value());
      auto bytes = reader.ReadBytes();
      REQUIRE(bytes.has_value());
      if (tag->field == 1) type = *bytes;
      if (tag->field == 2) {  // RawExtension {1 raw}
        pb::Reader inner(*bytes);
        REQUIRE(inner.ReadTag().has_value());
        raw = *inner.ReadBytes();
      }
    }
    events.emplace_back(type, FromProtobuf(raw));
    stream.remove_prefix(4 + size);
  }
  CHECK(stream.empty());
  return events;
}

// A custom resource's handler: a kind without a protobuf message.
class Widgets {
 public:
  Widgets() {
    storage::StorageConfig config;
    config.backend = "memory";
    storage_ = std::move(*storage::StorageFactory::Open(config, io_));
    auto spec = std::make_shared<registry::ResourceSpec>();
    spec->group = "example.com";
    spec->version = "v1";
    spec->kind = "Widget";
    spec->plural = "widgets";
    spec->namespaced = false;
    spec->strategy = std::make_shared<registry::Strategy>();
    spec->Complete();
    handler_ = std::make_unique<endpoints::GroupVersionHandler>("example.com", "v1", nullptr);
    handler_->Add(std::make_shared<registry::Store>(spec, storage_->Uncached(), nullptr));
  }
  testing::Recorded Do(std::string method, std::string target, std::string body,
                       std::vector<std::string> headers) {
    auto ctx = testing::MakeRequest(std::move(method), std::move(target), std::move(body));
    for (const std::string& h : headers) {
      const size_t colon = h.find(':');
      ctx.request.headers.Add(h.substr(0, colon), h.substr(colon + 2));
    }
    ctx.info = *endpoints::RequestInfoResolver().Resolve(ctx.request);
    return testing::Serve(*handler_, std::move(ctx));
  }

 private:
  boost::asio::io_context io_;
  std::unique_ptr<storage::StorageFactory> storage_;
  std::unique_ptr<endpoints::GroupVersionHandler> handler_;
};

}  // namespace

TEST_CASE("protobuf responses: objects, lists, metadata and errors", "[handlers]") {
  CoreAPI api;
  const json created = api.CreateConfigMap("pb", {{"a", "1"}, {"b", "2"}}, {{"app", "x"}});
  auto got = api.Do("GET", std::string(kCMs) + "/pb", "", {kClientGo});
  REQUIRE(got.status == 200);
  CHECK(got.headers.Get("Content-Type") == "application/vnd.kubernetes.protobuf");
  CHECK(got.body.starts_with(std::string("k8s\0", 4)));
  CHECK(FromProtobuf(got.body) == created);

  auto list = api.Do("GET", kCMs, "", {kAcceptProtobuf});
  REQUIRE(list.status == 200);
  // The items of a protobuf list carry no apiVersion and kind, as upstream's.
  json as_json = api.Do("GET", kCMs).Json();
  for (json& item : as_json["items"]) {
    item.erase("apiVersion");
    item.erase("kind");
  }
  CHECK(FromProtobuf(list.body) == as_json);

  auto metadata = api.Do(
      "GET", kCMs, "",
      {"Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;"
       "v=v1,application/json"});
  REQUIRE(metadata.status == 200);
  CHECK(metadata.headers.Get("Content-Type") ==
        "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");
  const json partial = FromProtobuf(metadata.body);
  CHECK(partial["kind"] == "PartialObjectMetadataList");
  CHECK(partial["items"][0]["metadata"]["labels"]["app"] == "x");

  // Errors are Status messages.
  auto missing = api.Do("GET", std::string(kCMs) + "/nope", "", {kAcceptProtobuf});
  REQUIRE(missing.status == 404);
  CHECK(missing.headers.Get("Content-Type") == "application/vnd.kubernetes.protobuf");
  const json status = FromProtobuf(missing.body);
  CHECK(status["kind"] == "Status");
  CHECK(status["reason"] == "NotFound");
  CHECK(status["code"] == 404);
  CHECK(status["message"] == "configmaps \"nope\" not found");

  // A Table has no message: protobuf alone is not acceptable for it, JSON after it is.
  auto table = api.Do("GET", kCMs, "",
                      {"Accept: application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,"
                       "application/json;as=Table;g=meta.k8s.io;v=v1"});
  CHECK(table.headers.Get("Content-Type") == "application/json;as=Table;v=v1;g=meta.k8s.io");
  CHECK(table.Json()["kind"] == "Table");
}

TEST_CASE("protobuf request bodies: objects and DeleteOptions", "[handlers]") {
  using namespace testing::protobuf_body;
  CoreAPI api;
  const std::vector<std::string> headers = {"Content-Type: application/vnd.kubernetes.protobuf",
                                            kAcceptProtobuf};
  // An update in protobuf answered in protobuf: client-go's typed clients.
  api.CreateConfigMap("u");
  const json stored = api.Do("GET", std::string(kCMs) + "/u").Json();
  json changed = stored;
  changed["data"]["k"] = "w";
  auto updated = api.Do("PUT", std::string(kCMs) + "/u", *pb::EncodeObject(changed), headers);
  REQUIRE(updated.status == 200);
  const json answer = FromProtobuf(updated.body);
  CHECK(answer["data"]["k"] == "w");
  CHECK(answer["metadata"]["resourceVersion"] != stored["metadata"]["resourceVersion"]);

  // DeleteOptions in protobuf, as client-go sends them: a stale uid precondition is a 409.
  const json options = {
      {"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"preconditions", {{"uid", "not-the-uid"}}}};
  // (DeleteOptions is a meta.k8s.io kind in every group-version; "v1" is the core one.)
  REQUIRE(pb::KnowsKind("v1", "DeleteOptions"));
  auto refused = api.Do("DELETE", std::string(kCMs) + "/u", *pb::EncodeObject(options), headers);
  CHECK(refused.status == 409);
  CHECK(FromProtobuf(refused.body)["reason"] == "Conflict");
  const json matching = {{"apiVersion", "v1"},
                         {"kind", "DeleteOptions"},
                         {"preconditions", {{"uid", stored["metadata"]["uid"]}}}};
  auto deleted = api.Do("DELETE", std::string(kCMs) + "/u", *pb::EncodeObject(matching), headers);
  CHECK(deleted.status == 200);
  CHECK(api.Do("GET", std::string(kCMs) + "/u").status == 404);

  // Truncated or garbled bodies are 400s, whatever the kind.
  for (const std::string& broken :
       {std::string("k8s\0", 4) + "\x0a\x05", std::string("k8s\0", 4) + "\x0a\xff\xff\xff\xff\x0f",
        Body("v1", "ConfigMap", "\x12\x80")}) {
    auto bad = api.Do("POST", kCMs, broken, headers);
    CHECK(bad.status == 400);
  }
}

TEST_CASE("protobuf watch: length-prefixed WatchEvent frames", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("before");
  auto watch =
      api.DoWhile("GET", std::string(kCMs) + "?watch=true&timeoutSeconds=1",
                  [&api]() -> Awaitable<void> {
                    // Let the watch start first: both run on one loop and this was spawned first.
                    boost::asio::steady_timer delay(co_await boost::asio::this_coro::executor,
                                                    std::chrono::milliseconds(100));
                    co_await delay.async_wait(boost::asio::use_awaitable);
                    json object = {{"metadata", {{"name", "during"}}}};
                    registry::WriteOptions write;
                    co_await api.Store("configmaps").Create("default", std::move(object), write);
                  },
                  {kAcceptProtobuf});
  REQUIRE(watch.status == 200);
  CHECK(watch.headers.Get("Content-Type") == "application/vnd.kubernetes.protobuf;stream=watch");
  auto events = WatchFrames(watch.body);
  REQUIRE(events.size() == 2);
  CHECK(events[0].first == "ADDED");
  CHECK(events[0].second["metadata"]["name"] == "before");
  CHECK(events[0].second["kind"] == "ConfigMap");
  CHECK(events[1].second["metadata"]["name"] == "during");
}

TEST_CASE("custom resources stay JSON only", "[handlers]") {
  Widgets widgets;
  const std::string path = "/apis/example.com/v1/widgets";
  auto created = widgets.Do("POST", path, R"({"metadata":{"name":"w"}})", {});
  REQUIRE(created.status == 201);
  // client-go's default Accept falls back to JSON.
  auto got = widgets.Do("GET", path + "/w", "", {kClientGo});
  REQUIRE(got.status == 200);
  CHECK(got.headers.Get("Content-Type") == "application/json");
  // Protobuf alone: 406 naming the JSON forms.
  auto refused = widgets.Do("GET", path + "/w", "", {kAcceptProtobuf});
  CHECK(refused.status == 406);
  CHECK(refused.Json()["message"] ==
        "only the following media types are accepted: application/json, application/yaml");
  // A protobuf body: 415.
  auto body = widgets.Do("POST", path, std::string("k8s\0", 4),
                         {"Content-Type: application/vnd.kubernetes.protobuf"});
  CHECK(body.status == 415);
  CHECK(body.Json()["message"] ==
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml");
}
