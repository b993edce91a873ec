#pragma once
// A subresource that is a request to act on its object rather than a form of it
// (pods/binding, pods/eviction): POSTed, never stored itself; answered with a Status.

#include <expected>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/awaitable.h"

namespace registry {

class SubresourceAction {
 public:
  virtual ~SubresourceAction() = default;
  // Acts on the object `name` in `ns` of `store` as `body` asks; the success Status to
  // answer (code 201 as upstream), or the error.
  virtual Awaitable<Result<apimachinery::Status>> Post(Store& store, std::string ns,
                                                       std::string name, nlohmann::json body,
                                                       WriteOptions options) const = 0;
};

}  // namespace registry
