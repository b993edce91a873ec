#pragma once
// The CSR signer's rules (upstream's pkg/controller/certificates/signer), without I/O:
//  - which requests a signer takes and how it checks them: kubelet-serving and
//    kube-apiserver-client-kubelet apply the kubelet rules (kubelet_csr.h),
//    kube-apiserver-client allows only digital signature, key encipherment and (required)
//    client auth, legacy-unknown takes anything;
//  - the certificate's lifetime: --cluster-signing-duration, or spec.expirationSeconds when
//    shorter (but at least 10 minutes);
//  - its validity: NotBefore 5 minutes back; NotAfter now + lifetime, minus those 5 minutes
//    when the lifetime is 8 hours or more; never past the CA's own expiry;
//  - what to do with a request: nothing (not approved, failed, another signer's, issued),
//    fail it (SignerValidationFailure), or issue the certificate.
// A Signer is immutable once made; thread-safe.

#include <chrono>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/pki/pki.h"
#include "pkg/pki/sign_csr.h"

namespace controller::certificates {

using SystemTime = std::chrono::system_clock::time_point;

inline constexpr std::chrono::minutes kBackdate{5};
inline constexpr std::chrono::hours kShortLived{8};

// upstream's isRequestForSignerFunc: whether the request is for this signer, and if so why
// it may not be signed (empty: it may).
struct SignerCheck {
  bool recognized = false;
  std::optional<std::string> error;
};
SignerCheck CheckRequestForSigner(const std::string& signer_name,
                                  const std::string& requested_signer,
                                  const pki::CertificateRequestInfo& request,
                                  const std::vector<std::string>& usages);

std::chrono::seconds CertificateDuration(std::chrono::seconds max_ttl,
                                         std::optional<int64_t> expiration_seconds);

struct Validity {
  SystemTime not_before, not_after;
};
// Errors: "the signer has expired: NotAfter=...", "refusing to sign a certificate that
// expired in the past: NotAfter=...".
std::expected<Validity, std::string> CertificateValidity(SystemTime now, std::chrono::seconds ttl,
                                                         SystemTime signer_not_after);

// What the signer does with a request.
struct SignDecision {
  enum Action { kNothing, kFail, kIssue } action = kNothing;
  std::string message;      // kFail: the Failed condition's message
  std::string certificate;  // kIssue: the PEM
};

class Signer {
 public:
  // Fails when the CA pair does not load or does not match.
  static std::expected<Signer, std::string> New(std::string signer_name, pki::KeyPair ca,
                                                std::chrono::seconds cert_ttl);
  const std::string& signer_name() const { return signer_name_; }
  // What to do with `csr` at `now`; an error (the request does not parse, signing failed) is
  // retried by the controller.
  std::expected<SignDecision, std::string> Decide(const nlohmann::json& csr, SystemTime now) const;

 private:
  Signer() = default;
  std::string signer_name_;
  pki::KeyPair ca_;
  SystemTime ca_not_after_{};
  std::chrono::seconds cert_ttl_{0};
};

}  // namespace controller::certificates
