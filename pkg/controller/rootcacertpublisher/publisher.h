#pragma once
// root-ca-certificate-publisher-controller: the ConfigMap `kube-root-ca.crt` in every
// active namespace holds `ca.crt`, the cluster's root CA (--root-ca-file, else the
// kubeconfig's CA), with upstream's `kubernetes.io/description` annotation. A namespace
// added or updated, or that ConfigMap changed or deleted, queues the namespace; the sync
// creates the ConfigMap or puts back its data and annotation.
//
// Threads: handlers run on the informers' strands and only enqueue; the sync runs on the
// queue's strand.

#include <expected>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controller::rootcacertpublisher {

inline constexpr char kRootCAConfigMapName[] = "kube-root-ca.crt";

std::expected<InitResult, std::string> StartRootCACertPublisher(ControllerContext& ctx);

}  // namespace controller::rootcacertpublisher
