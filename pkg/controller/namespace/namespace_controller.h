#pragma once
// namespace-controller: empties namespaces being deleted and then removes their
// `kubernetes` finalizer (through /finalize), so the API server can delete them. As
// upstream's NamespaceController and its NamespacedResourcesDeleter:
//  - namespaces with a deletionTimestamp are queued 5 s after the change (the deletion
//    grace period), and again every --namespace-sync-period;
//  - every namespaced resource discovery finds (built-ins, custom resources, aggregated
//    APIs) is emptied with one deletecollection (or a list and a delete of each item when
//    the resource has none), background propagation;
//  - what remains is listed; the namespace's five deletion conditions say what failed and
//    what remains (counts per resource, finalizers still held), and the namespace is
//    queued again after (estimate / 2 + 1) s, the estimate 15 s while finalizers remain;
//  - once nothing remains and nothing failed, `kubernetes` is removed from spec.finalizers.
// Failures retry with per-item backoff from 5 ms to 60 s (and the overall bucket).
//
// Threads: the informer's handler only enqueues; the syncs run on the queue's strand,
// --concurrent-namespace-syncs of them interleaved at their awaits.

#include <expected>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/controller_context.h"

namespace controller::namespacecontroller {

// What a pass over the namespace's content found: per failure kind, the messages; the
// instances left per resource ("configmaps." or "widgets.example.com") and per finalizer.
struct ContentReport {
  std::vector<std::string> discovery_failures;  // "group/version: error"
  std::vector<std::string> parse_failures;
  std::vector<std::string> deletion_failures;
  std::map<std::string, int> remaining_by_resource;
  std::map<std::string, int> remaining_by_finalizer;
};

// The namespace's status.conditions after a pass: the five types in upstream's order, each
// True with its failure reason and message or False with its ok reason; lastTransitionTime
// kept from `old_conditions` when the status did not change, else `now`.
nlohmann::json DeletionConditions(const ContentReport& report, const nlohmann::json& old_conditions,
                                  const std::string& now);

std::expected<InitResult, std::string> StartNamespaceController(ControllerContext& ctx);

}  // namespace controller::namespacecontroller
