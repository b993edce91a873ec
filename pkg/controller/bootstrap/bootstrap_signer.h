#pragma once
// bootstrap-signer-controller (disabled by default, as upstream): keeps the `cluster-info`
// ConfigMap of kube-public signed, as upstream's Signer. For every bootstrap token Secret
// of kube-system that may sign (token_secret.h's TokenForSigning), data key
// `jws-kubeconfig-<token-id>` holds the detached JWS of data `kubeconfig`
// (detached_jws.h); signatures of other ids are removed; the ConfigMap is written (an
// update of the cached object) only when a signature changed, appeared or went. A
// ConfigMap without `kubeconfig` is left alone. The ConfigMap added or updated, or a
// token Secret added, updated or deleted, queues the one key; one worker. As upstream,
// an update that fails is logged, not retried: the change that made it fail (Conflict)
// queues the key again. A token is not looked at again when it expires; the token
// cleaner's delete of it is what removes its signature.
//
// Threads: the handlers run on the informers' strands and only enqueue; the sync runs on
// the queue's strand.

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/clusterbootstrap/token_secret.h"
#include "pkg/controller/controller_context.h"

namespace controller::bootstrap {

inline constexpr char kClusterInfoNamespace[] = "kube-public";
inline constexpr char kClusterInfoName[] = "cluster-info";
inline constexpr char kKubeConfigKey[] = "kubeconfig";
inline constexpr char kJWSSignatureKeyPrefix[] = "jws-kubeconfig-";

// The ConfigMap's new `data` with the signatures of `secrets` (those of the token
// namespace; others are ignored) over its kubeconfig, or std::nullopt when it has no
// kubeconfig or its signatures are already those.
std::optional<nlohmann::json> SignedData(const nlohmann::json& configmap,
                                         const std::vector<client::ObjectPtr>& secrets,
                                         clusterbootstrap::Time now);

std::expected<InitResult, std::string> StartBootstrapSignerController(ControllerContext& ctx);

}  // namespace controller::bootstrap
