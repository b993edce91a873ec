#pragma once
// How upstream's Go code prints values inside error messages, for messages that must match
// upstream byte for byte: %q quoting, %#v of a []string, and the rune decoding of a Go
// `for range` over a string.

#include <string>
#include <string_view>
#include <vector>

namespace apimachinery::validation {

// Go's %q (strconv.Quote): double quotes; `"` and `\` escaped; \a \b \f \n \r \t \v; other
// control bytes and invalid UTF-8 bytes as \xNN; printable UTF-8 kept as is; non-printable code
// points as \uNNNN or \UNNNNNNNN. Non-ASCII printability approximates unicode.IsPrint (C1
// controls, non-ASCII spaces, format characters and private use are escaped).
std::string GoQuote(std::string_view s);

// JSON text as Go's json.Marshal writes it: <, > and & (and U+2028, U+2029) escaped as
// encoding/json's HTML-safe default escapes them. `json_text` is compact JSON.
std::string GoHTMLSafeJSON(std::string_view json_text);

// Go's %#v of a []string: `[]string{"a", "b"}`, `[]string{}` when empty.
std::string GoStringSlice(const std::vector<std::string>& values);

// One step of a Go `for range` over a string: the code point at the start of `s` and the bytes
// it takes. Invalid or truncated UTF-8 gives U+FFFD of size 1, as Go does. `s` must not be empty.
struct DecodedRune {
  char32_t rune;
  size_t size;
};
DecodedRune DecodeRune(std::string_view s);

// Appends the UTF-8 encoding of `rune` (U+FFFD for invalid code points), as Go's WriteRune.
void AppendRune(std::string& out, char32_t rune);

}  // namespace apimachinery::validation
