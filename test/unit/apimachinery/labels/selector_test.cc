#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "pkg/genericserver/apimachinery/labels/selector.h"

namespace labels = apimachinery::labels;
using Labels = std::map<std::string, std::string>;

namespace {

const std::string kQualifiedNameMsg =
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')";
const std::string kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

std::string Canonical(std::string_view s) {
  auto parsed = labels::Parse(s);
  REQUIRE(parsed.has_value());
  return parsed->String();
}

std::string ParseError(std::string_view s) {
  auto parsed = labels::Parse(s);
  REQUIRE_FALSE(parsed.has_value());
  return parsed.error();
}

bool Matches(std::string_view selector, const Labels& l) {
  auto parsed = labels::Parse(selector);
  REQUIRE(parsed.has_value());
  return parsed->Matches(l);
}

}  // namespace

TEST_CASE("label selectors parse upstream's grammar", "[labels]") {
  CHECK(Canonical("") == "");
  CHECK(Canonical("   ") == "");
  CHECK(Canonical("x=a") == "x=a");
  CHECK(Canonical("x==a") == "x==a");
  CHECK(Canonical("x!=a") == "x!=a");
  CHECK(Canonical("x") == "x");
  CHECK(Canonical("!x") == "!x");
  CHECK(Canonical("x>1") == "x>1");
  CHECK(Canonical("x<10") == "x<10");
  CHECK(Canonical("x in (b,a,b)") == "x in (a,b)");  // sorted, duplicates gone
  CHECK(Canonical("x notin (a)") == "x notin (a)");
  // Blanks anywhere between tokens; requirements sorted by key.
  CHECK(Canonical(" z = c ,  y notin( b ) , x in (a) ") == "x in (a),y notin (b),z=c");
  CHECK(Canonical("x=a,y!=b,z in (c,d),!w,v,u notin (e),t>1,s<2") ==
        "s<2,t>1,u notin (e),v,!w,x=a,y!=b,z in (c,d)");
  CHECK(Canonical("example.com/app=web,tier") == "example.com/app=web,tier");
}

TEST_CASE("label selectors take upstream's empty values", "[labels]") {
  CHECK(Canonical("x=") == "x=");
  CHECK(Canonical("x=,z= ") == "x=,z=");
  CHECK(Canonical("x in ()") == "x in ()");
  CHECK(Canonical("x in (,a)") == "x in (,a)");
  CHECK(Canonical("x in (a,)") == "x in (,a)");
  CHECK(Canonical("x in (a,,b)") == "x in (,a,b)");
  // "in" and "notin" are plain words where values or keys are expected.
  CHECK(Canonical("x in (in,notin)") == "x in (in,notin)");
  CHECK(Canonical("in in (in)") == "in in (in)");
  CHECK(Canonical("notin=in") == "notin=in");
}

TEST_CASE("label selector syntax errors carry upstream's text", "[labels]") {
  CHECK(ParseError("x in") == "unable to parse requirement: found '' expected: '('");
  CHECK(ParseError("x in a") == "unable to parse requirement: found 'a' expected: '('");
  CHECK(ParseError("x=a b") == "found 'b', expected: ',' or 'end of string'");
  CHECK(ParseError("x,") == "found '', expected: identifier after ','");
  CHECK(ParseError("x,,y") == "found ',', expected: identifier after ','");
  CHECK(ParseError(",x") == "found ',', expected: !, identifier, or 'end of string'");
  CHECK(ParseError("=a") == "found '=', expected: !, identifier, or 'end of string'");
  CHECK(ParseError("x y") ==
        "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt");
  CHECK(ParseError("x in (a") == "unable to parse requirement: found '', expected: ',' or ')'");
  CHECK(ParseError("x in (a b)") == "unable to parse requirement: found 'b', expected: ',' or ')'");
  CHECK(ParseError("x in (=)") ==
        "unable to parse requirement: found '=', expected: ',', ')' or identifier");
  CHECK(ParseError("x in (a,=)") ==
        "unable to parse requirement: found '=', expected: ',', or identifier");
  CHECK(ParseError("x=(a)") == "unable to parse requirement: found '(', expected: identifier");
  CHECK(ParseError("x<=1") == "unable to parse requirement: found '=', expected: identifier");
  CHECK(ParseError("!") == "unable to parse requirement: found '', expected: identifier");
  CHECK(ParseError("!!x") == "unable to parse requirement: found '!', expected: identifier");
  CHECK(ParseError("!x=a") == "found '=', expected: ',' or 'end of string'");
  CHECK(ParseError("x==a==b") == "found '==', expected: ',' or 'end of string'");
}

TEST_CASE("label selector validation errors carry upstream's field errors", "[labels]") {
  // The key is checked by the parser with a nil field path, hence "<nil>".
  CHECK(ParseError("a/b/c=d") ==
        "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": " + kQualifiedNameMsg);
  CHECK(ParseError("x=a||y=b") ==
        "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": " + kLabelValueMsg);
  CHECK(ParseError("x=" + std::string(64, 'a')) ==
        "unable to parse requirement: values[0][x]: Invalid value: \"" + std::string(64, 'a') +
            "\": must be no more than 63 characters");
  CHECK(ParseError("x=-" + std::string(63, 'a')) ==
        "unable to parse requirement: values[0][x]: Invalid value: \"-" + std::string(63, 'a') +
            "\": must be no more than 63 characters; " + kLabelValueMsg);
  // A negative bound cannot be written: "-5" is not a label value.
  CHECK(ParseError("x<-5") ==
        "unable to parse requirement: values[0][x]: Invalid value: \"-5\": " + kLabelValueMsg);
  CHECK(ParseError("x>abc") ==
        "unable to parse requirement: values[0]: Invalid value: \"abc\": for 'Gt', 'Lt' "
        "operators, the value must be an integer");
  CHECK(ParseError("x<1.1") ==
        "unable to parse requirement: values[0]: Invalid value: \"1.1\": for 'Gt', 'Lt' "
        "operators, the value must be an integer");
  CHECK(ParseError("x>99999999999999999999") ==
        "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": for "
        "'Gt', 'Lt' operators, the value must be an integer");
  CHECK(ParseError("x>-1a") ==
        "unable to parse requirement: [values[0]: Invalid value: \"-1a\": for 'Gt', 'Lt' "
        "operators, the value must be an integer, values[0][x]: Invalid value: \"-1a\": " +
            kLabelValueMsg + "]");
}

TEST_CASE("label selectors match as upstream", "[labels]") {
  CHECK(Matches("", {{"x", "y"}}));
  CHECK(Matches("", {}));
  CHECK(Matches("x=y", {{"x", "y"}}));
  CHECK(Matches("x==y", {{"x", "y"}}));
  CHECK(Matches("x=y,z=w", {{"x", "y"}, {"z", "w"}}));
  CHECK(Matches("x!=y,z!=w", {{"x", "z"}, {"z", "a"}}));
  CHECK(Matches("x!=y", {}));
  CHECK(Matches("notin=in", {{"notin", "in"}}));
  CHECK(Matches("x", {{"x", "z"}}));
  CHECK(Matches("!x", {{"y", "z"}}));
  CHECK(Matches("x>1", {{"x", "2"}}));
  CHECK(Matches("x<1", {{"x", "0"}}));
  CHECK(Matches("x<10", {{"x", "-1"}}));  // label values are not validated when matching
  CHECK(Matches("x in (a,b)", {{"x", "b"}}));
  CHECK(Matches("x notin (a,b)", {{"x", "c"}}));
  CHECK(Matches("x notin (a,b)", {}));
  CHECK(Matches("x=", {{"x", ""}}));
  CHECK(Matches("x in ()", {{"x", ""}}));

  CHECK_FALSE(Matches("x=z", {}));
  CHECK_FALSE(Matches("x=y", {{"x", "z"}}));
  CHECK_FALSE(Matches("x=y,z=w", {{"x", "w"}, {"z", "w"}}));
  CHECK_FALSE(Matches("x!=y,z!=w", {{"x", "z"}, {"z", "w"}}));
  CHECK_FALSE(Matches("x", {{"y", "z"}}));
  CHECK_FALSE(Matches("!x", {{"x", "z"}}));
  CHECK_FALSE(Matches("x>1", {{"x", "0"}}));
  CHECK_FALSE(Matches("x>1", {{"x", "1"}}));
  CHECK_FALSE(Matches("x<1", {{"x", "2"}}));
  CHECK_FALSE(Matches("x>1", {{"x", "abc"}}));  // a non-integer label never compares
  CHECK_FALSE(Matches("x>1", {}));
  CHECK_FALSE(Matches("x in (a,b)", {{"x", "c"}}));
  CHECK_FALSE(Matches("x notin (a,b)", {{"x", "a"}}));
  CHECK_FALSE(Matches("x=", {}));
}

TEST_CASE("Selector::Empty and RequiresExactMatch", "[labels]") {
  CHECK(labels::Selector().Empty());
  CHECK(labels::Parse("")->Empty());
  CHECK_FALSE(labels::Parse("x")->Empty());

  auto s = labels::Parse("a=1,b==2,c in (3),d in (4,5),e!=6,f");
  REQUIRE(s.has_value());
  CHECK(s->RequiresExactMatch("a") == "1");
  CHECK(s->RequiresExactMatch("b") == "2");
  CHECK(s->RequiresExactMatch("c") == "3");
  CHECK(s->RequiresExactMatch("d") == std::nullopt);
  CHECK(s->RequiresExactMatch("e") == std::nullopt);
  CHECK(s->RequiresExactMatch("f") == std::nullopt);
  CHECK(s->RequiresExactMatch("g") == std::nullopt);
  REQUIRE(s->Requirements().size() == 6);
  CHECK(s->Requirements()[3].op() == labels::Operator::kIn);
  CHECK(s->Requirements()[3].values() == std::vector<std::string>{"4", "5"});
}

TEST_CASE("NewRequirement reports upstream's errors", "[labels]") {
  using labels::Operator;
  CHECK(labels::NewRequirement("x", Operator::kIn, {}).error() ==
        "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be "
        "empty");
  CHECK(labels::NewRequirement("x", Operator::kEquals, {"a", "b"}).error() ==
        "values: Invalid value: []string{\"a\", \"b\"}: exact-match compatibility requires one "
        "single value");
  CHECK(labels::NewRequirement("x", Operator::kExists, {"a"}).error() ==
        "values: Invalid value: []string{\"a\"}: values set must be empty for exists and does "
        "not exist");
  CHECK(labels::NewRequirement("x", Operator::kGreaterThan, {"1", "2"}).error() ==
        "values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' operators, exactly one "
        "value is required");
  CHECK(labels::NewRequirement("a/b/c", Operator::kExists, {}).error() ==
        "key: Invalid value: \"a/b/c\": " + kQualifiedNameMsg);

  auto r = labels::NewRequirement("app", Operator::kNotIn, {"b", "a"});
  REQUIRE(r.has_value());
  CHECK(r->String() == "app notin (a,b)");
  CHECK(r->values() == std::vector<std::string>{"b", "a"});  // kept as given
  CHECK(r->Matches({{"app", "c"}}));
  CHECK_FALSE(r->Matches({{"app", "a"}}));

  labels::Selector s({*labels::NewRequirement("z", Operator::kExists, {}),
                      *labels::NewRequirement("a", Operator::kDoesNotExist, {})});
  CHECK(s.String() == "!a,z");
}
