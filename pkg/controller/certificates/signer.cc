#include "pkg/controller/certificates/signer.h"

#include <ctime>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/controller/certificates/csr.h"
#include "pkg/controller/certificates/kubelet_csr.h"

namespace controller::certificates {

namespace {

// Go's time.Time %v: "2026-12-03 10:00:00 +0000 UTC".
std::string GoTime(SystemTime t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S +0000 UTC", &tm);
  return buf;
}

std::optional<std::string> ValidAPIServerClientUsages(const std::vector<std::string>& usages) {
  bool client_auth = false;
  for (const std::string& u : usages) {
    if (u == "digital signature" || u == "key encipherment") continue;
    if (u == "client auth") {
      client_auth = true;
      continue;
    }
    return "invalid usage for client certificate: " + u;
  }
  if (!client_auth)
    return std::string("missing required usage for client certificate: client auth");
  return std::nullopt;
}

}  // namespace

SignerCheck CheckRequestForSigner(const std::string& signer_name,
                                  const std::string& requested_signer,
                                  const pki::CertificateRequestInfo& request,
                                  const std::vector<std::string>& usages) {
  SignerCheck check;
  if (requested_signer != signer_name) return check;
  check.recognized = true;
  const std::set<std::string> usage_set(usages.begin(), usages.end());
  if (signer_name == kKubeletServingSignerName) {
    check.error = ValidateKubeletServingCSR(request, usage_set);
  } else if (signer_name == kKubeAPIServerClientKubeletSignerName) {
    check.error = ValidateKubeletClientCSR(request, usage_set);
  } else if (signer_name == kKubeAPIServerClientSignerName) {
    check.error = ValidAPIServerClientUsages(usages);
  } else if (signer_name != kLegacyUnknownSignerName) {
    check.recognized = false;  // not a signer of this controller
  }
  return check;
}

std::chrono::seconds CertificateDuration(std::chrono::seconds max_ttl,
                                         std::optional<int64_t> expiration_seconds) {
  if (!expiration_seconds) return max_ttl;
  constexpr std::chrono::seconds kMin = std::chrono::minutes(10);
  const std::chrono::seconds requested(*expiration_seconds);
  if (requested > max_ttl) return max_ttl;
  if (requested < kMin) return kMin;
  return requested;
}

std::expected<Validity, std::string> CertificateValidity(SystemTime now, std::chrono::seconds ttl,
                                                         SystemTime signer_not_after) {
  Validity v;
  v.not_before = now - kBackdate;
  v.not_after = ttl < kShortLived ? now + ttl : now + ttl - kBackdate;
  if (v.not_after >= signer_not_after) v.not_after = signer_not_after;
  if (v.not_before >= signer_not_after) {
    return std::unexpected("the signer has expired: NotAfter=" + GoTime(signer_not_after));
  }
  if (now >= signer_not_after) {
    return std::unexpected("refusing to sign a certificate that expired in the past: NotAfter=" +
                           GoTime(signer_not_after));
  }
  return v;
}

std::expected<Signer, std::string> Signer::New(std::string signer_name, pki::KeyPair ca,
                                               std::chrono::seconds cert_ttl) {
  if (signer_name != kKubeletServingSignerName &&
      signer_name != kKubeAPIServerClientKubeletSignerName &&
      signer_name != kKubeAPIServerClientSignerName && signer_name != kLegacyUnknownSignerName) {
    return std::unexpected("unrecognized signerName: \"" + signer_name + "\"");
  }
  auto not_after = pki::LoadSigningCA(ca);
  if (!not_after) return std::unexpected(not_after.error());
  Signer s;
  s.signer_name_ = std::move(signer_name);
  s.ca_ = std::move(ca);
  s.ca_not_after_ = *not_after;
  s.cert_ttl_ = cert_ttl;
  return s;
}

std::expected<SignDecision, std::string> Signer::Decide(const nlohmann::json& csr,
                                                        SystemTime now) const {
  SignDecision decision;
  // Unapproved or failed requests, and those of other signers, are not this signer's.
  if (!IsApproved(csr) || HasTrueCondition(csr, kFailed)) return decision;
  if (SignerName(csr) != signer_name_) return decision;
  const std::string pem = RequestPEM(csr);
  auto request = pki::ParseCertificateRequest(pem);
  if (!request) {
    return std::unexpected("unable to parse csr \"" + Name(csr) + "\": " + request.error());
  }
  const std::vector<std::string> usages = Usages(csr);
  SignerCheck check = CheckRequestForSigner(signer_name_, SignerName(csr), *request, usages);
  if (check.error) {
    decision.action = SignDecision::kFail;
    decision.message = *check.error;
    return decision;
  }
  if (!check.recognized) return decision;
  const std::chrono::seconds ttl = CertificateDuration(cert_ttl_, ExpirationSeconds(csr));
  auto validity = CertificateValidity(now, ttl, ca_not_after_);
  if (!validity) return std::unexpected("error auto signing csr: " + validity.error());
  pki::SigningPolicy policy;
  policy.usages = usages;
  policy.not_before = validity->not_before;
  policy.not_after = validity->not_after;
  auto cert = pki::SignCertificateRequest(ca_, pem, policy);
  if (!cert) return std::unexpected("error auto signing csr: " + cert.error());
  decision.action = SignDecision::kIssue;
  decision.certificate = std::move(*cert);
  return decision;
}

}  // namespace controller::certificates
