#pragma once
// ObjectMeta rules every resource shares (upstream's api/validation/objectmeta.go and
// rest.BeforeCreate/BeforeUpdate): names, namespaces, labels, annotations, finalizers,
// owner references, and what a client may not change.

#include <chrono>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/strategy.h"
#include "pkg/util/timestamp.h"

namespace registry {

// metadata.<field> of an object when it is a string, else "".
std::string MetaString(const nlohmann::json& object, std::string_view field);

// Drops what upstream's typed encoding would not show: empty or null labels,
// annotations, finalizers, ownerReferences and managedFields, and null metadata fields.
void NormalizeMetadata(nlohmann::json& object);

using util::FormatTime;
using util::ParseTime;
std::string NowTimestamp();

// generateName (at most its first 58 characters) plus five random characters from upstream's
// alphabet.
std::string GenerateName(std::string_view prefix);

// Metadata of a new object. namespaced: whether the kind lives in namespaces; names: the
// kind's rule for metadata.name and generateName.
FieldErrors ValidateObjectMeta(const nlohmann::json& object, bool namespaced,
                               apimachinery::validation::NameRule names);
// What an update may not change (name, namespace, uid, creationTimestamp, ...), plus
// everything ValidateObjectMeta checks.
FieldErrors ValidateObjectMetaUpdate(const nlohmann::json& object, const nlohmann::json& old,
                                     bool namespaced, apimachinery::validation::NameRule names);
// The path-segment check of every new object's name and generateName, which upstream runs
// once the kind's own validation passed (rest.BeforeCreate).
FieldErrors ValidateNamePathSegments(const nlohmann::json& object);

// Whether anything besides metadata and status differs (a change of the "spec").
bool SpecChanged(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace registry
