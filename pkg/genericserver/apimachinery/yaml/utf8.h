#pragma once
// UTF-8 helpers shared by the YAML reader and writer (internal to apimachinery/yaml).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace apimachinery::yaml::internal {

// Checks input the way go-yaml's reader does before scanning: valid UTF-8 and only the
// characters YAML allows (tab, line breaks, printable Unicode). Returns go-yaml's message
// ("invalid leading UTF-8 octet", "control characters are not allowed", ...) on failure.
std::optional<std::string> CheckYAMLInput(std::string_view in);

// Replaces every byte that does not start a valid UTF-8 sequence with U+FFFD, as Go's
// encoding/json does when it writes a string. Returns the input unchanged when it is valid.
std::string SanitizeUTF8(std::string_view s);

// The text yaml-cpp gives for a scalar, as valid UTF-8: yaml-cpp writes the escapes "\N" and
// "\_" as the single bytes 0x85 and 0xA0 instead of U+0085 and U+00A0; those are repaired and
// anything else invalid is replaced as SanitizeUTF8 does.
std::string ScalarText(std::string_view s);

// The width in bytes of the UTF-8 sequence that starts with the byte b (1 for stray bytes).
std::size_t RuneWidth(unsigned char b);

// Decodes the code point at s[i] (s must be valid UTF-8 there).
char32_t DecodeRuneAt(std::string_view s, std::size_t i);

}  // namespace apimachinery::yaml::internal
