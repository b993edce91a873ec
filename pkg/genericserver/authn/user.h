#pragma once
// Who made a request, as authentication established it.

#include <map>
#include <string>
#include <vector>

namespace authn {

inline constexpr char kAnonymousUser[] = "system:anonymous";
inline constexpr char kAllAuthenticated[] = "system:authenticated";
inline constexpr char kAllUnauthenticated[] = "system:unauthenticated";
// Members are allowed everything by every authorization mode.
inline constexpr char kSystemPrivilegedGroup[] = "system:masters";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  bool InGroup(std::string_view group) const;
};

}  // namespace authn
