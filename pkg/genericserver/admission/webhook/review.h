#pragma once
// The AdmissionReview exchange of one webhook call without the network (upstream's
// webhook/request package and the checks its dispatchers run on the answer): the request
// body in admission.k8s.io/v1 or v1beta1, and the verdict read from the answer, with
// upstream's error texts.

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/transport/webhook_client.h"

namespace admission::webhook {

// The first of a webhook's admissionReviewVersions this server speaks ("v1", "v1beta1"), or
// "" when none.
std::string ReviewVersion(const nlohmann::json& versions);

// The review of `attributes`: `object` is null for a deletion, `old` the stored object of an
// update or deletion.
nlohmann::json NewAdmissionReview(std::string_view version, std::string_view uid,
                                  const Attributes& attributes, const nlohmann::json& object);

// The AdmissionRequest CEL expressions see as `request`: the review's request without its
// uid and objects.
nlohmann::json RequestVariable(const Attributes& attributes);

struct Verdict {
  bool allowed = false;
  nlohmann::json status;                // response.status of a refusal (null when none)
  std::optional<nlohmann::json> patch;  // the decoded JSON patch of a mutating answer
  std::vector<std::string> warnings;
  std::map<std::string, std::string> audit_annotations;  // response.auditAnnotations
};

// An error in calling a webhook (upstream's ErrCallingWebhook): the text after
// `failed calling webhook "<name>": `, subject to the failurePolicy.
struct CallError {
  std::string reason;
};

// Reads the answer of a review `uid` sent in `version`: client-go's decoding of the HTTP
// answer ("failed to call webhook: ..."), then VerifyAdmissionResponse ("received invalid
// webhook response: ...") and the patch ("received undecodable patch in webhook response:
// ..."). Validating webhooks may not answer with a patch.
std::expected<Verdict, CallError> ReadAdmissionAnswer(const transport::HttpAnswer& answer,
                                                      std::string_view version,
                                                      std::string_view uid, bool mutating);

// ToStatusErr: the refusal a webhook's answer makes, "admission webhook "<name>" denied the
// request: <message>" (or its reason, or " without explanation"), a code of 400 or more.
apimachinery::Status DenialStatus(std::string_view webhook_name, const nlohmann::json& status);

}  // namespace admission::webhook
