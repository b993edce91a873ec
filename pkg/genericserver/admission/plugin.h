#pragma once
// An admission plugin, as upstream's admission.Interface with its MutationInterface and
// ValidationInterface: Admit may change a new or changed object in the mutating phase
// (before the strategy prepares and validates it), Validate checks the object as it will be
// stored. A Chain runs the enabled plugins in upstream's order, every mutating phase before
// every validating one; the first refusal ends the write with its Status.
//
// Deletions reach the plugins that handle kDelete, Admit then Validate, with the object
// about to be deleted as `old` and a null object (as upstream's deleteValidation).
//
// Plugins are immutable after construction (or guard what they cache) and are called from
// any request's coroutine.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/awaitable.h"

namespace admission {

enum class Operation { kCreate, kUpdate, kDelete };

// The reinvocation of a mutating phase (upstream's admission.ReinvocationContext): when a
// plugin asks for one during the first pass (a mutating webhook changed the object), the
// chain runs every plugin's Admit once more, in-tree ones included, so that they see what
// the webhooks made (a sidecar gets the service account token too). `state` is a plugin's
// own memory between the passes, by its name. One per write; on the request's coroutine.
struct Reinvocation {
  bool second_pass = false;
  bool requested = false;
  std::map<std::string, std::shared_ptr<void>> state;
};

// What is being written (upstream's admission.Attributes): the kind, the stored object of
// an update, who writes, through which subresource, whether it is a dry run.
struct Attributes {
  Operation operation;
  const registry::ResourceSpec& spec;
  const nlohmann::json* old;              // null for a create
  const registry::WriteOptions& options;  // a deletion's: dry_run and user
  std::string ns, name;
  const registry::DeleteOptions* deletion = nullptr;  // kDelete's options
  Reinvocation* reinvocation = nullptr;               // the mutating phase's (else null)
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  // Whether the plugin is called for the operation: creates and updates unless it says.
  virtual bool Handles(Operation operation) const { return operation != Operation::kDelete; }
  virtual Awaitable<std::optional<apimachinery::Status>> Admit(const Attributes& attributes,
                                                               nlohmann::json& object) const;
  virtual Awaitable<std::optional<apimachinery::Status>> Validate(
      const Attributes& attributes, const nlohmann::json& object) const;
};
using PluginPtr = std::shared_ptr<const Plugin>;

// The plugins, in the order given, as a Store's admission.
registry::Admission Chain(std::vector<PluginPtr> plugins);

}  // namespace admission
