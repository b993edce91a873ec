// The CEL interpreter alone: expressions with their expected results, runtime errors and
// compile errors (cel-spec and cel-go semantics, Kubernetes' libraries).

#include <chrono>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/program.h"
#include "pkg/apiextensions/cel/schema_types.h"

namespace cel = apiextensions::cel;
using nlohmann::json;

namespace {

// A schema for `self` in the table below.
const json& SelfSchema() {
  static const json s = json::parse(R"j({
    "type": "object",
    "properties": {
      "name": {"type": "string"},
      "replicas": {"type": "integer"},
      "ratio": {"type": "number"},
      "enabled": {"type": "boolean"},
      "tags": {"type": "array", "items": {"type": "string"}},
      "nums": {"type": "array", "items": {"type": "integer"}},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "port": {"x-kubernetes-int-or-string": true},
      "pct": {"x-kubernetes-int-or-string": true},
      "timeout": {"type": "string", "format": "duration"},
      "created": {"type": "string", "format": "date-time"},
      "data": {"type": "string", "format": "byte"},
      "namespace": {"type": "string"},
      "x-y": {"type": "string"},
      "nested": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}},
      "absent": {"type": "string"}
    }
  })j");
  return s;
}

const json& SelfValue() {
  static const json v = json::parse(R"j({
    "name": "web-1",
    "replicas": 3,
    "ratio": 0.5,
    "enabled": true,
    "tags": ["a", "b", "c"],
    "nums": [3, 1, 2],
    "labels": {"app": "web", "tier": "front"},
    "port": 8080,
    "pct": "50%",
    "timeout": "1m30s",
    "created": "2024-03-05T10:20:30Z",
    "data": "aGVsbG8=",
    "namespace": "default",
    "x-y": "dash",
    "nested": {"a": 1},
    "apiVersion": "example.com/v1",
    "kind": "Widget",
    "metadata": {"name": "w", "labels": {"x": "y"}}
  })j");
  return v;
}

// Compiles and evaluates; renders the outcome: the value (strings quoted), "error: <msg>" or
// "compile: <cel-go display>".
std::string Run(const std::string& expr, int64_t limit = 1000000) {
  cel::TypePtr t = cel::SchemaType(SelfSchema(), true);
  auto r = cel::CompileExpression(expr, {{"self", t}});
  if (!r.program) return "compile: " + r.errors;
  cel::Value self = cel::JsonToValue(SelfValue(), t);
  auto e = cel::Evaluate(*r.program, {{"self", self}}, limit);
  if (e.value.IsError()) return "error: " + e.value.str();
  if (e.value.kind == cel::Kind::kString) return "'" + e.value.str() + "'";
  return cel::DebugString(e.value);
}

struct Case {
  const char* expr;
  const char* want;
};

void RunTable(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    INFO(c.expr);
    CHECK(Run(c.expr) == c.want);
  }
}

}  // namespace

TEST_CASE("CEL literals and arithmetic", "[cel]") {
  RunTable({
      {"1 + 2 * 3", "7"},
      {"(1 + 2) * 3", "9"},
      {"7 / 2", "3"},
      {"-7 / 2", "-3"},
      {"7 % 3", "1"},
      {"-7 % 3", "-1"},
      {"0x1F", "31"},
      {"1u + 2u", "3"},
      {"type(1u)", "uint"},
      {"2.5 * 2.0", "5"},
      {"1.0 / 0.0", "+Inf"},
      {"3.0 / 2.0", "1.5"},
      {"-9223372036854775808", "-9223372036854775808"},
      {"9223372036854775807 + 1", "error: integer overflow"},
      {"-9223372036854775808 - 1", "error: integer overflow"},
      {"9223372036854775807 * 2", "error: integer overflow"},
      {"-(-9223372036854775808)", "error: integer overflow"},
      {"1 / 0", "error: division by zero"},
      {"1 % 0", "error: modulus by zero"},
      {"0u - 1u", "error: unsigned integer overflow"},
      {"'abc' + 'def'", "'abcdef'"},
      {"[1, 2] + [3]", "[1, 2, 3]"},
      {"b'ab' + b'c' == b'abc'", "true"},
      {"'a\\tb\\n'", "'a\tb\n'"},
      {"'\\x41\\u00e9\\101'",
       "'A\xC3\xA9"
       "A'"},
      {"r'a\\tb'", "'a\\tb'"},
      {"'''multi\nline'''", "'multi\nline'"},
      {"\"\"\"x\"y\"\"\"", "'x\"y'"},
      {"'it\\'s'", "'it's'"},
      {"size(b'\\xff\\x00')", "2"},
      {"null", "null"},
      {"true && !false", "true"},
      {"!!true", "true"},
      {"{'a': 1, 'b': 2}['b']", "2"},
      {"{1: 'x'}[1]", "'x'"},
      {"{'a': 1}['z']", "error: no such key: z"},
      {"[1, 2, 3][1]", "2"},
      {"[1, 2, 3][3]", "error: index '3' out of range in list size '3'"},
      {"[1, 2, 3][-1]", "error: index '-1' out of range in list size '3'"},
      {"dyn([1, 2])[1.0]", "2"},
      {"{'a': 1, 'a': 2}", "error: Failed with repeated key"},
  });
}

TEST_CASE("CEL comparisons, equality and logic", "[cel]") {
  RunTable({
      {"1 < 2", "true"},
      {"2 <= 2", "true"},
      {"'abc' < 'abd'", "true"},
      {"b'a' < b'b'", "true"},
      {"false < true", "true"},
      {"1 < 1.5", "true"},
      {"2u > 1", "true"},
      {"-1 < 0u", "true"},
      {"1.0 >= 1", "true"},
      {"dyn(1) == 1.0", "true"},
      {"dyn(1u) == 1", "true"},
      {"dyn('1') == 1", "false"},
      {"dyn(1) != 'a'", "true"},
      {"[1, 2] == [1, 2]", "true"},
      {"[1, 2] == [2, 1]", "false"},
      {"{'a': 1} == {'a': 1}", "true"},
      {"{'a': 1} == {'a': 2}", "false"},
      {"null == null", "true"},
      {"type(1) == int", "true"},
      {"type('a') == string", "true"},
      {"type([]) == list", "true"},
      {"type({}) == map", "true"},
      {"type(null) == null_type", "true"},
      {"type(int) == type", "true"},
      {"2 in [1, 2, 3]", "true"},
      {"4 in [1, 2, 3]", "false"},
      {"'a' in {'a': 1}", "true"},
      {"'b' in {'a': 1}", "false"},
      {"true ? 1 : 2", "1"},
      {"false ? 1 : 2", "2"},
      {"1 > 2 || 2 > 1", "true"},
      // Errors are absorbed by && and || when the other side decides, in either order.
      {"false && 1 / 0 == 1", "false"},
      {"1 / 0 == 1 && false", "false"},
      {"true || 1 / 0 == 1", "true"},
      {"1 / 0 == 1 || true", "true"},
      {"1 / 0 == 1 || false", "error: division by zero"},
      {"true && 1 / 0 == 1", "error: division by zero"},
      {"(1 / 0 == 1) ? 1 : 2", "error: division by zero"},
  });
}

TEST_CASE("CEL self fields, has() and map access", "[cel]") {
  RunTable({
      {"self.name", "'web-1'"},
      {"self.replicas + 1", "4"},
      {"self.ratio * 2.0", "1"},
      {"self.enabled", "true"},
      {"self.tags[1]", "'b'"},
      {"self.labels.app", "'web'"},
      {"self.labels['tier']", "'front'"},
      {"self.labels.missing", "error: no such key: missing"},
      {"has(self.labels.app)", "true"},
      {"has(self.labels.missing)", "false"},
      {"has(self.absent)", "false"},
      {"has(self.name)", "true"},
      {"self.absent", "error: no such key: absent"},
      {"has(self.absent) && self.absent == 'x'", "false"},
      {"!has(self.absent) || self.absent == 'x'", "true"},
      {"self.nested.a", "1"},
      {"has(self.nested.b)", "false"},
      {"self.__namespace__", "'default'"},
      {"self.x__dash__y", "'dash'"},
      {"self.apiVersion", "'example.com/v1'"},
      {"self.kind", "'Widget'"},
      {"self.metadata.name", "'w'"},
      {"has(self.metadata.generateName)", "false"},
      {"self.?absent.orValue('none')", "'none'"},
      {"self.?name.orValue('none')", "'web-1'"},
      {"self.?nested.?b.hasValue()", "false"},
      {"self.labels[?'app'].value()", "'web'"},
      {"self.labels[?'zz'].hasValue()", "false"},
      {"self.tags[?5].orValue('x')", "'x'"},
      {"optional.none().orValue(1)", "1"},
      {"optional.of(2).value()", "2"},
      {"optional.none().value()", "error: optional.none() dereference"},
      {"optional.ofNonZeroValue('').hasValue()", "false"},
      {"optional.none().or(optional.of(3)).value()", "3"},
      {"[1, ?optional.none(), ?optional.of(3)]", "[1, 3]"},
      {"{'a': 1, ?'b': optional.none(), ?'c': optional.of(3)}", "{'a': 1, 'c': 3}"},
      {"[?self.?absent, ?self.?name].size()", "1"},
      {"size(self.tags)", "3"},
      {"self.tags.size()", "3"},
      {"size(self.labels)", "2"},
      {"size('héllo')", "5"},
      {"'app' in self.labels", "true"},
  });
}

TEST_CASE("CEL int-or-string values are dyn", "[cel]") {
  RunTable({
      {"type(self.port) == int", "true"},
      {"type(self.pct) == string", "true"},
      {"self.port > 1024", "true"},
      {"self.pct.endsWith('%')", "true"},
      {"type(self.pct) == int ? self.pct < 5 : double(self.pct.replace('%', '')) < 60.0", "true"},
      {"self.pct > 5", "error: no such overload"},
      {"self.port.startsWith('8')", "error: no such overload"},
  });
}

TEST_CASE("CEL macros", "[cel]") {
  RunTable({
      {"[1, 2, 3].all(x, x > 0)", "true"},
      {"[1, 2, 3].all(x, x > 1)", "false"},
      {"[1, 2, 3].exists(x, x == 2)", "true"},
      {"[1, 2, 3].exists(x, x == 5)", "false"},
      {"[1, 2, 3].exists_one(x, x > 2)", "true"},
      {"[1, 2, 3].exists_one(x, x > 1)", "false"},
      {"[1, 2, 3].map(x, x * 2)", "[2, 4, 6]"},
      {"[1, 2, 3].map(x, x > 1, x * 10)", "[20, 30]"},
      {"[1, 2, 3].filter(x, x % 2 == 1)", "[1, 3]"},
      {"{'a': 1, 'b': 2}.all(k, k in ['a', 'b'])", "true"},
      {"{'a': 1, 'b': 2}.map(k, k + '!')", "['a!', 'b!']"},
      {"self.labels.exists(k, self.labels[k] == 'web')", "true"},
      {"self.tags.all(t, t.size() == 1)", "true"},
      {"[[1, 2], [3]].map(l, l.size())", "[2, 1]"},
      {"[1, 2].all(x, [3, 4].exists(y, y > x))", "true"},
      // Errors in all() and exists() lose to a deciding element.
      {"[0, 1].all(x, 1 / x > 5)", "false"},
      {"[0, 1].exists(x, 1 / x == 1)", "true"},
      {"[0, 1].all(x, 1 / x == 1)", "error: division by zero"},
      {"[0, 1].exists_one(x, 1 / x == 1)", "error: division by zero"},
      // Two-variable comprehensions (Kubernetes 1.32).
      {"[10, 20].all(i, v, v == (i + 1) * 10)", "true"},
      {"{'a': 1}.exists(k, v, k == 'a' && v == 1)", "true"},
      {"[5, 6].transformList(i, v, i + v)", "[5, 7]"},
      {"[5, 6, 7].transformList(i, v, i > 0, v)", "[6, 7]"},
      {"{'a': 1, 'b': 2}.transformMap(k, v, v * 2)", "{'a': 2, 'b': 4}"},
      {"[1, 2].existsOne(i, v, v == 2)", "true"},
  });
}

TEST_CASE("CEL strings library", "[cel]") {
  RunTable({
      {"'hello'.contains('ell')", "true"},
      {"'hello'.startsWith('he')", "true"},
      {"'hello'.endsWith('lo')", "true"},
      {"'Hello'.lowerAscii()", "'hello'"},
      {"'Hello'.upperAscii()", "'HELLO'"},
      {"'a,b,c'.split(',')", "['a', 'b', 'c']"},
      {"'a,b,c'.split(',', 2)", "['a', 'b,c']"},
      {"'abc'.split('')", "['a', 'b', 'c']"},
      {"['a', 'b'].join('-')", "'a-b'"},
      {"['a', 'b'].join()", "'ab'"},
      {"'  x y  '.trim()", "'x y'"},
      {"'aaa'.replace('a', 'b')", "'bbb'"},
      {"'aaa'.replace('a', 'b', 2)", "'bba'"},
      {"'hello'.indexOf('l')", "2"},
      {"'hello'.indexOf('l', 3)", "3"},
      {"'hello'.indexOf('z')", "-1"},
      {"'hello'.lastIndexOf('l')", "3"},
      {"'héllo'.indexOf('l')", "2"},
      {"'hello'.substring(1)", "'ello'"},
      {"'hello'.substring(1, 3)", "'el'"},
      {"'hello'.substring(3, 1)", "error: invalid substring range. start: 3, end: 1"},
      {"'hello'.substring(9)", "error: index out of range: 9"},
      {"'hello'.charAt(1)", "'e'"},
      {"'hello'.charAt(5)", "''"},
      {"'%s is %d years, %.2f'.format(['Bob', 42, 1.5])", "'Bob is 42 years, 1.50'"},
      {"'%x %X %b %o'.format([255, 255, 5, 8])", "'ff FF 101 10'"},
      {"'%s'.format([[1, 'a']])", "'[1, \"a\"]'"},
      {"strings.quote('a\"b\\n')", "'\"a\\\"b\\n\"'"},
      {"'abc123'.matches('^[a-z]+[0-9]+$')", "true"},
      {"'abc'.matches('b')", "true"},
      {"'abc'.matches('^b')", "false"},
      {"matches('xyz', 'y')", "true"},
      {"'ABC'.matches('(?i)^abc$')", "true"},
      {"'my-name.example'.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])"
       "?)*$')",
       "true"},
      {"'abc 123 def 45'.find('[0-9]+')", "'123'"},
      {"'abc'.find('[0-9]+')", "''"},
      {"'abc 123 def 45'.findAll('[0-9]+')", "['123', '45']"},
      {"'a1b2c3'.findAll('[0-9]', 2)", "['1', '2']"},
      {"'x'.matches('(')", "error: error parsing regexp: missing closing ): `(`"},
      {"'x'.matches('a**')",
       "error: error parsing regexp: invalid nested repetition operator: `**`"},
  });
}

TEST_CASE("CEL type conversions", "[cel]") {
  RunTable({
      {"int('42')", "42"},
      {"int('4x')", "error: type conversion error from 'string' to 'int'"},
      {"int(' 4')", "error: type conversion error from 'string' to 'int'"},
      {"int('-12')", "-12"},
      {"int(3.9)", "3"},
      {"int(-3.9)", "-3"},
      {"int(1e100)", "error: integer overflow"},
      {"int(18446744073709551615u)", "error: integer overflow"},
      {"uint(-1)", "error: unsigned integer overflow"},
      {"uint('7')", "7"},
      {"double(3)", "3"},
      {"double('2.5')", "2.5"},
      {"string(42)", "'42'"},
      {"string(1.5)", "'1.5'"},
      {"string(1e21)", "'1e+21'"},
      {"string(123456789.0)", "'1.23456789e+08'"},
      {"string(0.0001)", "'0.0001'"},
      {"string(true)", "'true'"},
      {"string(b'abc')", "'abc'"},
      {"bytes('abc') == b'abc'", "true"},
      {"bool('true')", "true"},
      {"bool('nope')", "error: type conversion error from 'string' to 'bool'"},
      {"dyn(1) + 1", "2"},
      {"string(self.data)", "'hello'"},
  });
}

TEST_CASE("CEL durations and timestamps", "[cel]") {
  RunTable({
      {"duration('1h30m') == duration('90m')", "true"},
      {"string(duration('1m30s'))", "'90s'"},
      {"string(duration('1.5s'))", "'1.5s'"},
      {"duration('1h').getMinutes()", "60"},
      {"duration('bad')",
       "error: type conversion error from 'string' to 'google.protobuf.Duration'"},
      {"duration('-1.5h') == -duration('90m')", "true"},
      {"string(duration('100ms'))", "'0.1s'"},
      {"self.timeout == duration('90s')", "true"},
      {"self.timeout > duration('1m')", "true"},
      {"self.created.getFullYear()", "2024"},
      {"self.created.getMonth()", "2"},
      {"self.created.getDate()", "5"},
      {"self.created.getDayOfMonth()", "4"},
      {"self.created.getDayOfWeek()", "2"},
      {"self.created.getDayOfYear()", "64"},
      {"self.created.getHours()", "10"},
      {"self.created.getHours('+02:00')", "12"},
      {"string(self.created)", "'2024-03-05T10:20:30Z'"},
      {"string(timestamp('2024-01-01T00:00:00+01:00'))", "'2023-12-31T23:00:00Z'"},
      {"timestamp('2024-01-01T00:00:00Z') + duration('1h') == timestamp('2024-01-01T01:00:00Z')",
       "true"},
      {"timestamp('2024-01-02T00:00:00Z') - timestamp('2024-01-01T00:00:00Z') == duration('24h')",
       "true"},
      {"timestamp('2024-01-01T00:00:00Z') < timestamp('2024-01-01T00:00:01Z')", "true"},
      {"string(timestamp('2024-01-01T00:00:00.5Z'))", "'2024-01-01T00:00:00.5Z'"},
      {"int(timestamp('1970-01-01T00:01:00Z'))", "60"},
  });
  CHECK(Run("timestamp('yesterday')") ==
        "error: type conversion error from 'string' to 'google.protobuf.Timestamp'");
  CHECK(Run("timestamp('2024-13-01T00:00:00Z')") ==
        "error: type conversion error from 'string' to 'google.protobuf.Timestamp'");
}

TEST_CASE("CEL Kubernetes lists, sets, quantity and url libraries", "[cel]") {
  RunTable({
      {"[1, 2, 3].isSorted()", "true"},
      {"self.nums.isSorted()", "false"},
      {"['a', 'b'].isSorted()", "true"},
      {"self.nums.sum()", "6"},
      {"[1.5, 2.5].sum()", "4"},
      {"self.nums.min()", "1"},
      {"self.nums.max()", "3"},
      {"[].min()", "error: min called on empty list"},
      {"self.tags.indexOf('b')", "1"},
      {"[1, 2, 1].lastIndexOf(1)", "2"},
      {"sets.contains([1, 2, 3], [2, 3])", "true"},
      {"sets.contains([1, 2], [3])", "false"},
      {"sets.equivalent([1, 2], [2, 1, 1])", "true"},
      {"sets.intersects([1, 2], [2, 5])", "true"},
      {"quantity('1Gi').isGreaterThan(quantity('1G'))", "true"},
      {"quantity('500m').isLessThan(quantity('1'))", "true"},
      {"quantity('1000m').compareTo(quantity('1'))", "0"},
      {"quantity('1k') == quantity('1000')", "true"},
      {"quantity('2').asInteger()", "2"},
      {"quantity('1.5').isInteger()", "false"},
      {"quantity('1.5').asInteger()", "error: cannot convert value to integer"},
      {"quantity('1.5').asApproximateFloat()", "1.5"},
      {"quantity('-3').sign()", "-1"},
      {"quantity('1').add(quantity('500m')).compareTo(quantity('1.5'))", "0"},
      {"quantity('2').sub(1).asInteger()", "1"},
      {"isQuantity('10Mi')", "true"},
      {"isQuantity('10 apples')", "false"},
      {"quantity('x')",
       "error: quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"isURL('https://example.com:8080/a/b?x=1&x=2&y=z')", "true"},
      {"isURL('not a url')", "false"},
      {"isURL('/relative/path')", "true"},
      {"url('https://example.com:8080/a/b?x=1').getScheme()", "'https'"},
      {"url('https://example.com:8080/a/b').getHost()", "'example.com:8080'"},
      {"url('https://example.com:8080/a/b').getHostname()", "'example.com'"},
      {"url('https://example.com:8080/a/b').getPort()", "'8080'"},
      {"url('https://[::1]:80/').getHostname()", "'::1'"},
      {"url('https://example.com/a%20b').getEscapedPath()", "'/a%20b'"},
      {"url('https://e.com/?x=1&x=2&y=a+b').getQuery()", "{'x': ['1', '2'], 'y': ['a b']}"},
      {"url('foo')",
       "error: URL parse error during conversion from string: parse \"foo\": invalid URI for "
       "request"},
      {"isIP('10.0.0.1')", "true"},
      {"isIP('10.0.0.01')", "false"},
      {"isIP('::ffff:1.2.3.4')", "false"},
      {"isIP('fe80::1%eth0')", "false"},
      {"ip('10.0.0.1').family()", "4"},
      {"ip('2001:DB8:0:0:0:0:0:1').family()", "6"},
      {"string(ip('2001:DB8:0:0:0:0:0:1'))", "'2001:db8::1'"},
      {"ip.isCanonical('2001:db8::1')", "true"},
      {"ip.isCanonical('2001:DB8::1')", "false"},
      {"ip('127.0.0.5').isLoopback()", "true"},
      {"ip('::').isUnspecified()", "true"},
      {"ip('169.254.1.1').isLinkLocalUnicast()", "true"},
      {"ip('8.8.8.8').isGlobalUnicast()", "true"},
      {"ip('224.0.0.1').isGlobalUnicast()", "false"},
      {"ip('1.2.3.4') == ip('1.2.3.4')", "true"},
      {"ip('nope')",
       "error: IP Address \"nope\" parse error during conversion from string: ParseAddr(\"nope\"): "
       "unable to parse IP"},
      {"isCIDR('10.0.0.0/8')", "true"},
      {"isCIDR('10.0.0.0/33')", "false"},
      {"isCIDR('10.0.0.0')", "false"},
      {"cidr('10.0.0.0/8').containsIP('10.1.2.3')", "true"},
      {"cidr('10.0.0.0/8').containsIP(ip('11.1.2.3'))", "false"},
      {"cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", "true"},
      {"cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))", "false"},
      {"cidr('10.1.2.3/8').prefixLength()", "8"},
      {"string(cidr('10.1.2.3/8').masked())", "'10.0.0.0/8'"},
      {"string(cidr('10.1.2.3/8').ip())", "'10.1.2.3'"},
      {"cidr('2001:db8::/32').containsIP('2001:db8:1::5')", "true"},
  });
}

TEST_CASE("CEL compile errors have cel-go's messages and positions", "[cel]") {
  CHECK(Run("self.foo == 1") ==
        "compile: ERROR: <input>:1:5: undefined field 'foo'\n | self.foo == 1\n | ....^");
  CHECK(Run("foo > 1") ==
        "compile: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo > "
        "1\n | ^");
  CHECK(Run("bar(1)") ==
        "compile: ERROR: <input>:1:4: undeclared reference to 'bar' (in container '')\n | bar(1)\n "
        "| ...^");
  CHECK(Run("self.replicas == 'a'") ==
        "compile: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, "
        "string)'\n"
        " | self.replicas == 'a'\n | ..............^");
  CHECK(Run("self.name.startsWith(1)") ==
        "compile: ERROR: <input>:1:21: found no matching overload for 'startsWith' applied to "
        "'string.(int)'\n"
        " | self.name.startsWith(1)\n | ....................^");
  CHECK(Run("1 + ") ==
        "compile: ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', "
        "'(', '.', "
        "'-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, "
        "IDENTIFIER}\n | 1 + \n | ....^");
  CHECK(Run("self.name this") ==
        "compile: ERROR: <input>:1:11: Syntax error: mismatched input 'this' expecting <EOF>\n | "
        "self.name this\n | ..........^");
  CHECK(
      Run("[1, 'a']") ==
      "compile: ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^");
  CHECK(Run("1 == 1.0")
            .starts_with("compile: ERROR: <input>:1:3: found no matching overload for '_==_' "
                         "applied to '(int, double)'"));
  CHECK(Run("self.replicas == null")
            .starts_with("compile: ERROR: <input>:1:15: found no matching overload for '_==_'"));
  CHECK(Run("self.replicas.all(x, x > 0)")
            .starts_with("compile: ERROR: <input>:1:5: expression of type 'int' cannot be range of "
                         "a comprehension"));
  CHECK(Run("has(self)") ==
        "compile: ERROR: <input>:1:5: invalid argument to has() macro\n | has(self)\n | ....^");
  CHECK(Run("[1].all(1, true)")
            .starts_with("compile: ERROR: <input>:1:9: argument must be a simple name"));
  CHECK(Run("9223372036854775808") ==
        "compile: ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^");
  CHECK(Run("'abc").starts_with(
      "compile: ERROR: <input>:1:1: Syntax error: token recognition error at: ''abc'"));
  CHECK(Run("a # b").find("token recognition error at: '#'") != std::string::npos);
  CHECK(Run("self.metadata.labels")
            .starts_with("compile: ERROR: <input>:1:14: undefined field 'labels'"));
  CHECK(Run("while").starts_with("compile: ERROR: <input>:1:1: reserved identifier: while"));
  // Errors are reported in source order, each with its snippet.
  CHECK(
      Run("a + b") ==
      "compile: ERROR: <input>:1:1: undeclared reference to 'a' (in container '')\n | a + b\n | ^\n"
      "ERROR: <input>:1:5: undeclared reference to 'b' (in container '')\n | a + b\n | ....^");
  // Multi-line expressions locate the line.
  CHECK(Run("true &&\n  nope") ==
        "compile: ERROR: <input>:2:3: undeclared reference to 'nope' (in container '')\n |   "
        "nope\n | ..^");
}

TEST_CASE("CEL bounds: recursion, expression size and cost", "[cel]") {
  std::string ok_deep = std::string(100, '(') + "1" + std::string(100, ')');
  CHECK(Run(ok_deep) == "1");
  std::string ternaries = "0";
  for (int i = 0; i < 60; ++i) {
    ternaries = "self.replicas == " + std::to_string(i) + " ? " + std::to_string(i) + " : (" +
                ternaries + ")";
  }
  CHECK(Run(ternaries) == "3");
  std::string deep(300, '(');
  deep += "1";
  deep += std::string(300, ')');
  CHECK(Run(deep).find("expression recursion limit exceeded") != std::string::npos);
  std::string chain = "1";
  for (int i = 0; i < 400; ++i) chain += " + 1";
  CHECK(Run(chain).find("expression recursion limit exceeded") != std::string::npos);
  std::string members = "self";
  for (int i = 0; i < 400; ++i) members += ".a";
  CHECK(Run(members).find("expression recursion limit exceeded") != std::string::npos);
  // Long && chains are balanced, as cel-go balances them.
  std::string ands = "true";
  for (int i = 0; i < 1000; ++i) ands += " && true";
  CHECK(Run(ands) == "true");
  CHECK(Run(std::string(100001, ' ') + "1")
            .starts_with("compile: ERROR: <input>:1:1: expression code point size exceeds limit"));

  // Growing strings is charged before the string is built.
  CHECK(Run("'abcdefghij'.replace('', 'x'.replace('', "
            "'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'))",
            10) == "error: operation cancelled: actual cost limit exceeded");
  CHECK(Run("['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'].map(x, x "
            "+ x + x + x).join()",
            15) == "error: operation cancelled: actual cost limit exceeded");
  CHECK(Run("'ab'.replace('', '-')") == "'-a-b-'");

  // A nested comprehension over big lists stops at the cost limit, promptly.
  std::string big = "[0";
  for (int i = 1; i < 2000; ++i) big += "," + std::to_string(i);
  big += "]";
  auto start = std::chrono::steady_clock::now();
  CHECK(Run(big + ".all(x, " + big + ".all(y, x + y >= 0))") ==
        "error: operation cancelled: actual cost limit exceeded");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // The same under a higher limit completes.
  CHECK(Run("[1, 2, 3].all(x, [1, 2].all(y, x + y >= 0))", 1000) == "true");
  CHECK(Run("[1, 2, 3].all(x, [1, 2].all(y, x + y >= 0))", 10) ==
        "error: operation cancelled: actual cost limit exceeded");
}

TEST_CASE("CEL property name escaping follows upstream", "[cel]") {
  CHECK(cel::EscapeProperty("namespace") == "__namespace__");
  CHECK(cel::EscapeProperty("in") == "__in__");
  CHECK(cel::EscapeProperty("foo-bar") == "foo__dash__bar");
  CHECK(cel::EscapeProperty("foo.bar") == "foo__dot__bar");
  CHECK(cel::EscapeProperty("foo/bar") == "foo__slash__bar");
  CHECK(cel::EscapeProperty("foo__bar") == "foo__underscores__bar");
  CHECK(cel::EscapeProperty("a___b") == "a__underscores___b");
  CHECK(cel::EscapeProperty("plain_name") == "plain_name");
  CHECK_FALSE(cel::EscapeProperty("1abc").has_value());
  CHECK_FALSE(cel::EscapeProperty("a b").has_value());
  CHECK_FALSE(cel::EscapeProperty("").has_value());
}
