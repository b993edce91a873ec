#pragma once
// Who made a request, as authentication established it.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace authn {

// Those of `b` that `a` names too, in b's order (upstream's a.Intersect(b)).
std::vector<std::string> IntersectAudiences(const std::vector<std::string>& a,
                                            const std::vector<std::string>& b);

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
  // Not who the user is but what the credential was found good for: the audiences it and
  // the request's target audiences share (a TokenReview's status.audiences).
  std::vector<std::string> audiences;

  bool InGroup(std::string_view group) const;
};

// authentication.k8s.io's UserInfo (username, uid, groups, extra; empty ones left out), as
// TokenReviews and AdmissionReviews carry it.
nlohmann::json UserInfoJSON(const UserInfo& user);

}  // namespace authn
