#pragma once
// ObjectMeta rules every resource shares (upstream's api/validation/objectmeta.go and
// rest.BeforeCreate/BeforeUpdate): names, namespaces, labels, annotations, finalizers,
// owner references, and what a client may not change.

#include <chrono>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/strategy.h"

namespace registry {

// metadata.<field> of an object when it is a string, else "".
std::string MetaString(const nlohmann::json& object, std::string_view field);

// Drops what upstream's typed encoding would not show: empty or null labels,
// annotations, finalizers, ownerReferences and managedFields, and null metadata fields.
void NormalizeMetadata(nlohmann::json& object);

// RFC 3339 in UTC with second precision, as metav1.Time serialises: 2026-11-30T12:00:00Z.
std::string FormatTime(std::chrono::system_clock::time_point t);
std::optional<std::chrono::system_clock::time_point> ParseTime(std::string_view s);
std::string NowTimestamp();

// generateName plus five random characters from upstream's alphabet.
std::string GenerateName(std::string_view prefix);

// Metadata of a new object. namespaced: whether the kind lives in namespaces;
// dns_label: names are DNS-1123 labels (namespaces) rather than subdomains; path_segment:
// names need only be path segments (Strategy::NameIsPathSegment).
FieldErrors ValidateObjectMeta(const nlohmann::json& object, bool namespaced, bool dns_label,
                               bool path_segment = false);
// What an update may not change (name, namespace, uid, creationTimestamp, ...), plus
// everything ValidateObjectMeta checks.
FieldErrors ValidateObjectMetaUpdate(const nlohmann::json& object, const nlohmann::json& old,
                                     bool namespaced, bool dns_label, bool path_segment = false);

// Whether anything besides metadata and status differs (a change of the "spec").
bool SpecChanged(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace registry
