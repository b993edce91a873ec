#include <catch2/catch.hpp>

#include <string>

#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace v = apimachinery::validation;

TEST_CASE("GoQuote matches Go's %q", "[validation]") {
  CHECK(v::GoQuote("") == "\"\"");
  CHECK(v::GoQuote("abc") == "\"abc\"");
  CHECK(v::GoQuote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(v::GoQuote("\a\b\f\n\r\t\v") == "\"\\a\\b\\f\\n\\r\\t\\v\"");
  CHECK(v::GoQuote(std::string("\x01\x7f", 2)) == "\"\\x01\\x7f\"");
  CHECK(v::GoQuote(std::string("\0", 1)) == "\"\\x00\"");
  CHECK(v::GoQuote("Māori") == "\"Māori\"");       // printable UTF-8 kept
  CHECK(v::GoQuote("\xff") == "\"\\xff\"");        // invalid UTF-8 byte
  CHECK(v::GoQuote("\xc2\xa0") == "\"\\u00a0\"");  // no-break space is not printable
  CHECK(v::GoQuote("\xef\xbb\xbf") == "\"\\ufeff\"");
  CHECK(v::GoQuote("\xf3\xb0\x80\x80") == "\"\\U000f0000\"");
}

TEST_CASE("GoStringSlice matches Go's %#v of []string", "[validation]") {
  CHECK(v::GoStringSlice({}) == "[]string{}");
  CHECK(v::GoStringSlice({"a"}) == "[]string{\"a\"}");
  CHECK(v::GoStringSlice({"a", "b\"c"}) == "[]string{\"a\", \"b\\\"c\"}");
}

TEST_CASE("DecodeRune follows Go's range over a string", "[validation]") {
  CHECK(v::DecodeRune("a").rune == U'a');
  CHECK(v::DecodeRune("ā").rune == U'ā');
  CHECK(v::DecodeRune("ā").size == 2);
  CHECK(v::DecodeRune("\xe2\x82\xac").rune == U'€');
  CHECK(v::DecodeRune("\xf0\x9f\x98\x80").size == 4);
  // Invalid: lone continuation, overlong, surrogate, truncated.
  for (const char* bad : {"\x80", "\xc0\x80", "\xed\xa0\x80", "\xe2\x82"}) {
    const v::DecodedRune d = v::DecodeRune(bad);
    CHECK(d.rune == 0xFFFD);
    CHECK(d.size == 1);
  }
  std::string out;
  v::AppendRune(out, U'€');
  v::AppendRune(out, 0xD800);
  CHECK(out == "\xe2\x82\xac\xef\xbf\xbd");
}
