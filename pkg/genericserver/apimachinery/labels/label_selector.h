#pragma once
// metav1.LabelSelector (matchLabels, matchExpressions) as a Selector, as upstream's
// LabelSelectorAsSelector: a null selector matches nothing (std::nullopt), an empty one
// everything; operators In, NotIn, Exists, DoesNotExist; errors as upstream words them
// (`"Foo" is not a valid label selector operator`).

#include <expected>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/labels/selector.h"

namespace apimachinery::labels {

std::expected<std::optional<Selector>, std::string> FromLabelSelector(
    const nlohmann::json& label_selector);

// metadata.labels of an object (non-string values ignored).
std::map<std::string, std::string> LabelsOf(const nlohmann::json& object);

}  // namespace apimachinery::labels
