#pragma once
// What the certificate controllers read of a certificates.k8s.io/v1 CertificateSigningRequest
// (JSON as the API returns it): its approval, its conditions, its decoded request and spec,
// and the well-known signer names. Pure functions over immutable objects; thread-safe.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/client/rest/resource.h"

namespace controller::certificates {

inline const client::GroupVersionResource kCSRs{"certificates.k8s.io", "v1",
                                                "certificatesigningrequests"};

inline constexpr char kKubeletServingSignerName[] = "kubernetes.io/kubelet-serving";
inline constexpr char kKubeAPIServerClientKubeletSignerName[] =
    "kubernetes.io/kube-apiserver-client-kubelet";
inline constexpr char kKubeAPIServerClientSignerName[] = "kubernetes.io/kube-apiserver-client";
inline constexpr char kLegacyUnknownSignerName[] = "kubernetes.io/legacy-unknown";

// Condition types.
inline constexpr char kApproved[] = "Approved";
inline constexpr char kDenied[] = "Denied";
inline constexpr char kFailed[] = "Failed";

// Upstream's GetCertApprovalCondition: whether any condition is of type Approved, Denied.
struct Approval {
  bool approved = false;
  bool denied = false;
};
Approval GetApproval(const nlohmann::json& csr);
// Approved and not denied (IsCertificateRequestApproved).
bool IsApproved(const nlohmann::json& csr);
// A condition of the type whose status is True or empty (HasTrueCondition).
bool HasTrueCondition(const nlohmann::json& csr, const std::string& type);

// status.certificate decoded (empty when there is none or it is not base64).
std::string IssuedCertificate(const nlohmann::json& csr);
// spec.request decoded: the PEM certificate request (empty when not base64).
std::string RequestPEM(const nlohmann::json& csr);
std::vector<std::string> Usages(const nlohmann::json& csr);
std::set<std::string> UsageSet(const nlohmann::json& csr);
std::optional<int64_t> ExpirationSeconds(const nlohmann::json& csr);
std::string Name(const nlohmann::json& csr);
std::string SignerName(const nlohmann::json& csr);

}  // namespace controller::certificates
