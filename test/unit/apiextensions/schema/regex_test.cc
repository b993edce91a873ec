#include <catch2/catch.hpp>

#include <string>

#include "pkg/apiextensions/schema/regex.h"

namespace s = apiextensions::schema;

namespace {

bool Match(std::string_view pattern, std::string_view text) {
  auto re = s::Regex::Compile(pattern);
  REQUIRE(re.has_value());
  return (*re)->MatchString(text);
}

std::string CompileError(std::string_view pattern) {
  auto re = s::Regex::Compile(pattern);
  REQUIRE_FALSE(re.has_value());
  return re.error();
}

}  // namespace

TEST_CASE("Regex matches anywhere in the text, as Go's MatchString", "[crd-schema]") {
  CHECK(Match("abc", "xxabcxx"));
  CHECK_FALSE(Match("abd", "xxabcxx"));
  CHECK(Match("", "anything"));
  CHECK(Match("^$", ""));
  CHECK_FALSE(Match("^$", "a"));
  CHECK(Match("a|b", "b"));
  CHECK(Match("^(ab|cd)+$", "abcdab"));
  CHECK_FALSE(Match("^(ab|cd)+$", "abc"));
}

TEST_CASE("Regex anchors and flags follow RE2", "[crd-schema]") {
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
}

TEST_CASE("Regex classes and repetition", "[crd-schema]") {
  CHECK(Match("^\\d{3}-\\d{2}$", "123-45"));
  CHECK_FALSE(Match("^\\d{3}-\\d{2}$", "12-345"));
  CHECK(Match("^a{2,3}$", "aaa"));
  CHECK_FALSE(Match("^a{2,3}$", "aaaa"));
  CHECK(Match("^a{2,}$", "aaaaaa"));
  CHECK(Match("^a{0}b$", "b"));
  CHECK(Match("^x{$", "x{"));    // not a repetition: a literal brace
  CHECK(Match("^[^a]$", "\n"));  // negated classes include newline (ClassNL)
  CHECK(Match("^[[:alpha:]]+$", "abcXYZ"));
  CHECK_FALSE(Match("^[[:^alpha:]]+$", "abc"));
  CHECK(Match("^[]a]+$", "]a]"));
  CHECK(Match("^[a-]+$", "a-a"));
  CHECK(Match("^\\w+\\s\\W$", "ab_1 !"));
  CHECK_FALSE(Match("^\\w$", "\xC3\xA9"));  // \w is ASCII only
  CHECK(Match("^\\p{L}+$", "h\xC3\xA9llo"));
  CHECK(Match("^\\pL$", "\xCE\xB1"));
  CHECK(Match("^\\p{Greek}$", "\xCE\xB1"));
  CHECK_FALSE(Match("^\\P{L}$", "a"));
  CHECK(Match("^\\x41\\x{263a}\\101$",
              "A\xE2\x98\xBA"
              "A"));
  CHECK(Match("^\\Q.*\\E$", ".*"));
  CHECK(Match("^\\.\\*$", ".*"));
  CHECK(Match("^(?P<name>a)(?<other>b)$", "ab"));
  CHECK(Match("^a*?b+?c??$", "aabbc"));
  CHECK(Match("(?i)^[a-c]+$", "AbC"));
  CHECK(Match("^.$", "\xE2\x98\xBA"));  // one rune, three bytes
}

TEST_CASE("Regex rejects what Go rejects, with Go's messages", "[crd-schema]") {
  CHECK(CompileError("(a") == "error parsing regexp: missing closing ): `(a`");
  CHECK(CompileError("a)") == "error parsing regexp: unexpected ): `a)`");
  CHECK(CompileError("[a") == "error parsing regexp: missing closing ]: `[a`");
  CHECK(CompileError("*a") == "error parsing regexp: missing argument to repetition operator: `*`");
  CHECK(CompileError("a**") == "error parsing regexp: invalid nested repetition operator: `**`");
  CHECK(CompileError("a{1001}") == "error parsing regexp: invalid repeat count: `{1001}`");
  CHECK(CompileError("\\1") == "error parsing regexp: invalid escape sequence: `\\1`");
  CHECK(CompileError("\\q") == "error parsing regexp: invalid escape sequence: `\\q`");
  CHECK(CompileError("(?=a)") == "error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
  CHECK(CompileError("[z-a]") == "error parsing regexp: invalid character class range: `z-a`");
  CHECK(CompileError("a\\") == "error parsing regexp: trailing backslash at end of expression: ``");
  CHECK(CompileError("\\p{Nope}") ==
        "error parsing regexp: invalid character class range: `\\p{Nope}`");
  CHECK_FALSE(s::Regex::Compile("((((a{100}){100}){100}){100})").has_value());
}

TEST_CASE("Regex matching is linear: long texts and nasty patterns do not crash", "[crd-schema]") {
  const std::string as(1 << 20, 'a');
  CHECK_FALSE(Match("^(a|aa)*b$", as));
  CHECK(Match("^(a|aa)*$", as));
  CHECK_FALSE(Match("(a*)*b", std::string(20000, 'a')));
  CHECK(Match("a{1000}", std::string(1000, 'a')));
  // Deeply nested groups are refused rather than recursed into.
  const std::string deep = std::string(5000, '(') + std::string(5000, ')');
  CHECK(CompileError(deep) == "error parsing regexp: expression nests too deeply: `" + deep + "`");
  CHECK(Match(std::string(150, '(') + "a" + std::string(150, ')'), "a"));
  // Invalid UTF-8 in the text reads as U+FFFD, one byte at a time.
  CHECK(Match("^.\\xff?$", "\xff"));
}

TEST_CASE("CompileCached returns the same program for the same pattern", "[crd-schema]") {
  auto a = s::Regex::CompileCached("^x+$");
  auto b = s::Regex::CompileCached("^x+$");
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(a->get() == b->get());
  CHECK_FALSE(s::Regex::CompileCached("(").has_value());
}
