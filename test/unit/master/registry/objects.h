#pragma once
// A minimal valid object of every creatable built-in resource, for the table-driven tests that
// walk all kinds (names, status subresources): what each needs beyond apiVersion, kind and
// metadata.

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace testing {

// "<group/version>/<resource>" ("v1/pods", "apps/v1/deployments") to the object's body without
// apiVersion, kind and metadata; an empty object for kinds that need nothing else.
const nlohmann::json& ValidBody(const std::string& key);

// Discovery's path of a group-version: "/api/v1" or "/apis/<group>/<version>".
std::string GroupVersionPrefix(const std::string& group_version);

}  // namespace testing
