#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/values.h"

namespace s = apiextensions::schema;
namespace v = apimachinery::validation;
using nlohmann::json;

TEST_CASE("JSON numbers are typed as unstructured decoding types them", "[crd-schema]") {
  CHECK(s::KindOf(json::parse("1")) == s::GoKind::kInt64);
  CHECK(s::KindOf(json::parse("-9223372036854775808")) == s::GoKind::kInt64);
  CHECK(s::KindOf(json::parse("9223372036854775807")) == s::GoKind::kInt64);
  // Beyond int64 strconv.ParseInt fails and the value is a float64.
  CHECK(s::KindOf(json::parse("9223372036854775808")) == s::GoKind::kFloat64);
  CHECK(s::KindOf(json::parse("1.0")) == s::GoKind::kFloat64);
  CHECK(s::KindOf(json::parse("1e3")) == s::GoKind::kFloat64);
  CHECK(s::KindOf(json::parse("null")) == s::GoKind::kNull);
  CHECK(s::KindOf(json::parse("[]")) == s::GoKind::kSlice);
  CHECK(s::KindOf(json::parse("{}")) == s::GoKind::kMap);
}

TEST_CASE("GoFloatV prints as fmt's %v", "[crd-schema]") {
  CHECK(s::GoFloatV(1.0) == "1");
  CHECK(s::GoFloatV(1.5) == "1.5");
  CHECK(s::GoFloatV(-2.25) == "-2.25");
  CHECK(s::GoFloatV(0) == "0");
  CHECK(s::GoFloatV(123456) == "123456");
  CHECK(s::GoFloatV(1e6) == "1e+06");
  CHECK(s::GoFloatV(1234567) == "1.234567e+06");
  CHECK(s::GoFloatV(0.0001) == "0.0001");
  CHECK(s::GoFloatV(0.00001) == "1e-05");
  CHECK(s::GoFloatV(1e21) == "1e+21");
  CHECK(s::GoFloatV(1.5e300) == "1.5e+300");
  CHECK(s::GoFloatV(0.1) == "0.1");
  CHECK(s::GoFloatV(-0.0) == "-0");
}

TEST_CASE("GoJSONFloat encodes as encoding/json", "[crd-schema]") {
  CHECK(s::GoJSONFloat(1.0) == "1");
  CHECK(s::GoJSONFloat(1e6) == "1000000");
  CHECK(s::GoJSONFloat(1e20) == "100000000000000000000");
  CHECK(s::GoJSONFloat(1e21) == "1e+21");
  CHECK(s::GoJSONFloat(1e-7) == "1e-7");
  CHECK(s::GoJSONFloat(0.000001) == "0.000001");
  CHECK(s::GoJSONFloat(-0.5) == "-0.5");
  CHECK(s::GoJSONFloat(-0.0) == "-0");
}

TEST_CASE("GoSharpV prints unstructured values as %#v", "[crd-schema]") {
  CHECK(s::GoSharpV(json::parse(R"({"b":"x","a":1})")) ==
        R"(map[string]interface {}{"a":1, "b":"x"})");
  CHECK(s::GoSharpV(json::parse(R"([1,"a",true,null,1.5])")) ==
        R"([]interface {}{1, "a", true, interface {}(nil), 1.5})");
  CHECK(s::GoSharpV(json::parse(R"({"m":{"n":[]}})")) ==
        R"(map[string]interface {}{"m":map[string]interface {}{"n":[]interface {}{}}})");
  CHECK(s::GoSharpV(json::parse("{}")) == "map[string]interface {}{}");
  CHECK(s::GoSharpV(json::parse(R"("a\"b")")) == R"("a\"b")");
}

TEST_CASE("GoJSONMarshal encodes as encoding/json.Marshal", "[crd-schema]") {
  CHECK(s::GoJSONMarshal(json::parse(R"({"b":1.0,"a":[true,null]})")) ==
        R"({"a":[true,null],"b":1})");
  CHECK(s::GoJSONMarshal(json("<a&b>")) == R"("\u003ca\u0026b\u003e")");
  CHECK(s::GoJSONMarshal(json("tab\there")) == R"("tab\there")");
  CHECK(s::GoJSONMarshal(json(std::string("\x01", 1))) == R"("\u0001")");
}

TEST_CASE("SetBadValue follows field.ErrorBody's rules", "[crd-schema]") {
  auto body = [](const json& value) {
    v::FieldError e = v::FieldInvalid("f", "", "d");
    s::SetBadValue(e, value);
    return v::ErrorString(e);
  };
  CHECK(body(json("x")) == R"(f: Invalid value: "x": d)");
  CHECK(body(json(5)) == "f: Invalid value: 5: d");
  CHECK(body(json(2.5)) == "f: Invalid value: 2.5: d");
  CHECK(body(json(true)) == "f: Invalid value: true: d");
  // nil becomes the string "null", printed with %q.
  CHECK(body(json(nullptr)) == R"(f: Invalid value: "null": d)");
  CHECK(body(json::parse(R"({"a":"b"})")) ==
        R"(f: Invalid value: map[string]interface {}{"a":"b"}: d)");
  CHECK(body(json::parse("[1]")) == "f: Invalid value: []interface {}{1}: d");
}

TEST_CASE("GoFloatToInt64 truncates as Go does on amd64", "[crd-schema]") {
  CHECK(s::GoFloatToInt64(2.9) == 2);
  CHECK(s::GoFloatToInt64(-2.9) == -2);
  CHECK(s::GoFloatToInt64(1e30) == std::numeric_limits<int64_t>::min());
  CHECK(s::GoFloatToInt64(-1e30) == std::numeric_limits<int64_t>::min());
}
