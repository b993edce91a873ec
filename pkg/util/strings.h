#pragma once
// String helpers used across packages.

#include <string>
#include <string_view>
#include <vector>

namespace util {

// Splits on every occurrence of sep; "a,,b" gives {"a", "", "b"}; "" gives {""}.
std::vector<std::string> Split(std::string_view s, char sep);
std::string_view TrimSpace(std::string_view s);
std::string ToLower(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
// Whether `s` is one of the list's strings.
bool Contains(const std::vector<std::string>& list, std::string_view s);
// Decodes %XX escapes; with plus_as_space also '+' (query strings). Invalid escapes are kept.
std::string PercentDecode(std::string_view s, bool plus_as_space = false);
// Quotes like Go's %q for the printable ASCII that error messages carry.
std::string Quote(std::string_view s);
// A list as Go's %q prints a []string: ["a" "b"].
std::string QuoteList(const std::vector<std::string>& list);

}  // namespace util
