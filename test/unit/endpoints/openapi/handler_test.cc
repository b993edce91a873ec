// InstallOpenAPIV3: the index, documents and upstream's HTTP caching behaviour.

#include <catch2/catch.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "pkg/genericserver/server/cacheable.h"
#include "test/unit/endpoints/openapi/specs.h"
#include "test/unit/support/handler_harness.h"

using nlohmann::json;
using namespace openapi_test;

namespace {

// A mux with /openapi/v3 over groups that a test may change.
class Fixture {
 public:
  Fixture() {
    groups_ = {Group("", "v1", {ConfigMaps(), Namespaces()}),
               Group("coordination.k8s.io", "v1", {Leases()})};
    endpoints::openapi::InstallOpenAPIV3(mux_, [this] {
      std::lock_guard lock(mu_);
      return groups_;
    });
  }

  testing::Recorded Get(const std::string& target, const std::string& accept = "",
                        const std::string& if_none_match = "") {
    genericserver::RequestContext ctx = testing::MakeRequest("GET", target);
    if (!accept.empty()) ctx.request.headers.Set("Accept", accept);
    if (!if_none_match.empty()) ctx.request.headers.Set("If-None-Match", if_none_match);
    genericserver::Handler* h = mux_.Find(ctx.request.path);
    REQUIRE(h != nullptr);
    return testing::Serve(*h, std::move(ctx));
  }

  // The serverRelativeURL the index gives for key.
  std::string UrlOf(const std::string& key) {
    testing::Recorded index = Get("/openapi/v3");
    REQUIRE(index.status == 200);
    json paths = index.Json()["paths"];
    INFO(key);
    REQUIRE(paths.contains(key));
    return paths[key]["serverRelativeURL"].get<std::string>();
  }

  genericserver::Handler* Find(const std::string& path) { return mux_.Find(path); }

  void SetGroups(std::vector<endpoints::APIGroupInfo> groups) {
    std::lock_guard lock(mu_);
    groups_ = std::move(groups);
  }

 private:
  genericserver::PathMux mux_;
  std::mutex mu_;
  std::vector<endpoints::APIGroupInfo> groups_;
};

std::string HashOf(const std::string& url) { return url.substr(url.find("?hash=") + 6); }

std::string Header(const testing::Recorded& r, const char* name) {
  return std::string(r.headers.Get(name).value_or(""));
}

}  // namespace

TEST_CASE("openapi: the index lists every group-version with its hash", "[openapi]") {
  Fixture f;
  testing::Recorded index = f.Get("/openapi/v3");
  REQUIRE(index.status == 200);
  CHECK(Header(index, "ETag").empty());  // as the aggregator serves it
  json paths = index.Json()["paths"];
  CHECK(paths.size() == 6);
  for (const char* key : {"api", "api/v1", "apis", "apis/coordination.k8s.io",
                          "apis/coordination.k8s.io/v1", "version"}) {
    INFO(key);
    REQUIRE(paths.contains(key));
    std::string url = paths[key]["serverRelativeURL"];
    CHECK(url.starts_with("/openapi/v3/" + std::string(key) + "?hash="));
    // The hash is the document's: SHA-512, upper-case hex.
    testing::Recorded doc = f.Get(url);
    REQUIRE(doc.status == 200);
    CHECK(HashOf(url) == genericserver::ContentHash(doc.body));
    CHECK(HashOf(url).size() == 128);
  }
}

TEST_CASE("openapi: group-version documents and their caching headers", "[openapi]") {
  Fixture f;
  std::string url = f.UrlOf("api/v1");
  std::string hash = HashOf(url);

  testing::Recorded hashed = f.Get(url);
  REQUIRE(hashed.status == 200);
  CHECK(Header(hashed, "Content-Type") == "application/json");
  CHECK(Header(hashed, "ETag") == "\"" + hash + "\"");
  CHECK(Header(hashed, "Cache-Control") == "public, immutable");
  CHECK(Header(hashed, "Expires").ends_with(" UTC"));
  CHECK(Header(hashed, "Vary") == "Accept");
  CHECK_FALSE(Header(hashed, "Last-Modified").empty());
  json doc = hashed.Json();
  CHECK(doc["paths"].contains("/api/v1/namespaces/{namespace}/configmaps/{name}"));

  testing::Recorded plain = f.Get("/openapi/v3/api/v1");
  REQUIRE(plain.status == 200);
  CHECK(Header(plain, "Cache-Control") == "no-cache, private");
  CHECK(Header(plain, "Expires").empty());
  CHECK(plain.body == hashed.body);

  testing::Recorded revalidated = f.Get(url, "application/json", "\"" + hash + "\"");
  CHECK(revalidated.status == 304);
  CHECK(revalidated.body.empty());
  CHECK(Header(revalidated, "ETag") == "\"" + hash + "\"");

  testing::Recorded changed = f.Get(url, "", "\"0123\"");
  CHECK(changed.status == 200);
}

TEST_CASE("openapi: a stale hash redirects to the current one", "[openapi]") {
  Fixture f;
  std::string url = f.UrlOf("apis/coordination.k8s.io/v1");
  testing::Recorded moved = f.Get("/openapi/v3/apis/coordination.k8s.io/v1?hash=ABC");
  CHECK(moved.status == 301);
  CHECK(Header(moved, "Location") == url);
  CHECK(moved.body.empty());
}

TEST_CASE("openapi: unknown group-versions and unacceptable types", "[openapi]") {
  Fixture f;
  testing::Recorded missing = f.Get("/openapi/v3/apis/nosuch.example.com/v1");
  CHECK(missing.status == 404);
  CHECK(missing.body.empty());  // the aggregator's bare 404
  CHECK(f.Get("/openapi/v3/api/v1/").status == 404);
  CHECK(f.Get("/openapi/v3/").status == 404);

  CHECK(f.Get("/openapi/v3/api/v1", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf")
            .status == 406);
  CHECK(f.Get("/openapi/v3/api/v1", "text/html").status == 406);
  CHECK(f.Get("/openapi/v3/api/v1", "application/*").status == 200);
  CHECK(f.Get("/openapi/v3/api/v1", "*/*").status == 200);
  CHECK(f.Get("/openapi/v3/api/v1",
              "application/com.github.proto-openapi.spec.v3.v1.0+protobuf, application/json;q=0.5")
            .status == 200);
}

TEST_CASE("openapi: root documents", "[openapi]") {
  Fixture f;
  json api = f.Get("/openapi/v3/api").Json();
  CHECK(api["paths"]["/api/"]["get"]["operationId"] == "getCoreAPIVersions");
  CHECK(api["components"]["schemas"].contains("io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions"));
  CHECK(api["components"]["schemas"].size() == 2);
  json group = f.Get("/openapi/v3/apis/coordination.k8s.io").Json();
  CHECK(group["paths"]["/apis/coordination.k8s.io/"]["get"]["operationId"] ==
        "getCoordinationAPIGroup");
  json version = f.Get("/openapi/v3/version").Json();
  CHECK(version["paths"]["/version/"]["get"]["responses"]["200"]["content"].size() == 1);
}

TEST_CASE("openapi: documents change only with their specs", "[openapi]") {
  Fixture f;
  std::string core = f.UrlOf("api/v1");
  std::string leases = f.UrlOf("apis/coordination.k8s.io/v1");
  std::string body = f.Get(core).body;
  CHECK(f.UrlOf("api/v1") == core);
  CHECK(f.Get(core).body == body);

  // Same kinds rebuilt as new objects: same bytes, same hash.
  f.SetGroups({Group("", "v1", {ConfigMaps(), Namespaces()}),
               Group("coordination.k8s.io", "v1", {Leases()})});
  CHECK(f.UrlOf("api/v1") == core);

  // A new kind: a new hash for its group-version only; the old URL now redirects.
  f.SetGroups({Group("", "v1", {ConfigMaps(), Namespaces(), Secrets()}),
               Group("coordination.k8s.io", "v1", {Leases()})});
  std::string grown = f.UrlOf("api/v1");
  CHECK(grown != core);
  CHECK(f.UrlOf("apis/coordination.k8s.io/v1") == leases);
  CHECK(f.Get(grown).Json()["paths"].contains("/api/v1/namespaces/{namespace}/secrets"));
  CHECK(f.Get(core).status == 301);

  // A custom resource group appears at once.
  f.SetGroups({Group("", "v1", {ConfigMaps()}), Group("example.com", "v1", {Widgets()})});
  json custom = f.Get(f.UrlOf("apis/example.com/v1")).Json();
  CHECK(custom["paths"].contains("/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"));
  // ... and borrows the meta schemas of the core group.
  CHECK(
      custom["components"]["schemas"].contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
}

TEST_CASE("openapi: concurrent requests see one document", "[openapi]") {
  Fixture f;
  std::vector<std::string> bodies(4);
  std::vector<std::thread> threads;
  genericserver::Handler* h = f.Find("/openapi/v3/api/v1");
  REQUIRE(h != nullptr);
  for (size_t i = 0; i < bodies.size(); ++i) {  // no assertions off the main thread
    threads.emplace_back([&, i] {
      bodies[i] = testing::Serve(*h, testing::MakeRequest("GET", "/openapi/v3/api/v1")).body;
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& b : bodies) CHECK(b == bodies[0]);
}
