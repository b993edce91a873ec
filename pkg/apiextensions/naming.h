#pragma once
// Which of a CRD's requested names it may have: those no other CRD of its group has
// accepted already (plural, singular and short names share one space, kind and list kind
// another), as upstream's naming controller decides, with its NamesAccepted condition.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace apiextensions {

struct NamingResult {
  nlohmann::json accepted_names;  // what status.acceptedNames becomes
  bool accepted = false;          // every requested name was free
  std::string reason;             // "NoConflicts", "PluralConflict", ...
  std::string message;            // "no conflicts found", "\"foo\" is already in use"
};

// `others`: every other CRD (any group; those of other groups are ignored).
NamingResult AcceptNames(const nlohmann::json& crd,
                         const std::vector<const nlohmann::json*>& others);

}  // namespace apiextensions
