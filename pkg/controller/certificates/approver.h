#pragma once
// certificatesigningrequest-approving-controller (csrapproving): upstream's sarApprover. A
// pending request (no certificate, neither Approved nor Denied) for the signer
// kubernetes.io/kube-apiserver-client-kubelet that is a node client request (the kubelet
// client rules of kubelet_csr.h) is approved when a SubjectAccessReview as its requester
// (spec.username, uid, groups, extra) allows `create` on certificatesigningrequests/
// selfnodeclient (the requester is the node the request names: spec.username equals the
// common name) or certificatesigningrequests/nodeclient, tried in that order. Approval is
// the condition Approved (reason AutoApproved, upstream's message) written with PUT
// .../approval; a recognized request no review allows is retried with backoff (an
// ignorable error, as upstream). Five workers.
//
// Threads: as certificate_controller.h; Decide runs on the caller's strand.

#include <expected>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/certificates/certificate_controller.h"
#include "pkg/controller/controller_context.h"
#include "pkg/pki/sign_csr.h"

namespace controller::certificates {

// One kind of request the approver recognizes and the permission that approves it.
struct Recognizer {
  bool self = false;        // the requester must be the node named in the request
  std::string subresource;  // "selfnodeclient", "nodeclient"
  std::string message;      // the Approved condition's message
};
const std::vector<Recognizer>& Recognizers();
// Whether the recognizer takes this request (parsed from the CSR's spec.request).
bool Recognizes(const Recognizer& r, const nlohmann::json& csr,
                const pki::CertificateRequestInfo& request);

// The SubjectAccessReview asking whether the requester may `create` the recognizer's
// subresource of certificatesigningrequests.
nlohmann::json SubjectAccessReviewFor(const nlohmann::json& csr, const Recognizer& r);

// Asks whether a review allows: true, false, or the request failed.
using Authorize = std::function<Awaitable<std::expected<bool, std::string>>(nlohmann::json review)>;

struct ApprovalDecision {
  bool approve = false;
  std::string message;  // the Approved condition's message
};
// What the approver does with `csr`: approve it, nothing, or an error (ignorable when the
// request was recognized but no review allowed it).
Awaitable<std::expected<ApprovalDecision, HandleError>> DecideApproval(nlohmann::json csr,
                                                                       Authorize authorize);

std::expected<InitResult, std::string> StartCSRApprovingController(ControllerContext& ctx);

}  // namespace controller::certificates
