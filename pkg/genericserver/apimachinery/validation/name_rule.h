#pragma once
// How a kind's metadata.name and generateName are validated: upstream's ValidateNameFunc of
// each kind (k8s.io/apimachinery/pkg/api/validation NameIsDNSSubdomain and friends, and
// path.IsValidPathSegmentName), and the path-segment rules every stored object's name must
// meet because it becomes part of a URL.

#include <string>
#include <string_view>
#include <vector>

namespace apimachinery::validation {

enum class NameRule {
  kDNS1123Subdomain,  // NameIsDNSSubdomain: most kinds
  kDNS1123Label,      // NameIsDNSLabel: namespaces, statefulsets
  kDNS1035Label,      // NameIsDNS1035Label: services
  // IsValidPathSegmentName, also for a generateName: the RBAC kinds, APIServices.
  kPathSegmentName,
  // No rule of the kind's own (core events, PodDisruptionBudgets, CSRs): only the path-segment
  // check every create gets once the rest of the object is valid (PathSegmentCheck).
  kNone,
};

// path.IsValidPathSegmentName: "may not be '.'" or "may not be '..'" alone, else one
// "may not contain '/'" / "may not contain '%'" per character present.
std::vector<std::string> IsValidPathSegmentName(std::string_view name);
// path.IsValidPathSegmentPrefix: only the '/' and '%' checks (more follows a prefix).
std::vector<std::string> IsValidPathSegmentPrefix(std::string_view prefix);

// The messages of `rule` for a name, or for a generateName when `prefix` (a DNS prefix may end
// in '-': upstream masks it before checking). Empty: valid. kNone checks nothing here.
std::vector<std::string> ValidateName(NameRule rule, std::string_view name, bool prefix);

// The generic check rest.BeforeCreate runs after the kind's validation passed:
// path-segment rules on the name, prefix rules on a generateName.
std::vector<std::string> PathSegmentCheck(std::string_view name, bool prefix);

}  // namespace apimachinery::validation
