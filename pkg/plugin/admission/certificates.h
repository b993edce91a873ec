#pragma once
// The admission plugins of CertificateSigningRequests (upstream's certificates/approval,
// certificates/signing and certificates/subjectrestriction), validating phase:
//  - CertificateApproval: a write through `approval` needs the `approve` verb on
//    signers.certificates.k8s.io named the CSR's signerName (or "<domain>/*"), else 403
//    `user not permitted to approve requests with signerName "<name>"`;
//  - CertificateSigning: a write through `status` that changes status.certificate needs
//    `sign` there (`user not permitted to sign requests with signerName "<name>"`);
//  - CertificateSubjectRestriction: a CSR for kubernetes.io/kube-apiserver-client may not
//    ask for the system:masters organization.

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/authz/authorizer.h"

namespace plugin::admission {

::admission::PluginPtr NewCertificateApproval(authz::AuthorizerPtr authorizer);
::admission::PluginPtr NewCertificateSigning(authz::AuthorizerPtr authorizer);
::admission::PluginPtr NewCertificateSubjectRestriction();

}  // namespace plugin::admission
