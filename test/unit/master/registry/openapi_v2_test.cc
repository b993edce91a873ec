// /openapi/v2 of the whole chain: one Swagger 2.0 document of every served group-version, in
// JSON and in the protobuf form kubectl reads.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "pkg/genericserver/apimachinery/protobuf/wire.h"
#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;
namespace pb = apimachinery::protobuf;

namespace {

constexpr const char* kProtobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

// The fields of one message, by number: each value's bytes (length-delimited ones) in order.
std::map<int, std::vector<std::string>> Fields(std::string_view message) {
  std::map<int, std::vector<std::string>> out;
  pb::Reader reader(message);
  while (!reader.AtEnd()) {
    auto tag = reader.ReadTag();
    if (!tag) FAIL(tag.error());
    if (tag->type == pb::WireType::kLen) {
      auto bytes = reader.ReadBytes();
      REQUIRE(bytes.has_value());
      out[tag->field].emplace_back(*bytes);
    } else {
      REQUIRE(reader.Skip(tag->type).has_value());
      out[tag->field].emplace_back();
    }
  }
  return out;
}

// The names of a map message's entries (NamedX{1: name, 2: value}) in `field`.
std::vector<std::string> Names(const std::string& map, int field) {
  std::vector<std::string> names;
  auto fields = Fields(map);
  for (const std::string& entry : fields[field]) names.push_back(Fields(entry)[1].at(0));
  return names;
}

// A definition has no v3-only keyword, no empty properties and no type or properties beside
// a reference, at any depth.
void CheckV2Schema(const json& schema, const std::string& where) {
  INFO(where);
  REQUIRE(schema.is_object());
  for (const char* key : {"default", "nullable", "oneOf", "anyOf", "not"}) {
    CHECK(!schema.contains(key));
  }
  if (schema.contains("$ref")) {
    CHECK(!schema.contains("type"));
    CHECK(!schema.contains("properties"));
  }
  if (auto props = schema.find("properties"); props != schema.end()) {
    CHECK(!props->empty());
    for (const auto& [name, sub] : props->items()) CheckV2Schema(sub, where + "." + name);
  }
  for (const char* key : {"items", "additionalProperties"}) {
    if (auto sub = schema.find(key); sub != schema.end() && sub->is_object()) {
      CheckV2Schema(*sub, where + "." + key);
    }
  }
}

}  // namespace

TEST_CASE("openapi v2: every group-version in Swagger 2.0 form", "[openapi]") {
  testing::Chain api;
  auto r = api.Do("GET", "/openapi/v2", "", {"Accept: application/json"});
  REQUIRE(r.status == 200);
  const json doc = r.Json();
  CHECK(doc["swagger"] == "2.0");
  CHECK(doc["info"]["title"] == "Kubernetes");
  CHECK(doc["info"]["version"].get<std::string>().find('-') == std::string::npos);
  const json& deployment = doc["definitions"]["io.k8s.api.apps.v1.Deployment"];
  CHECK(deployment["x-kubernetes-group-version-kind"] ==
        json::parse(R"([{"group":"apps","kind":"Deployment","version":"v1"}])"));
  CHECK(deployment["properties"]["spec"]["$ref"] ==
        "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");
  CHECK(!deployment["properties"]["spec"].contains("allOf"));
  CHECK(doc["definitions"]["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] ==
        json::parse(R"({"format":"int-or-string","type":"string"})"));
  CHECK(doc["definitions"]["io.k8s.apimachinery.pkg.api.resource.Quantity"] ==
        json::parse(R"({"type":"string"})"));
  const json& patch =
      doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
  CHECK(patch["x-kubernetes-group-version-kind"]["kind"] == "Deployment");
  bool body = false;
  for (const json& p : patch["parameters"]) {
    if (p["in"] == "body")
      body = p["schema"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
    if (p["name"] == "fieldValidation") CHECK(p["type"] == "string");
  }
  CHECK(body);
  CHECK(patch["responses"]["200"]["schema"]["$ref"] ==
        "#/definitions/io.k8s.api.apps.v1.Deployment");
  CHECK(doc["paths"].contains("/api/v1/namespaces/{namespace}/pods/{name}/eviction"));
  CHECK(doc["paths"].contains("/apis/apps/"));
  // Nothing kubectl's v2 parser or gnostic refuses.
  CHECK(r.body.find("#/components/schemas/") == std::string::npos);
  for (const auto& [name, schema] : doc["definitions"].items()) CheckV2Schema(schema, name);

  const std::string etag(r.headers.Get("ETag").value_or(""));
  REQUIRE(!etag.empty());
  CHECK(api.Do("GET", "/openapi/v2", "", {"If-None-Match: " + etag}).status == 304);

  // The protobuf form: the same document, the same ETag.
  auto protobuf = api.Do("GET", "/openapi/v2", "", {std::string("Accept: ") + kProtobuf});
  REQUIRE(protobuf.status == 200);
  CHECK(protobuf.headers.Get("Content-Type") ==
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  CHECK(protobuf.headers.Get("ETag") == etag);
  auto document = Fields(protobuf.body);
  CHECK(document[1].at(0) == "2.0");
  const std::vector<std::string> definitions = Names(document[9].at(0), 1);
  CHECK(definitions.size() == doc["definitions"].size());
  CHECK(definitions.front() == doc["definitions"].begin().key());
  CHECK(Names(document[8].at(0), 2).size() == doc["paths"].size());
  CHECK(api.Do("GET", "/openapi/v2", "",
               {std::string("Accept: ") + kProtobuf, "If-None-Match: " + etag})
            .status == 304);
  CHECK(api.Do("GET", "/openapi/v2", "", {"Accept: text/html"}).status == 406);

#ifdef KAS_OPENAPI_V2_CHECK
  // kubectl's own decoding and parsing, and gnostic's conversion of the JSON to compare.
  const std::string dir = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
  const std::string json_file = dir + "/kas-openapi-v2-test.json";
  const std::string pb_file = dir + "/kas-openapi-v2-test.pb";
  std::ofstream(json_file) << r.body;
  std::ofstream(pb_file, std::ios::binary) << protobuf.body;
  const std::string command =
      std::string(KAS_OPENAPI_V2_CHECK) + " -json " + json_file + " < " + pb_file + " 2>&1";
  std::string output;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
    pclose(p);
  }
  std::remove(json_file.c_str());
  std::remove(pb_file.c_str());
  CHECK(output == "ok models: " + std::to_string(doc["definitions"].size()) + "\n");
#endif
}
