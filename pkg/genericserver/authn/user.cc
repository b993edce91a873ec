#include "pkg/genericserver/authn/user.h"

#include <algorithm>

namespace authn {
bool UserInfo::InGroup(std::string_view group) const {
  return std::ranges::find(groups, group) != groups.end();
}
}  // namespace authn
