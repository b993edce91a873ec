#pragma once
// An admission plugin, as upstream's admission.Interface with its MutationInterface and
// ValidationInterface: Admit may change a new or changed object in the mutating phase
// (before the strategy prepares and validates it), Validate checks the object as it will be
// stored. A Chain runs the enabled plugins in upstream's order, every mutating phase before
// every validating one; the first refusal ends the write with its Status.
//
// Plugins are immutable after construction (or guard what they cache) and are called from
// any request's coroutine.

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

enum class Operation { kCreate, kUpdate };

// What is being written (upstream's admission.Attributes): the kind, the stored object of
// an update, who writes, through which subresource, whether it is a dry run.
struct Attributes {
  Operation operation;
  const registry::ResourceSpec& spec;
  const nlohmann::json* old;  // null for a create
  const registry::WriteOptions& options;
  std::string ns, name;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual Awaitable<std::optional<apimachinery::Status>> Admit(const Attributes& attributes,
                                                               nlohmann::json& object) const;
  virtual Awaitable<std::optional<apimachinery::Status>> Validate(
      const Attributes& attributes, const nlohmann::json& object) const;
};
using PluginPtr = std::shared_ptr<const Plugin>;

// The plugins, in the order given, as a Store's admission.
registry::Admission Chain(std::vector<PluginPtr> plugins);

}  // namespace admission
