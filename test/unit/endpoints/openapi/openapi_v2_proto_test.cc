// EncodeOpenAPIV2Proto: gnostic's ParseDocument + proto.Marshal. The expected bytes are what
// gnostic (Debian's 0.2.0, the same OpenAPIv2.proto) makes of the same JSON; their YAML texts
// are ones go-yaml v2 and v3 write alike.

#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/openapi_v2_proto.h"

using nlohmann::json;

namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Encode(const char* text) {
  auto encoded = endpoints::openapi::EncodeOpenAPIV2Proto(json::parse(text));
  REQUIRE(encoded.has_value());
  return Hex(*encoded);
}

std::string Error(const char* text) {
  auto encoded = endpoints::openapi::EncodeOpenAPIV2Proto(json::parse(text));
  REQUIRE(!encoded.has_value());
  return encoded.error();
}

}  // namespace

TEST_CASE("openapi v2 proto: the smallest document", "[openapi]") {
  // swagger (1), info (2) {title, version}, paths (8) empty but present.
  CHECK(
      Encode(
          R"json({"info":{"title":"Kubernetes","version":"v1.32.0"},"paths":{},"swagger":"2.0"})json") ==
      "0a03322e3012150a0a4b756265726e65746573120776312e33322e304200");
}

TEST_CASE("openapi v2 proto: every schema field, by number", "[openapi]") {
  // Doubles as fixed64, int64 varints (0 left out), enum and default as Any.yaml, type as
  // TypeItem, items as ItemsItem, additionalProperties true and a schema, vendor extensions
  // last.
  CHECK(
      Encode(
          R"json({"definitions":{"S":{"additionalProperties":{"type":"string"},"allOf":[{"$ref":"#/definitions/T"}],"default":{"a":1},"description":"d","enum":["a",1,true],"example":"x","exclusiveMaximum":true,"externalDocs":{"url":"https://e"},"format":"int32","items":{"type":"integer"},"maxItems":3,"maxLength":10,"maximum":1.5,"minLength":0,"minimum":-2,"multipleOf":0.5,"properties":{"b":{"$ref":"#/definitions/T","description":"ref"},"c":{"type":["string","number"]}},"readOnly":true,"required":["b"],"title":"t","type":"object","uniqueItems":true,"x-a":"z","x-b":[1,2]},"T":{"additionalProperties":true,"type":"object"}},"info":{"title":"K","version":"v"},"paths":{},"swagger":"2.0"})json") ==
      "0a03322e3012060a014b12017642004aaa020a90020a0153128a021205696e7433321a01742201642a071205"
      "613a20310a31000000000000e03f39000000000000f83f40014900000000000000c0580a70038001019a0101"
      "62a201041202610aa201041202310aa201071205747275650aaa010d0a0bb201080a06737472696e67b20108"
      "0a066f626a656374ba010e0a0cb201090a07696e7465676572c201110a0f232f646566696e6974696f6e732f"
      "54ca01370a1b0a016212160a0f232f646566696e6974696f6e732f5422037265660a180a01631213b201100a"
      "06737472696e670a066e756d626572d80101ea010b120968747470733a2f2f65f201041202780afa010b0a03"
      "782d61120412027a0afa01110a03782d62120a12082d20310a2d20320a0a150a01541210aa01021001b20108"
      "0a066f626a656374");
}

TEST_CASE("openapi v2 proto: paths, parameters, responses, security", "[openapi]") {
  // Body, header, query and path parameters, a $ref parameter as a JsonReference, a $ref
  // response as one too, Paths' extensions before its paths, an empty scope list as an empty
  // StringArray, api key and basic security schemes.
  CHECK(
      Encode(
          R"json({"info":{"contact":{"name":"n"},"description":"x","license":{"name":"Apache"},"title":"K","version":"v"},"paths":{"/a/{name}":{"get":{"consumes":["*/*"],"description":"get it","operationId":"getA","parameters":[{"description":"body","in":"body","name":"body","required":true,"schema":{"$ref":"#/definitions/T"}},{"in":"header","name":"h","type":"string"},{"collectionFormat":"multi","in":"query","items":{"type":"string"},"name":"q","type":"array"},{"$ref":"#/parameters/p"}],"produces":["application/json"],"responses":{"200":{"description":"OK","headers":{"X":{"type":"integer"}},"schema":{"$ref":"#/definitions/T"}},"401":{"description":"Unauthorized"},"default":{"$ref":"#/responses/r"}},"schemes":["https"],"tags":["t"],"x-kubernetes-action":"get"},"parameters":[{"in":"path","name":"name","required":true,"type":"string","uniqueItems":true}]},"x-p":true},"definitions":{"T":{"type":"object"}},"parameters":{"p":{"in":"query","name":"pretty","type":"string","uniqueItems":true}},"responses":{"r":{"description":"R"}},"security":[{"BearerToken":[]}],"securityDefinitions":{"BearerToken":{"description":"Bearer Token authentication","in":"header","name":"authorization","type":"apiKey"},"basic":{"type":"basic"}},"swagger":"2.0"})json") ==
      "0a03322e3012180a014b1201761a01782a030a016e32080a064170616368654288030a0e0a03782d70120712"
      "05747275650a12f5020a092f612f7b6e616d657d12e70212c3020a01741a066765742069742a046765744132"
      "106170706c69636174696f6e2f6a736f6e3a032a2f2a422b0a290a270a04626f64791204626f64791a04626f"
      "647920012a110a0f232f646566696e6974696f6e732f5442190a1712150a1312066865616465722201682a06"
      "737472696e6742280a2612241a22120571756572792201713205617272617942080a06737472696e674a056d"
      "756c7469421212100a0e232f706172616d65746572732f704a6d0a340a03323030122d0a2b0a024f4b12130a"
      "110a0f232f646566696e6974696f6e732f541a100a0e0a015812090a07696e74656765720a170a0334303112"
      "100a0e0a0c556e617574686f72697a65640a1c0a0764656661756c741211120f0a0d232f726573706f6e7365"
      "732f72520568747470736a1d0a13782d6b756265726e657465732d616374696f6e120612046765740a4a1f0a"
      "1d121b2219080112047061746822046e616d652a06737472696e679801014a120a100a0154120bb201080a06"
      "6f626a65637452250a230a0170121e121c1a1a1205717565727922067072657474793206737472696e67a001"
      "015a0a0a080a017212030a015262110a0f0a0b426561726572546f6b656e12006a630a4d0a0b426561726572"
      "546f6b656e123e123c0a066170694b6579120d617574686f72697a6174696f6e1a06686561646572221b4265"
      "6172657220546f6b656e2061757468656e7469636174696f6e0a120a05626173696312090a070a0562617369"
      "63");
}

TEST_CASE("openapi v2 proto: additionalProperties false is written", "[openapi]") {
  // Schema.additional_properties (21) {boolean (2) = 0}: aa 01 02 10 00.
  const std::string hex = Encode(
      R"({"definitions":{"P":{"additionalProperties":false}},"info":{"title":"K","version":"v"},)"
      R"("paths":{},"swagger":"2.0"})");
  CHECK(hex.find("aa01021000") != std::string::npos);
}

TEST_CASE("openapi v2 proto: what gnostic refuses is an error", "[openapi]") {
  CHECK(Error(R"({"info":{"title":"K","version":"v"},"paths":{},"swagger":"2.0",)"
              R"("definitions":{"A":{"nullable":true}}})") ==
        "$root.definitions.A: has invalid property: nullable");
  CHECK(Error(R"({"info":{"title":"K"},"paths":{},"swagger":"2.0"})") ==
        "$root.info: is missing required property: version");
  CHECK(Error(R"({"info":{"title":"K","version":"v"},"paths":{},"swagger":"3.0"})") ==
        "$root: has unexpected value for swagger: \"3.0\"");
  CHECK(Error(R"({"info":{"title":"K","version":"v"},"swagger":"2.0","paths":{"/a":{"get":)"
              R"({"responses":{"200":{"description":"OK"}},"parameters":[{"in":"path",)"
              R"("name":"n","type":"string"}]}}}})") ==
        "$root.paths./a.get.parameters: is missing required property: required");
  CHECK(Error(R"({"info":{"title":"K","version":"v"},"swagger":"2.0","paths":{"/a":{"get":)"
              R"({"responses":{"200":{"description":"OK"}},"parameters":[{"in":"cookie",)"
              R"("name":"n","type":"string"}]}}}})") ==
        "$root.paths./a.get.parameters: has unexpected value for in: \"cookie\"");
  CHECK(Error(R"({"info":{"title":"K","version":"v"},"swagger":"2.0","paths":{"a":{}}})") ==
        "$root.paths: has invalid property: a");
  CHECK(Error(R"({"info":{"title":"K","version":"v"},"swagger":"2.0","paths":{},)"
              R"("definitions":{"A":{"maxLength":1.5}}})") ==
        "$root.definitions.A: has unexpected value for maxLength: 1.5");
}
