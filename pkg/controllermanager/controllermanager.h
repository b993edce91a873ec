#pragma once
// kube-controller-manager's Run, in upstream's order (DESIGN.md section 10; the notes'
// section 4): clients from the kubeconfig with the QPS and burst flags, the event recorder,
// the health checks (`leaderElection` with leader election), secure serving, then either
// leader election (as leader: wait for the API server, StartControllers, start the shared
// informers) or those steps at once. Losing the lease, or a controller failing to start,
// ends the process with exit code 1; SIGTERM and SIGINT end it with 0.
//
// Threads: one io_context run by max(2, cores) threads; each controller, informer, queue
// and the elector live on strands of it.

#include "pkg/controllermanager/options.h"

namespace controllermanager {

// Does not return while it runs; the exit code when it cannot start.
int Run(const KubeControllerManagerOptions& options);

}  // namespace controllermanager
