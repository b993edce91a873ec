#pragma once
// Keeps an in-memory view (the RBAC authorizer's policy, what service-account tokens are
// checked against) equal to what a store holds: the store is listed, then watched from the
// list's revision, and listed again whenever its watch ends, until the server shuts down.
// Reads come from the watch caches, as upstream's informers read through its loopback
// client.
//
// Each store is followed by one coroutine on a strand of its own, which calls the
// handlers one at a time; the views they feed must be thread-safe, as others read them
// meanwhile.

#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/lifecycle.h"

namespace boost::asio {
class io_context;
}

namespace master {

struct FeedHandlers {
  std::function<void(const std::vector<nlohmann::json>&)> replace;  // after each list
  std::function<void(const nlohmann::json&)> upsert, remove;
};

// The handlers that keep one kind of a view with Replace, MarkSynced, Upsert and Remove
// (authz::rbac::PolicyIndex, authn::ServiceAccountObjects) up to date.
template <class View, class Kind>
FeedHandlers FeedInto(std::shared_ptr<View> view, Kind kind) {
  return {[view, kind](const std::vector<nlohmann::json>& all) {
            view->Replace(kind, all);
            view->MarkSynced(kind);
          },
          [view, kind](const nlohmann::json& o) { view->Upsert(kind, o); },
          [view, kind](const nlohmann::json& o) { view->Remove(kind, o); }};
}

// Starts following once `io` runs. The lifecycle must outlive it.
void StartStoreFeed(std::shared_ptr<registry::Store> store, FeedHandlers handlers,
                    genericserver::Lifecycle& lifecycle, boost::asio::io_context& io);

}  // namespace master
