#pragma once
// Percent-encoding: letters and digits and the characters of `keep` as they are, every
// other byte as %XX (upper-case hex), as Go's url.QueryEscape (keep "-_.~") and net/http's
// header key escaping (keep the token specials) write them.

#include <string>
#include <string_view>

namespace util {

std::string PercentEncode(std::string_view s, std::string_view keep);

}  // namespace util
