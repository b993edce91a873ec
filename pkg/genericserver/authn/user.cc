#include "pkg/genericserver/authn/user.h"

#include <algorithm>

#include <nlohmann/json.hpp>

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

nlohmann::json UserInfoJSON(const UserInfo& user) {
  nlohmann::json out = nlohmann::json::object();
  if (!user.name.empty()) out["username"] = user.name;
  if (!user.uid.empty()) out["uid"] = user.uid;
  if (!user.groups.empty()) out["groups"] = user.groups;
  if (!user.extra.empty()) out["extra"] = user.extra;
  return out;
}

}  // namespace authn
