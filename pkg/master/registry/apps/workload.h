#pragma once
// What the controllers' kinds share (deployments, replica sets, stateful sets, daemon sets,
// replication controllers, jobs): the label selector rules against the pod template, its
// immutability, Go's printing of a selector in error messages, and the wide table columns
// CONTAINERS / IMAGES / SELECTOR.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace master::resources {

// A metav1.LabelSelector as kubectl prints it: "app=web,tier in (a,b)", "<none>" when empty.
std::string FormatLabelSelector(const nlohmann::json& selector);
// Whether a metav1.LabelSelector selects the labels (an object of strings).
bool SelectorMatches(const nlohmann::json& selector, const nlohmann::json& labels);
// Go's %#v of a map[string]string and of a metav1.LabelSelector, as upstream's errors show.
std::string GoStringMap(const nlohmann::json& map);
std::string GoLabelSelector(const nlohmann::json& selector);

// spec.selector required and not empty (`kind` names the resource in the message:
// "deployment"), spec.template.metadata.labels selected by it.
void ValidateSelector(const nlohmann::json& object, const std::string& kind,
                      registry::FieldErrors& errors);
// spec.template.spec of a controller whose pods always restart (everything but jobs): the
// pod spec rules and restartPolicy Always. claims: volume names the template's containers
// may mount besides its volumes (a stateful set's claim templates).
void ValidateAlwaysRestartingTemplate(const nlohmann::json& object, registry::FieldErrors& errors,
                                      const std::vector<std::string>& claims = {});
// apps/v1 selectors do not change after creation (a KindHooks::validate_update).
registry::FieldErrors SelectorUnchanged(const nlohmann::json& object, const nlohmann::json& old);
// spec.replicas (when set) >= 0, and other non-negative counts of spec.
void ValidateNonNegative(const nlohmann::json& object, const std::vector<const char*>& fields,
                         registry::FieldErrors& errors);

// The -o wide columns of a kind with a pod template, and their cells for an object whose
// template is `pod_template` (selector: the object's spec.selector).
std::vector<registry::TableColumn> TemplateColumns();
void AppendTemplateCells(const nlohmann::json& pod_template, const nlohmann::json& selector,
                         std::vector<nlohmann::json>& row);

// The NAME, DESIRED, CURRENT, READY, AGE table (and the wide template columns) of replica
// sets and replication controllers; `selector` gives the object's metav1.LabelSelector.
void SetReplicaTable(registry::ResourceSpec& spec,
                     std::function<nlohmann::json(const nlohmann::json& object)> selector);

}  // namespace master::resources
