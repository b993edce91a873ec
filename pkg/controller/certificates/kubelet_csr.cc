#include "pkg/controller/certificates/kubelet_csr.h"

#include <vector>

namespace controller::certificates {

namespace {

constexpr char kNodePrefix[] = "system:node:";

const std::set<std::string> kServingUsages = {"digital signature", "key encipherment",
                                              "server auth"};
const std::set<std::string> kServingUsagesNoRSA = {"digital signature", "server auth"};
const std::set<std::string> kClientUsages = {"digital signature", "key encipherment",
                                             "client auth"};
const std::set<std::string> kClientUsagesNoRSA = {"digital signature", "client auth"};

bool OrganizationIsNodes(const pki::CertificateRequestInfo& r) {
  return r.organizations == std::vector<std::string>{"system:nodes"};
}

bool NodeCommonName(const pki::CertificateRequestInfo& r) {
  return r.common_name.starts_with(kNodePrefix);
}

// Go's %v of a sorted []string: "[a b c]".
std::string List(const std::set<std::string>& usages) {
  std::string out = "[";
  for (const std::string& u : usages) {
    if (out.size() > 1) out += " ";
    out += u;
  }
  return out + "]";
}

}  // namespace

std::optional<std::string> ValidateKubeletServingCSR(const pki::CertificateRequestInfo& request,
                                                     const std::set<std::string>& usages) {
  if (!OrganizationIsNodes(request)) return "subject organization is not system:nodes";
  if (request.dns_names.empty() && request.ip_addresses.empty()) {
    return "DNS or IP subjectAltName is required";
  }
  if (!request.email_addresses.empty()) return "Email subjectAltNames are not allowed";
  if (!request.uris.empty()) return "URI subjectAltNames are not allowed";
  if (usages != kServingUsages && usages != kServingUsagesNoRSA) {
    return "usages did not match " + List(kServingUsages);
  }
  if (!NodeCommonName(request)) return "subject common name does not begin with system:node:";
  return std::nullopt;
}

std::optional<std::string> ValidateKubeletClientCSR(const pki::CertificateRequestInfo& request,
                                                    const std::set<std::string>& usages) {
  if (!OrganizationIsNodes(request)) return "subject organization is not system:nodes";
  if (!request.dns_names.empty()) return "DNS subjectAltNames are not allowed";
  if (!request.email_addresses.empty()) return "Email subjectAltNames are not allowed";
  if (!request.ip_addresses.empty()) return "IP subjectAltNames are not allowed";
  if (!request.uris.empty()) return "URI subjectAltNames are not allowed";
  if (!NodeCommonName(request)) return "subject common name does not begin with system:node:";
  if (usages != kClientUsages && usages != kClientUsagesNoRSA) {
    return "usages did not match " + List(kClientUsages);
  }
  return std::nullopt;
}

}  // namespace controller::certificates
