#pragma once
// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins, as upstream's webhook
// dispatchers: the webhooks of every Mutating/ValidatingWebhookConfiguration (configurations
// by name, webhooks in their order), each called when its rules, namespaceSelector,
// objectSelector and matchConditions match, with an AdmissionReview over HTTPS.
//
// Mutating webhooks run one after another, their JSON patches applied in turn. A change asks
// the chain for a second pass (admission::Reinvocation: every mutating plugin again), in which
// a webhook whose reinvocationPolicy is IfNeeded is called once more when a later webhook or
// plugin changed the object after it. Validating webhooks run concurrently, each call on its own
// coroutine, all joined before the write goes on; the first refusal to arrive is the answer. A call
// that fails (transport, timeout, an invalid answer) refuses the write with 500 unless the
// failurePolicy is Ignore; a webhook's refusal is its Status ("admission webhook "x" denied
// the request: ..."). Warnings of the answers go to the request's Warning headers.
//
// What differs from upstream: the object is sent in the version it was written in (matchPolicy
// Equivalent matches every version of the resource without converting), and matchConditions
// have no `authorizer`.
//
// Thread-safe: the configurations are read from the watch cache on each call; the webhooks
// made from them are cached per configuration and resourceVersion under a mutex.

#include <memory>

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"
#include "pkg/genericserver/admission/webhook/credentials.h"
#include "pkg/genericserver/transport/webhook_client.h"

namespace admission::webhook {

// `resolve_service` maps a webhook's clientConfig.service to an address to dial;
// `credentials` (may be null) what the server presents to each webhook.
PluginPtr NewMutatingWebhook(std::shared_ptr<const Stores> stores,
                             transport::ServiceResolver resolve_service,
                             std::shared_ptr<const CredentialsResolver> credentials = nullptr);
PluginPtr NewValidatingWebhook(std::shared_ptr<const Stores> stores,
                               transport::ServiceResolver resolve_service,
                               std::shared_ptr<const CredentialsResolver> credentials = nullptr);

}  // namespace admission::webhook
