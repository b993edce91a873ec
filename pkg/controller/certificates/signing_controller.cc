#include "pkg/controller/certificates/signing_controller.h"

#include <memory>

#include <nlohmann/json.hpp>

#include "pkg/controller/certificates/certificate_controller.h"
#include "pkg/controller/certificates/csr.h"
#include "pkg/controller/certificates/signer.h"
#include "pkg/util/base64.h"
#include "pkg/util/log.h"
#include "pkg/util/timestamp.h"

namespace controller::certificates {

using nlohmann::json;

namespace {

struct SignerLoop {
  const char* signer_name;
  const char* controller_name;
  const char* flag;  // --cluster-signing-<flag>-{cert,key}-file
};
constexpr SignerLoop kSignerLoops[] = {
    {kKubeletServingSignerName, "csrsigning-kubelet-serving", "kubelet-serving"},
    {kKubeAPIServerClientKubeletSignerName, "csrsigning-kubelet-client", "kubelet-client"},
    {kKubeAPIServerClientSignerName, "csrsigning-kube-apiserver-client", "kube-apiserver-client"},
    {kLegacyUnknownSignerName, "csrsigning-legacy-unknown", "legacy-unknown"},
};

// Writes the decision through /status.
Awaitable<HandleResult> Apply(std::shared_ptr<client::RestClient> api, json csr,
                              SignDecision decision) {
  const std::string path = client::ResourcePath(kCSRs, "", Name(csr), "status");
  if (decision.action == SignDecision::kFail) {
    json condition = {{"type", kFailed},
                      {"status", "True"},
                      {"reason", "SignerValidationFailure"},
                      {"message", decision.message},
                      {"lastUpdateTime", util::FormatTime(std::chrono::system_clock::now())}};
    json& status = csr["status"];
    if (!status.is_object()) status = json::object();
    if (!status["conditions"].is_array()) status["conditions"] = json::array();
    status["conditions"].push_back(std::move(condition));
    auto updated = co_await api->Put(path, csr);
    if (!updated) {
      co_return std::unexpected(
          HandleError{"error adding failure condition for csr: " + updated.error().String()});
    }
    co_return HandleResult();
  }
  csr["status"]["certificate"] = util::Base64Encode(decision.certificate);
  auto updated = co_await api->Put(path, csr);
  if (!updated) {
    co_return std::unexpected(
        HandleError{"error updating signature for csr: " + updated.error().String()});
  }
  co_return HandleResult();
}

Awaitable<HandleResult> Handle(std::shared_ptr<const Signer> signer,
                               std::shared_ptr<client::RestClient> api, json csr) {
  auto decision = signer->Decide(csr, std::chrono::system_clock::now());
  if (!decision) co_return std::unexpected(HandleError{decision.error()});
  if (decision->action == SignDecision::kNothing) co_return HandleResult();
  co_return co_await Apply(std::move(api), std::move(csr), std::move(*decision));
}

}  // namespace

std::expected<InitResult, std::string> StartCSRSigningController(ControllerContext& ctx) {
  const ControllerOptions& o = ctx.options;
  const bool missing_single =
      o.cluster_signing_cert_pem.empty() || o.cluster_signing_key_pem.empty();
  const bool any_specific = !o.cluster_signing_per_signer.empty();
  if (missing_single && !any_specific) {
    KLOG_INFO << "\"Skipping CSR signer controller because no csr cert/key was specified\"";
    return InitResult{false};
  }
  if (!missing_single && any_specific) {
    return std::unexpected(
        std::string("cannot specify default and per controller certs at the same time"));
  }
  auto api = ctx.client_for("certificate-controller");
  const auto ttl = std::chrono::duration_cast<std::chrono::seconds>(o.cluster_signing_duration);
  for (const SignerLoop& loop : kSignerLoops) {
    pki::KeyPair ca{o.cluster_signing_cert_pem, o.cluster_signing_key_pem};
    if (any_specific) {
      auto files = o.cluster_signing_per_signer.find(loop.flag);
      if (files == o.cluster_signing_per_signer.end()) {
        KLOG_INFO << "\"Skipping CSR signer controller because specific files were specified "
                     "for other signers and not this one\" controller=\""
                  << loop.signer_name << "\"";
        continue;
      }
      ca = pki::KeyPair{files->second.first, files->second.second};
    }
    auto signer = Signer::New(loop.signer_name, std::move(ca), ttl);
    if (!signer) {
      return std::unexpected("failed to start " + std::string(loop.signer_name) +
                             " certificate controller: " + signer.error());
    }
    auto shared = std::make_shared<const Signer>(std::move(*signer));
    CSRHandler handler = [shared, api](json csr) { return Handle(shared, api, std::move(csr)); };
    StartCertificateController(ctx, loop.controller_name, std::move(handler), 5);
  }
  return InitResult{true};
}

}  // namespace controller::certificates
