#include "pkg/controller/certificates/approver.h"

#include <memory>

#include <nlohmann/json.hpp>

#include "pkg/client/rest/resource.h"
#include "pkg/controller/certificates/csr.h"
#include "pkg/controller/certificates/kubelet_csr.h"

namespace controller::certificates {

using nlohmann::json;

namespace {

const client::GroupVersionResource kSubjectAccessReviews{"authorization.k8s.io", "v1",
                                                         "subjectaccessreviews"};

std::string Requester(const json& csr) {
  const json spec = csr.value("spec", json::object());
  return spec.value("username", "");
}

// The Approved condition, the rest left to the server (timestamps).
void AppendApproval(json& csr, const std::string& message) {
  json& status = csr["status"];
  if (!status.is_object()) status = json::object();
  if (!status["conditions"].is_array()) status["conditions"] = json::array();
  status["conditions"].push_back(
      {{"type", kApproved}, {"status", "True"}, {"reason", "AutoApproved"}, {"message", message}});
}

Awaitable<std::expected<bool, std::string>> Review(std::shared_ptr<client::RestClient> api,
                                                   json review) {
  auto answer = co_await api->Post(client::ResourcePath(kSubjectAccessReviews, ""), review);
  if (!answer) co_return std::unexpected(answer.error().String());
  co_return answer->value("status", json::object()).value("allowed", false);
}

Awaitable<HandleResult> Handle(std::shared_ptr<client::RestClient> api, json csr) {
  Authorize authorize = [api](json review) { return Review(api, std::move(review)); };
  auto decision = co_await DecideApproval(csr, std::move(authorize));
  if (!decision) co_return std::unexpected(decision.error());
  if (!decision->approve) co_return HandleResult();
  AppendApproval(csr, decision->message);
  const std::string path = client::ResourcePath(kCSRs, "", Name(csr), "approval");
  auto updated = co_await api->Put(path, csr);
  if (!updated) {
    co_return std::unexpected(
        HandleError{"error updating approval for csr: " + updated.error().String()});
  }
  co_return HandleResult();
}

}  // namespace

const std::vector<Recognizer>& Recognizers() {
  static const std::vector<Recognizer> recognizers = {
      {true, "selfnodeclient",
       "Auto approving self kubelet client certificate after SubjectAccessReview."},
      {false, "nodeclient", "Auto approving kubelet client certificate after SubjectAccessReview."},
  };
  return recognizers;
}

bool Recognizes(const Recognizer& r, const json& csr, const pki::CertificateRequestInfo& request) {
  if (r.self && Requester(csr) != request.common_name) return false;
  if (SignerName(csr) != kKubeAPIServerClientKubeletSignerName) return false;
  return IsKubeletClientCSR(request, UsageSet(csr));
}

json SubjectAccessReviewFor(const json& csr, const Recognizer& r) {
  const json spec = csr.value("spec", json::object());
  json review_spec = {{"user", spec.value("username", "")},
                      {"resourceAttributes",
                       {{"group", "certificates.k8s.io"},
                        {"resource", "certificatesigningrequests"},
                        {"verb", "create"},
                        {"subresource", r.subresource}}}};
  if (!spec.value("uid", "").empty()) review_spec["uid"] = spec["uid"];
  if (spec.contains("groups") && spec["groups"].is_array() && !spec["groups"].empty()) {
    review_spec["groups"] = spec["groups"];
  }
  if (spec.contains("extra") && spec["extra"].is_object() && !spec["extra"].empty()) {
    review_spec["extra"] = spec["extra"];
  }
  return {{"apiVersion", "authorization.k8s.io/v1"},
          {"kind", "SubjectAccessReview"},
          {"spec", std::move(review_spec)}};
}

Awaitable<std::expected<ApprovalDecision, HandleError>> DecideApproval(json csr,
                                                                       Authorize authorize) {
  ApprovalDecision decision;
  if (!IssuedCertificate(csr).empty()) co_return decision;
  const Approval approval = GetApproval(csr);
  if (approval.approved || approval.denied) co_return decision;
  auto request = pki::ParseCertificateRequest(RequestPEM(csr));
  if (!request) {
    co_return std::unexpected(
        HandleError{"unable to parse csr \"" + Name(csr) + "\": " + request.error()});
  }
  std::vector<std::string> tried;
  for (const Recognizer& r : Recognizers()) {
    if (!Recognizes(r, csr, *request)) continue;
    tried.push_back(r.subresource);
    json review = SubjectAccessReviewFor(csr, r);
    std::expected<bool, std::string> allowed = co_await authorize(std::move(review));
    if (!allowed) co_return std::unexpected(HandleError{allowed.error()});
    if (*allowed) {
      decision.approve = true;
      decision.message = r.message;
      co_return decision;
    }
  }
  if (!tried.empty()) {
    std::string list;
    for (const std::string& t : tried) list += (list.empty() ? "" : " ") + t;
    co_return std::unexpected(HandleError{"recognized csr \"" + Name(csr) + "\" as [" + list +
                                              "] but subject access review was not approved",
                                          true});
  }
  co_return decision;
}

std::expected<InitResult, std::string> StartCSRApprovingController(ControllerContext& ctx) {
  auto api = ctx.client_for("certificate-controller");
  CSRHandler handler = [api](json csr) { return Handle(api, std::move(csr)); };
  StartCertificateController(ctx, "csrapproving", std::move(handler), 5);
  return InitResult{true};
}

}  // namespace controller::certificates
