#pragma once
// Built-in resources from the schema data: what upstream's paths say about a resource
// (kind, scope, verbs, a status subresource) becomes its ResourceSpec, and a kind adds
// only what is its own: defaults, validation, table columns, short names.

#include <functional>
#include <memory>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/validation/name_rule.h"
#include "pkg/genericserver/registry/resource_spec.h"

namespace master::resources {

// What a built-in kind does beyond the generic Store, each optional.
struct KindHooks {
  // Upstream's defaulting (SetDefaults_*): fills empty fields on every write.
  std::function<void(nlohmann::json&)> defaults;
  // On create, after defaulting: what the kind's strategy sets (an initial status).
  std::function<void(nlohmann::json&)> prepare_create;
  // Kind-specific validation of a new or changed object.
  std::function<registry::FieldErrors(const nlohmann::json&)> validate;
  // What an update may not change (immutable fields), in addition to validate.
  std::function<registry::FieldErrors(const nlohmann::json&, const nlohmann::json&)>
      validate_update;
  // metadata.generation counts changes outside metadata and status.
  bool generation = false;
  // A PUT of a missing object creates it.
  bool create_on_update = false;
  // Orphan and Foreground deletions add the garbage collector's finalizers (false for
  // kinds upstream deletes at once whatever the policy: events).
  bool garbage_collected = true;
  // A PUT without metadata.resourceVersion is allowed (on the main resource and /status).
  bool unconditional_update = true;
  // What the /status subresource keeps as stored (besides the spec), when there is one.
  registry::StatusOptions status;
  // The rule for metadata.name and generateName (upstream's ValidateNameFunc).
  apimachinery::validation::NameRule names = apimachinery::validation::NameRule::kDNS1123Subdomain;
};

// The strategy made of hooks; status_subresource: the main resource keeps status as
// stored (and a create starts without one, unless prepare_create sets it).
std::shared_ptr<registry::Strategy> MakeStrategy(KindHooks hooks, bool status_subresource);

// The ResourceSpec of `plural` in `group_version` ("apps/v1", "v1") as upstream serves it:
// kind, scope and verbs from the schema data, and its status subresource when upstream has
// one (spec ignored there, status ignored on the main resource). Completed by Finish() once
// the caller added its columns and names.
std::shared_ptr<registry::ResourceSpec> Builtin(std::string_view group_version,
                                                std::string_view plural, KindHooks hooks = {});

}  // namespace master::resources
