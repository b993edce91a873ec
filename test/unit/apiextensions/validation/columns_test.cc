#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test/unit/apiextensions/validation/support.h"

using crdval_test::Create;
using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

json WithColumns(const json& columns) {
  json crd = crdval_test::ValidCRD();
  crd["spec"]["versions"][0]["additionalPrinterColumns"] = columns;
  return crd;
}

}  // namespace

TEST_CASE("CRD printer columns: valid columns", "[crd-validation]") {
  CHECK(Create(WithColumns(json::parse(R"([
      {"name": "Replicas", "type": "integer", "format": "int32", "jsonPath": ".spec.replicas",
       "priority": 1, "description": "desired replicas"},
      {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
      {"name": "Ready", "type": "boolean", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"}
  ])")))
            .empty());
}

TEST_CASE("CRD printer columns: name, type, format and jsonPath", "[crd-validation]") {
  CHECK(Create(WithColumns(json::parse(R"([{"name": "", "type": "", "jsonPath": ""}])"))) ==
        Strings{"spec.additionalPrinterColumns[0].name: Required value",
                "spec.additionalPrinterColumns[0].type: Required value: must be one of "
                "boolean,date,integer,number,string",
                "spec.additionalPrinterColumns[0].JSONPath: Required value"});
  CHECK(
      Create(WithColumns(json::parse(R"([{"name": "Age", "type": "time", "format": "duration",
      "jsonPath": "metadata.creationTimestamp"}])"))) ==
      Strings{
          R"(spec.additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string)",
          R"(spec.additionalPrinterColumns[0].format: Invalid value: "duration": must be one of byte,date,date-time,double,float,int32,int64,password)",
          R"(spec.additionalPrinterColumns[0].JSONPath: Invalid value: "metadata.creationTimestamp": must be a simple json path starting with .)"});
}

TEST_CASE("CRD printer columns: per version when the versions differ", "[crd-validation]") {
  json crd =
      WithColumns(json::parse(R"([{"name": "A", "type": "string", "jsonPath": ".spec.a"}])"));
  json second = crd["spec"]["versions"][0];
  second["name"] = "v2";
  second["storage"] = false;
  second["additionalPrinterColumns"] =
      json::parse(R"([{"name": "B", "type": "text", "jsonPath": ".spec.b"}])");
  crd["spec"]["versions"].push_back(second);
  CHECK(
      Create(crd) ==
      Strings{
          R"(spec.versions[1].additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string)"});
}
