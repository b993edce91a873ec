#pragma once
// `--controllers` as upstream reads it: a list of `*` (every controller enabled by
// default), `name` (enable) and `-name` (disable), names canonical or aliases.

#include <set>
#include <string>
#include <vector>

namespace controllermanager {

// Every entry naming no known controller, as upstream's message:
// `"foo" is not in the list of known controllers` (the name as typed, without its '-').
std::vector<std::string> ValidateControllers(const std::vector<std::string>& controllers);

// The entries with aliases replaced by canonical names ("-namespace" ->
// "-namespace-controller"); unknown ones unchanged.
std::vector<std::string> CanonicalControllers(const std::vector<std::string>& controllers);

// Upstream's rule: the first entry naming the controller decides ("name" on, "-name" off);
// otherwise it is on only with a `*` and when not disabled by default.
bool IsControllerEnabled(const std::string& name, const std::set<std::string>& disabled_by_default,
                         const std::vector<std::string>& controllers);

// Several errors as apimachinery's Aggregate prints them: one alone as itself, more
// (duplicates dropped) as "[a, b]".
std::string AggregateErrors(const std::vector<std::string>& errors);

}  // namespace controllermanager
