#pragma once
// Reading the objects controllers get (informer caches, API responses) without assuming
// their shape: a field that is absent or of another type reads as null or "", never
// throws. And the DeleteOptions a controller deletes one object it has seen with. Pure.

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace controller {

// object[key]; null when object is not an object or lacks the key.
const nlohmann::json& Field(const nlohmann::json& object, std::string_view key);
// object[key] when it is a string, else "".
std::string Str(const nlohmann::json& object, std::string_view key);
// metadata[field] ("name", "namespace", "uid", ...) when it is a string, else "".
std::string Meta(const nlohmann::json& object, std::string_view field);
// metadata.annotations[key] when it is a string, else "".
std::string Annotation(const nlohmann::json& object, std::string_view key);

// DeleteOptions (v1) with preconditions.uid when `uid` is not empty (so that only the
// object seen is deleted, not one made again under its name: the server answers Conflict),
// and propagationPolicy ("Foreground", ...) when given.
nlohmann::json DeleteOptionsWithUID(std::string_view uid, std::string_view propagation_policy = {});

}  // namespace controller
