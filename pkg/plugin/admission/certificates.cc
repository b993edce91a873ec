#include "pkg/plugin/admission/certificates.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/request_info.h"
#include "pkg/pki/sign_csr.h"
#include "pkg/util/base64.h"
#include "pkg/util/strings.h"

namespace plugin::admission {
namespace {

using ::admission::Attributes;
using ::admission::Operation;
using apimachinery::Status;
using nlohmann::json;

bool IsCSR(const Attributes& a) {
  return a.spec.group == "certificates.k8s.io" && a.spec.plural == "certificatesigningrequests";
}

std::string SignerName(const json& csr) {
  const json& spec = csr.value("spec", json::object());
  return spec.is_object() ? spec.value("signerName", "") : "";
}

// upstream's IsAuthorizedForSignerName: the verb on the signer by its name, or on every
// signer of its domain ("example.com/*").
Awaitable<bool> AuthorizedForSigner(const authz::Authorizer& authorizer,
                                    const authn::UserInfo& user, std::string verb,
                                    std::string signer) {
  std::vector<std::string> names = {signer};
  if (const size_t slash = signer.find('/'); slash != std::string::npos) {
    names.push_back(signer.substr(0, slash) + "/*");
  }
  for (const std::string& name : names) {
    const endpoints::RequestInfo r =
        endpoints::ResourceRequest(verb, "certificates.k8s.io", "signers", "", name);
    const authz::Attributes attributes{user, r};
    const authz::AuthorizationResult result = co_await authorizer.Authorize(attributes);
    if (result.decision == authz::Decision::kAllow) co_return true;
  }
  co_return false;
}

class SignerVerb final : public ::admission::Plugin {
 public:
  // `subresource` and `verb`: approval and approve, or status and sign.
  SignerVerb(authz::AuthorizerPtr authorizer, std::string subresource, std::string verb)
      : authorizer_(std::move(authorizer)),
        subresource_(std::move(subresource)),
        verb_(std::move(verb)) {}

  Awaitable<std::optional<Status>> Validate(const Attributes& a, const json& csr) const override {
    if (!IsCSR(a) || a.operation != Operation::kUpdate || a.options.subresource != subresource_ ||
        !a.options.user || !authorizer_) {
      co_return std::nullopt;
    }
    // Signing is writing the certificate; other status changes are not.
    if (verb_ == "sign") {
      const json& now = csr.value("status", json::object());
      const json& before = a.old ? a.old->value("status", json::object()) : json::object();
      if (now.value("certificate", json()) == before.value("certificate", json())) {
        co_return std::nullopt;
      }
    }
    const std::string signer = SignerName(csr);
    const bool allowed = co_await AuthorizedForSigner(*authorizer_, *a.options.user, verb_, signer);
    if (allowed) co_return std::nullopt;
    co_return apimachinery::NewForbidden(
        a.spec.Resource(), a.name,
        "user not permitted to " + verb_ + " requests with signerName " + util::Quote(signer));
  }

 private:
  authz::AuthorizerPtr authorizer_;
  std::string subresource_, verb_;
};

class SubjectRestriction final : public ::admission::Plugin {
 public:
  Awaitable<std::optional<Status>> Validate(const Attributes& a, const json& csr) const override {
    if (!IsCSR(a) || a.operation != Operation::kCreate || !a.options.subresource.empty() ||
        SignerName(csr) != "kubernetes.io/kube-apiserver-client") {
      co_return std::nullopt;
    }
    const json& request = csr.value("spec", json::object()).value("request", json());
    const std::optional<std::string> pem =
        request.is_string() ? util::Base64Decode(request.get<std::string>()) : std::nullopt;
    auto info = pem ? pki::ParseCertificateRequest(*pem)
                    : std::expected<pki::CertificateRequestInfo, std::string>(
                          std::unexpected("no request"));
    if (!info) co_return apimachinery::NewForbidden(a.spec.Resource(), a.name, info.error());
    if (std::ranges::find(info->organizations, "system:masters") != info->organizations.end()) {
      co_return apimachinery::NewForbidden(
          a.spec.Resource(), a.name,
          "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not "
          "allowed");
    }
    co_return std::nullopt;
  }
};

}  // namespace

::admission::PluginPtr NewCertificateApproval(authz::AuthorizerPtr authorizer) {
  return std::make_shared<SignerVerb>(std::move(authorizer), "approval", "approve");
}

::admission::PluginPtr NewCertificateSigning(authz::AuthorizerPtr authorizer) {
  return std::make_shared<SignerVerb>(std::move(authorizer), "status", "sign");
}

::admission::PluginPtr NewCertificateSubjectRestriction() {
  return std::make_shared<SubjectRestriction>();
}

}  // namespace plugin::admission
