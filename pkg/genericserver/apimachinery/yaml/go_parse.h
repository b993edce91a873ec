#pragma once
// The parts of Go's strconv and time.Parse that go-yaml's scalar resolution depends on
// (internal to apimachinery/yaml).

#include <cstdint>
#include <optional>
#include <string_view>

namespace apimachinery::yaml::internal {

// strconv.ParseInt(s, 0, 64): optional sign, 0x/0o/0b prefixes, a leading 0 for octal.
std::optional<std::int64_t> GoParseInt(std::string_view s);
// strconv.ParseUint(s, 0, 64): as GoParseInt without a sign.
std::optional<std::uint64_t> GoParseUint(std::string_view s);
// strconv.ParseFloat(s, 64) for decimal text ([+-]digits[.digits][e[+-]digits]); fails on
// overflow (Go's ErrRange) but not on underflow, like Go.
std::optional<double> GoParseDecimalFloat(std::string_view s);
// The regular expression go-yaml checks before ParseFloat:
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool IsYAMLStyleFloat(std::string_view s);
// go-yaml's base-60 float check: ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
bool IsBase60Float(std::string_view s);
// go-yaml's parseTimestamp: time.Parse with "2006-1-2T15:4:5.999999999Z07:00", its lower-case
// "t" variant, "2006-1-2 15:4:5.999999999" and "2006-1-2", with Go's range checks.
bool IsTimestamp(std::string_view s);

}  // namespace apimachinery::yaml::internal
