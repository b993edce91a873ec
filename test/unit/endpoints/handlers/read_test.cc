// GET and LIST through the core/v1 handler: selectors, paging, and the output forms.
#include <catch2/catch.hpp>

#include "test/unit/endpoints/handlers/fixture.h"

using nlohmann::json;
using testing::CoreAPI;

namespace {
constexpr char kCMs[] = "/api/v1/namespaces/default/configmaps";
constexpr char kTableAccept[] =
    "Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

std::vector<std::string> Names(const json& list) {
  std::vector<std::string> names;
  for (const auto& item : list["items"]) names.push_back(item["metadata"]["name"]);
  return names;
}
}  // namespace

TEST_CASE("get: JSON, YAML, 404 and 406", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("cm1");
  auto got = api.Do("GET", std::string(kCMs) + "/cm1");
  CHECK(got.status == 200);
  CHECK(got.Json()["kind"] == "ConfigMap");
  CHECK(got.Json()["apiVersion"] == "v1");

  auto yaml = api.Do("GET", std::string(kCMs) + "/cm1", "", {"Accept: application/yaml"});
  CHECK(yaml.status == 200);
  CHECK(yaml.headers.Get("Content-Type") == "application/yaml");
  CHECK(yaml.body.starts_with("apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\n"));

  auto pretty = api.Do("GET", std::string(kCMs) + "/cm1?pretty=true");
  CHECK(pretty.body.find("\n  \"apiVersion\": \"v1\"") != std::string::npos);

  auto missing = api.Do("GET", std::string(kCMs) + "/nope");
  CHECK(missing.status == 404);
  CHECK(missing.Json()["message"] == "configmaps \"nope\" not found");
  CHECK(missing.Json()["details"]["kind"] == "configmaps");

  auto unacceptable = api.Do("GET", std::string(kCMs) + "/cm1", "", {"Accept: text/html"});
  CHECK(unacceptable.status == 406);
  CHECK(unacceptable.Json()["reason"] == "NotAcceptable");
}

TEST_CASE("get and list as Table, as kubectl asks", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("cm1", {{"a", "1"}, {"b", "2"}}, {{"app", "x"}});
  auto one = api.Do("GET", std::string(kCMs) + "/cm1", "", {kTableAccept});
  REQUIRE(one.status == 200);
  const json table = one.Json();
  CHECK(table["kind"] == "Table");
  CHECK(table["apiVersion"] == "meta.k8s.io/v1");
  REQUIRE(table["columnDefinitions"].size() == 3);
  CHECK(table["columnDefinitions"][0]["name"] == "Name");
  CHECK(table["columnDefinitions"][0]["format"] == "name");
  CHECK(table["columnDefinitions"][1]["name"] == "Data");
  CHECK(table["rows"][0]["cells"][0] == "cm1");
  CHECK(table["rows"][0]["cells"][1] == 2);
  CHECK(table["rows"][0]["object"]["kind"] == "PartialObjectMetadata");
  CHECK(table["rows"][0]["object"]["metadata"]["labels"]["app"] == "x");

  auto list =
      api.Do("GET", std::string(kCMs) + "?limit=500&includeObject=Object", "", {kTableAccept});
  REQUIRE(list.status == 200);
  CHECK(list.Json()["rows"][0]["object"]["kind"] == "ConfigMap");
  CHECK(!list.Json()["metadata"]["resourceVersion"].get<std::string>().empty());

  auto none = api.Do("GET", std::string(kCMs) + "?includeObject=None", "", {kTableAccept});
  CHECK(!none.Json()["rows"][0].contains("object"));

  auto v1beta1 =
      api.Do("GET", kCMs, "", {"Accept: application/json;as=Table;v=v1beta1;g=meta.k8s.io"});
  CHECK(v1beta1.Json()["apiVersion"] == "meta.k8s.io/v1beta1");

  auto partial =
      api.Do("GET", kCMs, "",
             {"Accept: application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"});
  CHECK(partial.Json()["kind"] == "PartialObjectMetadataList");
  CHECK(partial.Json()["items"][0]["kind"] == "PartialObjectMetadata");
  CHECK(!partial.Json()["items"][0].contains("data"));
  CHECK(partial.headers.Get("Content-Type") ==
        "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");

  // The singular form for a list, and the list form for one object: 406, as upstream.
  auto singular = api.Do("GET", kCMs, "",
                         {"Accept: application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"});
  CHECK(singular.status == 406);
  CHECK(singular.Json()["message"] ==
        "you requested PartialObjectMetadata, but the requested object is a list "
        "(*core.ConfigMapList)");
  auto listed_one =
      api.Do("GET", std::string(kCMs) + "/cm1", "",
             {"Accept: application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"});
  CHECK(listed_one.status == 406);
  CHECK(listed_one.Json()["reason"] == "NotAcceptable");
  auto meta = api.Do("GET", std::string(kCMs) + "/cm1", "",
                     {"Accept: application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"});
  CHECK(meta.status == 200);
  CHECK(meta.Json()["kind"] == "PartialObjectMetadata");
}

TEST_CASE("list: label and field selectors", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("a", {{"k", "v"}}, {{"app", "web"}, {"tier", "1"}});
  api.CreateConfigMap("b", {{"k", "v"}}, {{"app", "db"}});
  api.CreateConfigMap("c", {{"k", "v"}});
  auto q = [&](const std::string& query) {
    auto r = api.Do("GET", std::string(kCMs) + "?" + query);
    REQUIRE(r.status == 200);
    return Names(r.Json());
  };
  using V = std::vector<std::string>;
  CHECK(q("labelSelector=app%3Dweb") == V{"a"});
  CHECK(q("labelSelector=app%3D%3Dweb") == V{"a"});
  CHECK(q("labelSelector=app!%3Dweb") == V{"b", "c"});
  CHECK(q("labelSelector=app+in+(web,db)") == V{"a", "b"});
  CHECK(q("labelSelector=app+notin+(web)") == V{"b", "c"});
  CHECK(q("labelSelector=tier") == V{"a"});
  CHECK(q("labelSelector=!tier") == V{"b", "c"});
  CHECK(q("fieldSelector=metadata.name%3Db") == V{"b"});
  CHECK(q("fieldSelector=metadata.namespace%3Ddefault,metadata.name!%3Db") == V{"a", "c"});

  auto unknown = api.Do("GET", std::string(kCMs) + "?fieldSelector=data.k%3Dv");
  CHECK(unknown.status == 400);
  CHECK(unknown.Json()["message"] ==
        "\"data.k\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
  auto malformed = api.Do("GET", std::string(kCMs) + "?labelSelector=a+in+(");
  CHECK(malformed.status == 400);

  auto all = api.Do("GET", "/api/v1/configmaps");
  CHECK(Names(all.Json()) == V{"a", "b", "c"});
}

TEST_CASE("list: limit and continue walk every item once", "[handlers]") {
  CoreAPI api;
  for (int i = 0; i < 5; ++i) api.CreateConfigMap("cm" + std::to_string(i));
  std::vector<std::string> seen;
  std::string next = std::string(kCMs) + "?limit=2";
  int pages = 0;
  for (;;) {
    auto r = api.Do("GET", next);
    REQUIRE(r.status == 200);
    const json page = r.Json();
    for (auto& n : Names(page)) seen.push_back(n);
    ++pages;
    if (!page["metadata"].contains("continue")) break;
    CHECK(page["metadata"]["remainingItemCount"].get<int>() == 5 - static_cast<int>(seen.size()));
    next =
        std::string(kCMs) + "?limit=2&continue=" + page["metadata"]["continue"].get<std::string>();
  }
  CHECK(pages == 3);
  CHECK(seen == std::vector<std::string>{"cm0", "cm1", "cm2", "cm3", "cm4"});

  auto bad = api.Do("GET", std::string(kCMs) + "?limit=2&continue=garbage");
  CHECK(bad.status == 400);
  auto future = api.Do(
      "GET", std::string(kCMs) + "?resourceVersion=999999&resourceVersionMatch=NotOlderThan");
  CHECK(future.status == 504);
}

TEST_CASE("cluster-scoped and unknown paths", "[handlers]") {
  CoreAPI api;
  CHECK(api.Do("GET", "/api/v1/namespaces/default").status == 200);
  CHECK(api.Do("GET", "/api/v1/namespaces/default/namespaces").status == 404);
  CHECK(api.Do("GET", "/api/v1/widgets").status == 404);
  CHECK(api.Do("GET", "/api/v1/namespaces/default/configmaps/x/bogus").status == 404);
  auto status = api.Do("GET", "/api/v1/namespaces/default/status");
  CHECK(status.status == 200);
  CHECK(status.Json()["kind"] == "Namespace");
}
