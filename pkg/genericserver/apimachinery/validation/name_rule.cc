#include "pkg/genericserver/apimachinery/validation/name_rule.h"

#include "pkg/genericserver/apimachinery/validation/names.h"

namespace apimachinery::validation {
namespace {

// Upstream's maskTrailingDash: a prefix ending in '-' is checked with its last two
// characters replaced by "a" ("abc-" as "aba"), so that the random suffix makes it valid.
// Upstream panics on "-" alone; here it is checked as "a" and the generated name, which
// starts with '-', is refused.
std::string MaskTrailingDash(std::string_view name) {
  if (!name.ends_with('-')) return std::string(name);
  if (name.size() < 2) return "a";
  return std::string(name.substr(0, name.size() - 2)) + "a";
}

}  // namespace

std::vector<std::string> IsValidPathSegmentPrefix(std::string_view prefix) {
  std::vector<std::string> errs;
  for (std::string_view bad : {"/", "%"}) {
    if (prefix.find(bad) != std::string_view::npos) {
      errs.push_back("may not contain '" + std::string(bad) + "'");
    }
  }
  return errs;
}

std::vector<std::string> IsValidPathSegmentName(std::string_view name) {
  if (name == "." || name == "..") return {"may not be '" + std::string(name) + "'"};
  return IsValidPathSegmentPrefix(name);
}

std::vector<std::string> ValidateName(NameRule rule, std::string_view name, bool prefix) {
  switch (rule) {
    case NameRule::kDNS1123Subdomain:
      return IsDNS1123Subdomain(prefix ? MaskTrailingDash(name) : std::string(name));
    case NameRule::kDNS1123Label:
      return IsDNS1123Label(prefix ? MaskTrailingDash(name) : std::string(name));
    case NameRule::kDNS1035Label:
      return IsDNS1035Label(prefix ? MaskTrailingDash(name) : std::string(name));
    case NameRule::kPathSegmentName:
      return IsValidPathSegmentName(name);
    case NameRule::kNone:
      return {};
  }
  return {};
}

std::vector<std::string> PathSegmentCheck(std::string_view name, bool prefix) {
  return prefix ? IsValidPathSegmentPrefix(name) : IsValidPathSegmentName(name);
}

}  // namespace apimachinery::validation
