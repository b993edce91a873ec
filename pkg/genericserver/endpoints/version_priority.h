#pragma once
// Kubernetes' version order: GA before beta before alpha, higher numbers first, anything
// else after them alphabetically ("v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo").

#include <string>

namespace endpoints {

bool VersionPriorityLess(const std::string& a, const std::string& b);

}  // namespace endpoints
