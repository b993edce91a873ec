#pragma once
// APIService (apiregistration.k8s.io/v1) defaulting and validation, as upstream's
// kube-aggregator: the name is "<spec.version>.<spec.group>", the group a DNS-1123 subdomain
// (empty only for the legacy "v1"), the version a DNS-1035 label, the priorities in range, a
// service reference complete and a local APIService without TLS settings; status conditions
// True, False or Unknown. Every error with upstream's path and message.
//
// The registry Store validates the generic metadata itself (ValidateObjectMeta, including the
// path-segment rules of names); these functions add what upstream's APIService name function
// and spec checks say beyond that.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace aggregator::validation {

using FieldErrors = std::vector<apimachinery::validation::FieldError>;

// What decoding into upstream's Go type refuses or rewrites: spec.caBundle must be standard
// base64 ("illegal base64 data at input byte 3", the reason for a 400) and is kept in the
// canonical form Go re-encodes it in (no line breaks, padding bits cleared).
std::optional<std::string> Decode(nlohmann::json& apiservice);

// Upstream's v1 defaulting: a service reference without a port gets 443. Then the fields as
// upstream writes them: "service": null when there is none (the field has no omitempty), and
// no empty group, version, caBundle, service name or namespace, nor a false
// insecureSkipTLSVerify (all omitempty).
void SetDefaults(nlohmann::json& apiservice);

// A new or changed APIService (ValidateAPIService; an update adds nothing beyond the
// metadata rules the Store checks).
FieldErrors ValidateAPIService(const nlohmann::json& apiservice);
// The status of an APIService (ValidateAPIServiceStatus), under "status".
FieldErrors ValidateAPIServiceStatus(const nlohmann::json& apiservice);

// Whether the APIService is served by this server (no spec.service).
bool IsLocal(const nlohmann::json& apiservice);

}  // namespace aggregator::validation
