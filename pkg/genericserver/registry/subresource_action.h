#pragma once
// A request to act rather than an object to store: a subresource acting on its object
// (pods/binding, pods/eviction, answered with a Status), or a resource that is only a
// request (the legacy bindings; the access and token reviews, answered with the review and
// its status). POSTed, never stored itself, answered with 201.

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
  // Acts on the object `name` in `ns` of `store` as `body` asks (for a resource, on the
  // resource's own store with an empty name); the document to answer, or the error.
  virtual Awaitable<Result<nlohmann::json>> Post(Store& store, std::string ns, std::string name,
                                                 nlohmann::json body,
                                                 WriteOptions options) const = 0;
};

}  // namespace registry
