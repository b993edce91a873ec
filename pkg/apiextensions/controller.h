#pragma once
// The CRD controller: watches customresourcedefinitions and, for each, does what upstream's
// naming, establishing and finalizing controllers do together:
//   - accepts the names no other CRD of the group holds (NamesAccepted);
//   - serves the CRD's versions, and only then marks it Established, so a client that saw
//     Established can use the resource at once;
//   - re-serves it when its spec changes (schema updates apply to the next write);
//   - on deletion, stops creates, deletes every custom resource, then drops the
//     customresourcecleanup finalizer so the CRD goes.

#include <memory>

#include "pkg/apiextensions/serving.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/hooks.h"
#include "pkg/genericserver/server/lifecycle.h"

namespace apiextensions {

// A post-start hook that serves every existing CRD before it returns (so /readyz waits for
// them) and then keeps watching in the background until the server stops. crds, serving
// and lifecycle must outlive the server.
genericserver::PostStartHookFunc CRDController(std::shared_ptr<registry::Store> crds,
                                               CustomResourceServing& serving,
                                               genericserver::Lifecycle& lifecycle);

}  // namespace apiextensions
