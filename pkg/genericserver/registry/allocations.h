#pragma once
// What an object holds outside itself (a Service's cluster IPs and node ports): reserved
// by the Store before the object is written, freed when the object no longer holds it.

#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/server/awaitable.h"

namespace registry {

class Allocations {
 public:
  virtual ~Allocations() = default;
  // Reserves what `object` needs that `old` (the stored object; null on create) does not
  // hold, filling in what the server picks (an allocated IP). Reserving again for the same
  // object reserves nothing new. With dry_run, checks and fills in without reserving.
  // Returns the error to answer (422 for a value taken or out of range).
  virtual Awaitable<std::optional<apimachinery::Status>> Reserve(nlohmann::json& object,
                                                                 const nlohmann::json* old,
                                                                 bool dry_run) const = 0;
  // Frees what `released` holds and `kept` (null: nothing) does not.
  virtual Awaitable<void> Free(const nlohmann::json& released,
                               const nlohmann::json* kept) const = 0;
};

}  // namespace registry
