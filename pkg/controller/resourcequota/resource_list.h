#pragma once
// A ResourceList (resource name -> quantity) and upstream's quota helpers over it
// (k8s.io/apiserver/pkg/quota/v1: Add, Mask, Equals), read from and written as JSON
// objects of quantity strings. Pure.

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/util/quantity.h"

namespace controller::resourcequota {

using ResourceList = std::map<std::string, util::Quantity>;

// The entries of a JSON object whose values parse as quantities (others are left out).
ResourceList ParseResourceList(const nlohmann::json& object);

// a + b per resource: a resource in one list only keeps its quantity.
ResourceList Add(const ResourceList& a, const ResourceList& b);
// Only the resources of `names`.
ResourceList Mask(const ResourceList& list, const std::set<std::string>& names);
// The same resources with equal quantities (compared by value: "1000m" equals "1").
bool Equals(const ResourceList& a, const ResourceList& b);

}  // namespace controller::resourcequota
