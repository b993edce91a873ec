#include <catch2/catch.hpp>

#include <string>

#include "pkg/apiextensions/schema/formats.h"

namespace s = apiextensions::schema;

namespace {
bool Valid(std::string_view format, std::string_view value) {
  auto name = s::SupportedFormat(format);
  REQUIRE(name.has_value());
  return s::ValidFormat(*name, value);
}
}  // namespace

TEST_CASE("Only the formats apiextensions supports are kept", "[crd-schema]") {
  CHECK(s::SupportedFormat("date-time") == std::optional<std::string>("datetime"));
  CHECK(s::SupportedFormat("datetime") == std::optional<std::string>("datetime"));
  CHECK(s::SupportedFormat("uuid") == std::optional<std::string>("uuid"));
  CHECK(s::SupportedFormat("bson-objectid") == std::optional<std::string>("bsonobjectid"));
  CHECK_FALSE(s::SupportedFormat("int32").has_value());
  CHECK_FALSE(s::SupportedFormat("int64").has_value());
  CHECK_FALSE(s::SupportedFormat("double").has_value());
  CHECK_FALSE(s::SupportedFormat("k8s-short-name").has_value());  // 1.33
  CHECK_FALSE(s::SupportedFormat("UUID").has_value());            // case-sensitive
  CHECK_FALSE(s::SupportedFormat("").has_value());
}

TEST_CASE("Network formats", "[crd-schema]") {
  CHECK(Valid("ipv4", "192.168.0.1"));
  CHECK(Valid("ipv4", "010.001.000.001"));  // ParseIPSloppy tolerates leading zeros
  CHECK(Valid("ipv4", "::ffff:1.2.3.4"));   // parses, and contains a dot
  CHECK_FALSE(Valid("ipv4", "256.1.1.1"));
  CHECK_FALSE(Valid("ipv4", "1.2.3"));
  CHECK_FALSE(Valid("ipv4", "::1"));
  CHECK(Valid("ipv6", "::1"));
  CHECK(Valid("ipv6", "2001:db8::8a2e:370:7334"));
  CHECK(Valid("ipv6", "::ffff:1.2.3.4"));
  CHECK_FALSE(Valid("ipv6", "::ffff:01.2.3.4"));  // net.ParseIP is strict
  CHECK_FALSE(Valid("ipv6", "1::2::3"));
  CHECK_FALSE(Valid("ipv6", "12345::"));
  CHECK_FALSE(Valid("ipv6", "fe80::1%eth0"));
  CHECK_FALSE(Valid("ipv6", "1.2.3.4"));
  CHECK(Valid("cidr", "10.0.0.0/8"));
  CHECK(Valid("cidr", "10.0.0.0/08"));
  CHECK(Valid("cidr", "2001:db8::/32"));
  CHECK_FALSE(Valid("cidr", "10.0.0.0/33"));
  CHECK_FALSE(Valid("cidr", "10.0.0.0"));
  CHECK_FALSE(Valid("cidr", "2001:db8::/129"));
  CHECK(Valid("mac", "01:23:45:67:89:ab"));
  CHECK(Valid("mac", "01-23-45-67-89-AB"));
  CHECK(Valid("mac", "0123.4567.89ab"));
  CHECK(Valid("mac", "01:23:45:67:89:ab:cd:ef"));
  CHECK_FALSE(Valid("mac", "01:23:45:67:89"));
  CHECK_FALSE(Valid("mac", "01:23:45:67:89:zz"));
  CHECK_FALSE(Valid("mac", "01:23-45:67:89:ab"));
  CHECK(Valid("hostname", "example.com"));
  CHECK(Valid("hostname", "localhost"));
  CHECK(Valid("hostname", "a-b"));
  CHECK(Valid("hostname", "my-host.example.com"));
  // strfmt's pattern allows a dash in a single-label name only after the first character.
  CHECK_FALSE(Valid("hostname", "my-host"));
  CHECK_FALSE(Valid("hostname", "-bad.com"));
  CHECK_FALSE(Valid("hostname", "under_score.com"));
  CHECK_FALSE(Valid("hostname", "a..b"));
  CHECK_FALSE(Valid("hostname", std::string(64, 'a') + ".com"));
}

TEST_CASE("uri is net/url.ParseRequestURI", "[crd-schema]") {
  CHECK(Valid("uri", "https://example.com/path?q=1"));
  CHECK(Valid("uri", "/absolute/path"));
  CHECK(Valid("uri", "mailto:someone"));
  CHECK(Valid("uri", "*"));
  CHECK(Valid("uri", "http://[::1]:8080/"));
  CHECK(Valid("uri", "http://user:pass@host/"));
  CHECK_FALSE(Valid("uri", ""));
  CHECK_FALSE(Valid("uri", "relative/path"));
  CHECK_FALSE(Valid("uri", ":nope"));
  CHECK_FALSE(Valid("uri", "http://exa mple.com/"));
  CHECK_FALSE(Valid("uri", "http://host:port/"));
  CHECK_FALSE(Valid("uri", "/bad%zzescape"));
  CHECK_FALSE(Valid("uri", "http://a\tb"));
}

TEST_CASE("email is net/mail.ParseAddress", "[crd-schema]") {
  CHECK(Valid("email", "user@example.com"));
  CHECK(Valid("email", "John Doe <john@example.com>"));
  CHECK(Valid("email", "\"quoted local\"@example.com"));
  CHECK(Valid("email", "user@[192.168.0.1]"));
  CHECK(Valid("email", "user@example.com (comment)"));
  CHECK(Valid("email", "group: one@example.com;"));
  CHECK_FALSE(Valid("email", "user"));
  CHECK_FALSE(Valid("email", "user@"));
  CHECK_FALSE(Valid("email", "a..b@example.com"));
  CHECK_FALSE(Valid("email", "a@b.com, c@d.com"));
  CHECK_FALSE(Valid("email", "group: a@b.com, c@d.com;"));
  CHECK_FALSE(Valid("email", "empty: ;"));
  CHECK_FALSE(Valid("email", "<a@b.com"));
  CHECK_FALSE(Valid("email", "user@[not-an-ip]"));
}

TEST_CASE("Identifier formats", "[crd-schema]") {
  CHECK(Valid("uuid", "123e4567-e89b-12d3-a456-426614174000"));
  CHECK(Valid("uuid", "123E4567E89B12D3A456426614174000"));
  CHECK_FALSE(Valid("uuid", "123e4567-e89b-12d3-a456-42661417400"));
  CHECK(Valid("uuid3", "123e4567-e89b-32d3-a456-426614174000"));
  CHECK_FALSE(Valid("uuid3", "123e4567-e89b-42d3-a456-426614174000"));
  CHECK(Valid("uuid4", "123e4567-e89b-42d3-a456-426614174000"));
  CHECK_FALSE(Valid("uuid4", "123e4567-e89b-42d3-c456-426614174000"));
  CHECK(Valid("uuid5", "123e4567-e89b-52d3-9456-426614174000"));
  CHECK(Valid("bsonobjectid", "507f1f77bcf86cd799439011"));
  CHECK_FALSE(Valid("bsonobjectid", "507f1f77bcf86cd79943901"));
  CHECK(Valid("isbn10", "0321751043"));
  CHECK(Valid("isbn10", "0-321-75104-3"));
  CHECK(Valid("isbn10", "080442957X"));
  CHECK_FALSE(Valid("isbn10", "0321751044"));
  CHECK(Valid("isbn13", "978-0321751041"));
  CHECK_FALSE(Valid("isbn13", "9780321751042"));
  CHECK(Valid("isbn", "0321751043"));
  CHECK(Valid("isbn", "9780321751041"));
  CHECK(Valid("creditcard", "4111 1111 1111 1111"));
  CHECK_FALSE(Valid("creditcard", "4111 1111 1111 1112"));
  CHECK(Valid("ssn", "123-45-6789"));
  CHECK(Valid("ssn", "123 45 6789"));
  CHECK_FALSE(Valid("ssn", "123456789"));
  CHECK(Valid("hexcolor", "#fff"));
  CHECK(Valid("hexcolor", "A0B1C2"));
  CHECK_FALSE(Valid("hexcolor", "#ffff"));
  CHECK(Valid("rgbcolor", "rgb(255, 0, 10)"));
  CHECK_FALSE(Valid("rgbcolor", "rgb(256,0,0)"));
  CHECK(Valid("byte", "aGVsbG8="));
  CHECK(Valid("byte", "aGk/"));
  CHECK_FALSE(Valid("byte", "aGVsbG8"));
  CHECK_FALSE(Valid("byte", ""));
  CHECK_FALSE(Valid("byte", "a==="));
  CHECK(Valid("password", "anything at all"));
}

TEST_CASE("Time formats", "[crd-schema]") {
  CHECK(Valid("date", "2024-02-29"));
  CHECK_FALSE(Valid("date", "2023-02-29"));
  CHECK_FALSE(Valid("date", "2024-13-01"));
  CHECK_FALSE(Valid("date", "2024-1-01"));
  CHECK_FALSE(Valid("date", "2024-01-01T00:00:00Z"));
  CHECK(Valid("date-time", "2024-01-02T15:04:05Z"));
  CHECK(Valid("date-time", "2024-01-02t15:04:05.123+01:00"));
  CHECK(Valid("date-time", "2024-01-02T23:59:59-07:00"));
  CHECK_FALSE(Valid("date-time", "2024-01-02T24:00:00Z"));
  CHECK_FALSE(Valid("date-time", "2024-01-02 15:04:05Z"));
  CHECK_FALSE(Valid("date-time", "2024-01-02T15:04:05"));
  CHECK_FALSE(Valid("date-time", "yesterday"));
  CHECK_FALSE(Valid("date-time", "T"));
  CHECK(Valid("duration", "1h30m"));
  CHECK(Valid("duration", "1.5s"));
  CHECK(Valid("duration", "3 days"));
  CHECK(Valid("duration", "5 minutes 10 s"));
  CHECK(Valid("duration", "2w"));
  CHECK_FALSE(Valid("duration", "5 fortnights"));
  CHECK_FALSE(Valid("duration", "forever"));
  CHECK_FALSE(Valid("duration", "99999999999999999999 days"));
  CHECK_FALSE(Valid("duration", ""));
}
