#pragma once
// Shared by the CRD validation tests: a small valid CRD to start from, and the rendered
// messages of what the validation functions find.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace crdval_test {

// The path errors of a single-version CRD's schema start with (upstream hoists a schema all
// versions share to the internal spec.validation).
inline constexpr const char* kSchema = "spec.validation.openAPIV3Schema";

// upstream's DNS-1035 message, as the names of CRDs quote it.
inline constexpr const char* kDNS1035 =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

// widgets.example.com: one served storage version v1 with a small structural schema,
// conversion None, stored version v1. Valid.
nlohmann::json ValidCRD();
// ValidCRD() with the version's openAPIV3Schema replaced.
nlohmann::json WithSchema(const nlohmann::json& schema);
// A root object schema with one property "spec" of the given schema.
nlohmann::json SpecSchema(const nlohmann::json& spec);

// ErrorString of every error, in order.
std::vector<std::string> Create(const nlohmann::json& crd);
std::vector<std::string> Update(const nlohmann::json& crd, const nlohmann::json& old);
std::vector<std::string> StatusUpdate(const nlohmann::json& crd, const nlohmann::json& old);

}  // namespace crdval_test
