// Go's regexp (pkg/genericserver/apimachinery/regex): the syntax and its error texts, MatchString,
// leftmost-first Find, the Unicode tables, and linear time. Expected values are Go's.

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "pkg/genericserver/apimachinery/regex/regex.h"

using apimachinery::regex::Regex;

namespace {

bool Match(std::string_view pattern, std::string_view text) {
  auto re = Regex::Compile(pattern);
  REQUIRE(re.has_value());
  return (*re)->MatchString(text);
}

std::string CompileError(std::string_view pattern) {
  auto re = Regex::Compile(pattern);
  REQUIRE_FALSE(re.has_value());
  return re.error();
}

using Span = std::optional<std::pair<size_t, size_t>>;

// Go's FindStringIndex (from 0), or the search FindAllStringIndex makes from `from`.
Span Find(std::string_view pattern, std::string_view text, size_t from = 0) {
  auto re = Regex::Compile(pattern);
  REQUIRE(re.has_value());
  auto m = (*re)->Find(text, from);
  CHECK(m.has_value() == (from == 0 ? (*re)->MatchString(text) : m.has_value()));
  if (!m) return std::nullopt;
  return std::pair{m->start, m->end};
}

}  // namespace

TEST_CASE("Regex matches anywhere in the text, as Go's MatchString", "[regex]") {
  CHECK(Match("abc", "xxabcxx"));
  CHECK_FALSE(Match("abd", "xxabcxx"));
  CHECK(Match("", "anything"));
  CHECK(Match("^$", ""));
  CHECK_FALSE(Match("^$", "a"));
  CHECK(Match("a|b", "b"));
  CHECK(Match("^(ab|cd)+$", "abcdab"));
  CHECK_FALSE(Match("^(ab|cd)+$", "abc"));
}

TEST_CASE("Regex anchors and flags follow RE2", "[regex]") {
  // Without (?m), $ matches only at the very end (not before a final newline, unlike Perl).
  CHECK_FALSE(Match("^a$", "a\n"));
  CHECK(Match("(?m)^b$", "a\nb\nc"));
  CHECK(Match("\\Aab\\z", "ab"));
  CHECK_FALSE(Match("a.b", "a\nb"));
  CHECK(Match("(?s)a.b", "a\nb"));
  CHECK(Match("(?i)hello", "HeLLo"));
  CHECK(Match("(?i:k)", "\xE2\x84\xAA"));  // KELVIN SIGN folds to k
  CHECK_FALSE(Match("a(?i)b", "AB"));
  CHECK(Match("a(?i)b", "aB"));
  CHECK(Match("\\bfoo\\b", "a foo b"));
  CHECK_FALSE(Match("\\bfoo\\b", "afoob"));
  CHECK(Match("\\Boo\\B", "afoob"));
  // (?flags) lasts to the end of the enclosing group, (?flags:re) to its own.
  CHECK(Match("^(?:(?i)a)A$", "AA"));
  CHECK_FALSE(Match("^(?:(?i)a)a$", "AA"));
  CHECK_FALSE(Match("^(?i:a|b)b$", "BB"));
  CHECK(Match("^(?i-i:a)$", "a"));
}

TEST_CASE("Regex classes and repetition", "[regex]") {
  CHECK(Match("^\\d{3}-\\d{2}$", "123-45"));
  CHECK_FALSE(Match("^\\d{3}-\\d{2}$", "12-345"));
  CHECK(Match("^a{2,3}$", "aaa"));
  CHECK_FALSE(Match("^a{2,3}$", "aaaa"));
  CHECK(Match("^a{2,}$", "aaaaaa"));
  CHECK(Match("^a{0}b$", "b"));
  CHECK(Match("^x{$", "x{"));  // not a repetition: a literal brace
  CHECK(Match("^a{,3}$", "a{,3}"));
  CHECK(Match("^[^a]$", "\n"));  // negated classes include newline (ClassNL)
  CHECK(Match("^[[:alpha:]]+$", "abcXYZ"));
  CHECK_FALSE(Match("^[[:^alpha:]]+$", "abc"));
  CHECK(Match("^[[:alpha:]_][\\w-]*$", "_ab-9"));
  CHECK_FALSE(Match("^[[:alpha:]_][\\w-]*$", "9ab"));
  CHECK(Match("^[^a-c]+$", "xyz"));
  CHECK_FALSE(Match("^[^a-c]+$", "xbz"));
  CHECK(Match("^[]a]+$", "]a]"));
  CHECK(Match("^[a-]+$", "a-a"));
  CHECK(Match("^\\w+\\s\\W$", "ab_1 !"));
  CHECK_FALSE(Match("^\\w$", "\xC3\xA9"));  // \w is ASCII only
  CHECK(Match("^\\x41\\x{263a}\\101$",
              "A\xE2\x98\xBA"
              "A"));
  CHECK(Match("^\\Q.*\\E$", ".*"));
  CHECK(Match("^\\.\\*$", ".*"));
  CHECK(Match("^\\_$", "_"));
  // A repetition after \Q...\E applies to its last rune, as after a flag group to the atom before.
  CHECK(Match("^\\Qab\\E+$", "abbb"));
  CHECK(Match("^a\\Q\\E*$", "aaa"));
  CHECK(Match("^a(?i)*$", "aaa"));
  CHECK(Match("^(?P<name>a)(?<other>b)$", "ab"));
  CHECK(Match("^(?P<n>a)(?P<n>b)$", "ab"));  // Go allows a name twice
  CHECK(Match("^a*?b+?c??$", "aabbc"));
  CHECK(Match("(?i)^[a-c]+$", "AbC"));
  CHECK(Match("^.$", "\xE2\x98\xBA"));  // one rune, three bytes
  CHECK(Match("^.$", "\xC3\xA9"));
}

TEST_CASE("Regex Unicode classes and case folding are Go's (Unicode 15.0.0)", "[regex]") {
  CHECK(Match("^\\p{L}+$", "h\xC3\xA9llo"));
  CHECK(Match("^\\pL$", "\xCE\xB1"));
  CHECK(Match("^\\p{Greek}$", "\xCE\xB1"));
  CHECK_FALSE(Match("^\\P{L}$", "a"));
  CHECK(Match("^\\p{^L}$", "1"));
  CHECK(Match("^\\P{^L}$", "a"));
  CHECK(Find("\\p{Lu}", "k\xE2\x84\xAA") == Span{{1, 4}});  // KELVIN SIGN is upper case
  CHECK(Find("\\p{Devanagari}", "a\xE0\xA4\x95") == Span{{1, 4}});
  CHECK(Find("\\PL+", "ab12;c") == Span{{2, 5}});
  CHECK(Match("^\\p{Nd}+$", "12\xD9\xA3"));  // ARABIC-INDIC DIGIT THREE
  CHECK(Match("^\\p{Pd}$", "-"));
  CHECK_FALSE(Match("^\\p{Pd}$", "!"));
  CHECK(Match("^\\p{Any}$", "\xF0\x9F\x98\x80"));
  // Case folding: simple folds and their orbits (k K U+212A; s S U+017F; sigma's three forms).
  CHECK(Find("(?i)\xCF\x83+", "x\xCF\x82\xCE\xA3\xCF\x83") == Span{{1, 7}});
  CHECK(Match("^(?i)s$", "\xC5\xBF"));
  CHECK(Match("(?i)^\\p{Lu}$", "a"));
  CHECK_FALSE(Match("^(?i)[^k]$", "\xE2\x84\xAA"));
  // No multi-rune folds: ß does not match ss.
  CHECK(Find("(?i)stra\xC3\x9F"
             "e",
             "STRASSE strasse STRA\xC3\x9F"
             "E") == Span{{16, 23}});
}

TEST_CASE("Regex Find returns Go's leftmost-first match", "[regex]") {
  CHECK(Find("a|ab", "xab") == Span{{1, 2}});
  CHECK(Find("ab|a", "xab") == Span{{1, 3}});
  CHECK(Find("a+?", "aaa") == Span{{0, 1}});
  CHECK(Find("a{2,3}", "aaaa") == Span{{0, 3}});
  CHECK(Find("a{2,3}?", "aaaa") == Span{{0, 2}});
  CHECK(Find("(?U)a+", "aaa") == Span{{0, 1}});
  CHECK(Find("(?U)a+?", "aaa") == Span{{0, 3}});
  CHECK(Find("(a|ab)(c|bcd)", "abcd") == Span{{0, 4}});
  CHECK(Find("(|a)*", "aa") == Span{{0, 0}});  // golang.org/issue/46123
  CHECK(Find("(a*|b)*", "ab") == Span{{0, 2}});
  CHECK(Find("x*", "abc") == Span{{0, 0}});
  CHECK(Find("[0-9]+", "abc 123 def 45") == Span{{4, 7}});
  CHECK(Find("a*?$", "baaa") == Span{{1, 4}});
  CHECK(Find(".+", "a\nb") == Span{{0, 1}});
  CHECK(Find("(?s).+", "a\nb") == Span{{0, 3}});
  CHECK(Find("\\bfoo\\b", "a foo b") == Span{{2, 5}});
  CHECK_FALSE(Find("\\bfoo\\b", "afoob"));
  CHECK(Find("^[[:alpha:]_][\\w-]*$", "_ab-9") == Span{{0, 5}});
  CHECK(Find("^.$", "\xC3\xA9") == Span{{0, 2}});
}

TEST_CASE("Regex Find from an offset sees the text before it", "[regex]") {
  CHECK(Find("\\bfoo", "afoo foo", 1) == Span{{5, 8}});  // no boundary between a and f
  CHECK(Find("a+", "baaa", 2) == Span{{2, 4}});
  CHECK_FALSE(Find("^a", "aa", 1));
  CHECK(Find("(?m)^b", "a\nb", 2) == Span{{2, 3}});
  CHECK(Find("$", "ab", 2) == Span{{2, 2}});
  CHECK(Find("[0-9]+", "abc 123 def 45", 7) == Span{{12, 14}});
  CHECK_FALSE(Find("x", "ab", 3));
}

TEST_CASE("Regex rejects what Go rejects, with Go's messages", "[regex]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(a", "missing closing ): `(a`"},
      {"a(b", "missing closing ): `a(b`"},
      {"a)", "unexpected ): `a)`"},
      {"[a", "missing closing ]: `[a`"},
      {"[abc", "missing closing ]: `[abc`"},
      {"[]", "missing closing ]: `[]`"},
      {"*a", "missing argument to repetition operator: `*`"},
      {"(|+)", "missing argument to repetition operator: `+`"},
      {"a|*", "missing argument to repetition operator: `*`"},
      {"(?i)*", "missing argument to repetition operator: `*`"},
      {"\\Q\\E*", "missing argument to repetition operator: `*`"},
      {"+?c", "missing argument to repetition operator: `+?`"},
      {"{2}a", "missing argument to repetition operator: `{2}`"},
      {"a**", "invalid nested repetition operator: `**`"},
      {"x*?*", "invalid nested repetition operator: `*?*`"},
      {"x{2}{3}", "invalid nested repetition operator: `{2}{3}`"},
      {"a{1001}", "invalid repeat count: `{1001}`"},
      {"a{2,1}", "invalid repeat count: `{2,1}`"},
      {"a{100000000000}", "invalid repeat count: `{100000000000}`"},
      {"(a{100}){100}", "invalid repeat count: `{100}`"},  // nested counts multiply
      {"((((a{100}){100}){100}){100})", "invalid repeat count: `{100}`"},
      {"\\1", "invalid escape sequence: `\\1`"},
      {"a\\1", "invalid escape sequence: `\\1`"},
      {"\\8", "invalid escape sequence: `\\8`"},
      {"\\q", "invalid escape sequence: `\\q`"},
      {"\\k", "invalid escape sequence: `\\k`"},
      {"\\C", "invalid escape sequence: `\\C`"},
      {"\\Z", "invalid escape sequence: `\\Z`"},
      {"\\x4", "invalid escape sequence: `\\x4`"},
      {"\\xg", "invalid escape sequence: `\\xg`"},
      {"\\x{}", "invalid escape sequence: `\\x{}`"},
      {"\\x{110000}", "invalid escape sequence: `\\x{110000`"},
      {"[a-\\d]", "invalid escape sequence: `\\d`"},
      {"(?=a)", "invalid or unsupported Perl syntax: `(?=`"},
      {"(?", "invalid or unsupported Perl syntax: `(?`"},
      {"(?i", "invalid or unsupported Perl syntax: `(?i`"},
      {"(?-)", "invalid or unsupported Perl syntax: `(?-)`"},
      {"(?--i)", "invalid or unsupported Perl syntax: `(?--`"},
      {"(?P=n)", "invalid or unsupported Perl syntax: `(?P`"},
      {"(?<", "invalid or unsupported Perl syntax: `(?<`"},
      {"(?<=a)b", "invalid named capture: `(?<=a)b`"},
      {"(?P<>a)", "invalid named capture: `(?P<>`"},
      {"(?P<n!>a)", "invalid named capture: `(?P<n!>`"},
      {"[z-a]", "invalid character class range: `z-a`"},
      {"[[:word2:]]", "invalid character class range: `[:word2:]`"},
      {"\\p{Nope}", "invalid character class range: `\\p{Nope}`"},
      {"[\\p{Foo}]", "invalid character class range: `\\p{Foo}`"},
      {"\\p{Cn}", "invalid character class range: `\\p{Cn}`"},  // Go has no Cn table
      {"\\pX", "invalid character class range: `\\pX`"},
      {"\\p{Latin", "invalid character class range: `\\p{Latin`"},
      {"a\\", "trailing backslash at end of expression: ``"},
      {"a\xff", "invalid UTF-8: `\xff`"},
      {"[\xff]", "invalid UTF-8: `\xff]`"},
      {"\\Q\xff\\E", "invalid UTF-8: `\xff`"},
      {"(?i\xff)", "invalid UTF-8: `\xff)`"},
  };
  for (const auto& [pattern, error] : cases) {
    INFO(pattern);
    CHECK(CompileError(pattern) == "error parsing regexp: " + error);
  }
}

TEST_CASE("Regex accepts what Go accepts", "[regex]") {
  for (const char* ok : {"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
                         R"(\d+\.\d+)",
                         "(?i)abc",
                         "(?P<n>x)|y",
                         "(?<n>x)",
                         "a{2,}",
                         "x{",
                         "a{,3}",
                         "a{01}",
                         "[[:alpha:]_-]+",
                         R"(\p{Greek}\pL)",
                         "[]a]",
                         R"(\x41\x{263a}\Q*+\E)",
                         "(?s:.)*?",
                         "()+",
                         "^*",
                         "a*(?i)*",
                         "(?i-m)",
                         "(?iU-ms:a)",
                         "[[:^alpha:]]",
                         "(a{10}){100}",
                         "(?:a{1000})?"}) {
    INFO(ok);
    CHECK(Regex::Compile(ok).has_value());
  }
}

TEST_CASE("Regex matching is linear: long texts and nasty patterns do not crash", "[regex]") {
  const std::string as(1 << 20, 'a');
  CHECK_FALSE(Match("^(a|aa)*b$", as));
  CHECK(Match("^(a|aa)*$", as));
  CHECK_FALSE(Match("(a*)*b", std::string(20000, 'a')));
  CHECK(Match("a{1000}", std::string(1000, 'a')));
  CHECK(Find("(a|aa)*b", as + "b") == Span{{0, as.size() + 1}});
  // The classic catastrophic-backtracking input returns at once.
  auto evil = Regex::Compile("(a+)+$");
  REQUIRE(evil.has_value());
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE((*evil)->Find(std::string(5000, 'a') + "!").has_value());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  // Invalid UTF-8 in the text reads as U+FFFD, one byte at a time.
  CHECK(Match("^.\\xff?$", "\xff"));
  CHECK(Find(".", "\xff\xff") == Span{{0, 1}});
}

TEST_CASE("Regex nesting and size are bounded", "[regex]") {
  // Deep nesting is refused beyond 1000 groups; the parser keeps no C++ stack per group.
  const std::string deep = std::string(5000, '(') + std::string(5000, ')');
  CHECK(CompileError(deep) == "error parsing regexp: expression nests too deeply: `" + deep + "`");
  CHECK(Match(std::string(1000, '(') + "a" + std::string(1000, ')'), "a"));
  CHECK(Match(std::string(1000, '(') + "a" + std::string(1000, ')') + "*", "aa"));
  const std::string too_deep = std::string(1001, '(') + "a" + std::string(1001, ')');
  CHECK(CompileError(too_deep) ==
        "error parsing regexp: expression nests too deeply: `" + too_deep + "`");
  // Programs are limited to 200000 instructions.
  std::string large;
  for (int i = 0; i < 201; ++i) large += "(?:a{1000})";
  CHECK(CompileError(large) == "error parsing regexp: expression too large: `" + large + "`");
}

TEST_CASE("Regex CompileCached returns the same program for the same pattern", "[regex]") {
  auto a = Regex::CompileCached("^x+$");
  auto b = Regex::CompileCached("^x+$");
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(a->get() == b->get());
  auto bad = Regex::CompileCached("(");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error() == "error parsing regexp: missing closing ): `(`");
  CHECK(Regex::CompileCached("(").error() == bad.error());
}
