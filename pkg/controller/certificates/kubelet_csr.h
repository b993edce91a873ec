#pragma once
// The rules a kubelet's certificate requests follow (upstream's ValidateKubeletServingCSR
// and ValidateKubeletClientCSR in pkg/apis/certificates), shared by the signer, which fails
// requests that break them, and the approver, which auto-approves only node client requests:
//  - serving: organization exactly [system:nodes], at least one DNS or IP name, no email or
//    URI names, usages {digital signature, key encipherment, server auth} (key encipherment
//    optional), common name "system:node:...";
//  - client: organization exactly [system:nodes], no DNS, email, IP or URI names, common name
//    "system:node:...", usages {digital signature, key encipherment, client auth} (key
//    encipherment optional).
// The first rule broken is the error, with upstream's message. Pure.

#include <optional>
#include <set>
#include <string>

#include "pkg/pki/sign_csr.h"

namespace controller::certificates {

std::optional<std::string> ValidateKubeletServingCSR(const pki::CertificateRequestInfo& request,
                                                     const std::set<std::string>& usages);
std::optional<std::string> ValidateKubeletClientCSR(const pki::CertificateRequestInfo& request,
                                                    const std::set<std::string>& usages);
inline bool IsKubeletClientCSR(const pki::CertificateRequestInfo& request,
                               const std::set<std::string>& usages) {
  return !ValidateKubeletClientCSR(request, usages);
}

}  // namespace controller::certificates
