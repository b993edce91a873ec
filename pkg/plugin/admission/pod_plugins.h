#pragma once
// Admission plugins of kube-apiserver that set up pods as they are created, as upstream's
// plugin/pkg/admission does (mutating phase, pods only, not through subresources):
//  - ServiceAccount: serviceAccountName defaults to "default", which must exist (403 "error
//    looking up service account <ns>/<name>: ..."); unless automountServiceAccountToken says
//    otherwise (the pod's, then the account's), a projected `kube-api-access-<5 chars>`
//    volume (a bound token, kube-root-ca.crt's ca.crt and the namespace) is mounted read-only
//    at /var/run/secrets/kubernetes.io/serviceaccount in every container and init container
//    that mounts nothing there; the account's imagePullSecrets when the pod names none.
//  - Priority: priorityClassName resolved to priority and preemptionPolicy (the global
//    default class, the lowest when several, for a pod naming none; priority 0 and
//    PreemptLowerPriority without one); an unknown class, or a priority or policy the pod
//    sets that the class does not give, is a 403; an update keeps them. PriorityClasses: only
//    one globalDefault.
//  - DefaultTolerationSeconds: tolerations of node.kubernetes.io/not-ready and /unreachable
//    (NoExecute, for --default-not-ready-toleration-seconds and
//    --default-unreachable-toleration-seconds) unless the pod tolerates them already.
//  - RuntimeClass: a pod naming a runtimeClassName needs that RuntimeClass (403 "pod
//    rejected: RuntimeClass "x" not found"), gets its overhead.podFixed as spec.overhead
//    (a different overhead is refused, as is an overhead without a class that gives one)
//    and its scheduling's nodeSelector (a conflicting value refused) and tolerations.
//  - AlwaysPullImages (off by default): every container's imagePullPolicy becomes Always on
//    create, and on an update that brings a new image.

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"

namespace plugin::admission {

// The plugins read the service accounts and priority classes from `stores`.
::admission::PluginPtr NewServiceAccount(std::shared_ptr<const ::admission::Stores> stores);
::admission::PluginPtr NewPriority(std::shared_ptr<const ::admission::Stores> stores);
::admission::PluginPtr NewDefaultTolerationSeconds(int64_t not_ready_seconds = 300,
                                                   int64_t unreachable_seconds = 300);
::admission::PluginPtr NewRuntimeClass(std::shared_ptr<const ::admission::Stores> stores);
::admission::PluginPtr NewAlwaysPullImages();

}  // namespace plugin::admission
