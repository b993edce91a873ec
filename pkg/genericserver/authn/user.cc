#include "pkg/genericserver/authn/user.h"

#include <algorithm>

namespace authn {

std::vector<std::string> IntersectAudiences(const std::vector<std::string>& a,
                                            const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& t : b) {
    if (std::ranges::find(a, t) != a.end()) out.push_back(t);
  }
  return out;
}

bool UserInfo::InGroup(std::string_view group) const {
  return std::ranges::find(groups, group) != groups.end();
}
}  // namespace authn
