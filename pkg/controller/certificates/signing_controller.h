#pragma once
// certificatesigningrequest-signing-controller (csrsigning): issues the certificates of
// approved CertificateSigningRequests for the signers kubernetes.io/kubelet-serving,
// kubernetes.io/kube-apiserver-client-kubelet, kubernetes.io/kube-apiserver-client and
// kubernetes.io/legacy-unknown, each a controller of its own ("csrsigning-kubelet-serving",
// ..., five workers each) with the CA of --cluster-signing-{cert,key}-file, or of its
// --cluster-signing-<signer>-{cert,key}-file when those are given instead (a signer without
// files then does not run). A request its signer refuses gets the condition Failed
// (SignerValidationFailure, the reason as message); an accepted one gets status.certificate;
// both are written with PUT .../status. Without any signing files the controller is skipped
// ("Skipping CSR signer controller because no csr cert/key was specified").
//
// Threads: as certificate_controller.h; the signers are immutable.

#include <expected>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controller::certificates {

std::expected<InitResult, std::string> StartCSRSigningController(ControllerContext& ctx);

}  // namespace controller::certificates
