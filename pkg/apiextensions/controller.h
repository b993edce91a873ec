#pragma once
// The CRD controller: watches customresourcedefinitions and, for each, does what upstream's
// naming, establishing and finalizing controllers do together:
//   - accepts the names no other CRD of the group holds (NamesAccepted);
//   - serves the CRD's versions, and only then marks it Established, so a client that saw
//     Established can use the resource at once;
//   - re-serves it when its spec changes (schema updates apply to the next write);
//   - on deletion, stops creates, deletes every custom resource, then drops the
//     customresourcecleanup finalizer so the CRD goes.

#include <atomic>
#include <memory>

#include "pkg/apiextensions/serving.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/hooks.h"
#include "pkg/genericserver/server/lifecycle.h"

namespace apiextensions {

// What the controller has done so far, for the post-start hooks that report it.
// Written on the controller's strand, read from anywhere.
struct CRDControllerProgress {
  // Every CRD of the first list is known (upstream's crd-informer-synced).
  std::atomic<bool> listed{false};
  // ...and served: in discovery, with its resources (start-apiextensions-controllers).
  std::atomic<bool> served{false};
};

// The hook start-apiextensions-informers: starts the controller on a strand of its own and
// returns. The controller lists the CRDs (again every second until it can), serves each,
// and then watches until the server stops; `progress` says how far it got. crds, serving
// and lifecycle must outlive the server.
genericserver::PostStartHookFunc StartCRDController(
    std::shared_ptr<registry::Store> crds, CustomResourceServing& serving,
    genericserver::Lifecycle& lifecycle, std::shared_ptr<CRDControllerProgress> progress);

}  // namespace apiextensions
