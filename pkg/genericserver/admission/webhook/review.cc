#include "pkg/genericserver/admission/webhook/review.h"

#include "pkg/genericserver/admission/webhook/matching.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/authn/user.h"
#include "pkg/util/base64.h"

namespace admission::webhook {

using apimachinery::validation::GoQuote;
using nlohmann::json;

namespace {

constexpr char kGroup[] = "admission.k8s.io";

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The options the operation was made with, as upstream's attributes carry them (a patch's
// as UpdateOptions, or CreateOptions when it creates).
json OptionsOf(const Attributes& a) {
  const char* kind = a.operation == Operation::kCreate   ? "CreateOptions"
                     : a.operation == Operation::kUpdate ? "UpdateOptions"
                                                         : "DeleteOptions";
  json options = {{"apiVersion", "meta.k8s.io/v1"}, {"kind", kind}};
  if (a.options.dry_run) options["dryRun"] = json::array({"All"});
  if (a.deletion != nullptr) {
    const registry::DeleteOptions& d = *a.deletion;
    if (d.grace_period_seconds) options["gracePeriodSeconds"] = *d.grace_period_seconds;
    if (!d.propagation_policy.empty()) options["propagationPolicy"] = d.propagation_policy;
    json preconditions = json::object();
    if (d.precondition_uid) preconditions["uid"] = *d.precondition_uid;
    if (d.precondition_resource_version)
      preconditions["resourceVersion"] = *d.precondition_resource_version;
    if (!preconditions.empty()) options["preconditions"] = std::move(preconditions);
  } else if (!a.options.field_manager.empty()) {
    options["fieldManager"] = a.options.field_manager;
  }
  return options;
}

}  // namespace

std::string ReviewVersion(const json& versions) {
  if (!versions.is_array()) return "";
  for (const json& v : versions) {
    if (v == "v1" || v == "v1beta1") return v.get<std::string>();
  }
  return "";
}

json NewAdmissionReview(std::string_view version, std::string_view uid, const Attributes& a,
                        const json& object) {
  const registry::ResourceSpec& spec = a.spec;
  const json kind = {{"group", spec.group}, {"version", spec.version}, {"kind", spec.kind}};
  const json resource = {
      {"group", spec.group}, {"version", spec.version}, {"resource", spec.plural}};
  json request = {{"uid", uid},
                  {"kind", kind},
                  {"resource", resource},
                  {"requestKind", kind},
                  {"requestResource", resource},
                  {"operation", OperationName(a.operation)},
                  {"userInfo", authn::UserInfoJSON(a.options.user.value_or(authn::UserInfo{}))},
                  {"object", object},
                  {"oldObject", a.old != nullptr ? *a.old : json()},
                  {"dryRun", a.options.dry_run},
                  {"options", OptionsOf(a)}};
  if (!a.options.subresource.empty()) {
    request["subResource"] = a.options.subresource;
    request["requestSubResource"] = a.options.subresource;
  }
  if (!a.name.empty()) request["name"] = a.name;
  if (!a.ns.empty()) request["namespace"] = a.ns;
  return {{"apiVersion", std::string(kGroup) + "/" + std::string(version)},
          {"kind", "AdmissionReview"},
          {"request", std::move(request)}};
}

json RequestVariable(const Attributes& a) {
  json review = NewAdmissionReview("v1", "", a, json());
  json request = std::move(review["request"]);
  request.erase("object");
  request.erase("oldObject");
  request.erase("uid");
  return request;
}

std::expected<Verdict, CallError> ReadAdmissionAnswer(const transport::HttpAnswer& answer,
                                                      std::string_view version,
                                                      std::string_view uid, bool mutating) {
  const auto call_failed = [](std::string why) {
    return std::unexpected(CallError{"failed to call webhook: " + std::move(why)});
  };
  const auto invalid = [](std::string why) {
    return std::unexpected(CallError{"received invalid webhook response: " + std::move(why)});
  };
  if (answer.status < 200 || answer.status > 206) {
    return call_failed(transport::ErrorAnswerText(answer));
  }
  json review = json::parse(answer.body, nullptr, false);
  if (review.is_discarded() || !review.is_object()) {
    return call_failed(
        "couldn't get version/kind; json parse error: the answer is not a JSON "
        "object");
  }
  const bool v1 = version == "v1";
  const json* response = nullptr;
  if (auto it = review.find("response"); it != review.end() && it->is_object()) response = &*it;
  if (v1) {
    const std::string api_version = Str(review, "apiVersion");
    const std::string kind = Str(review, "kind");
    if (api_version != "admission.k8s.io/v1" || kind != "AdmissionReview") {
      std::string group = api_version, got_version;
      if (const size_t slash = api_version.find('/'); slash != std::string::npos) {
        group = api_version.substr(0, slash);
        got_version = api_version.substr(slash + 1);
      } else {
        got_version = api_version;
        group.clear();
      }
      return invalid(
          "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, "
          "got " +
          group + "/" + got_version + ", Kind=" + kind);
    }
  }
  if (response == nullptr) return invalid("webhook response was absent");
  if (v1 && Str(*response, "uid") != uid) {
    return invalid("expected response.uid=" + GoQuote(uid) + ", got " +
                   GoQuote(Str(*response, "uid")));
  }
  Verdict verdict;
  if (auto it = response->find("allowed"); it != response->end() && it->is_boolean()) {
    verdict.allowed = it->get<bool>();
  }
  if (auto it = response->find("status"); it != response->end() && it->is_object()) {
    verdict.status = *it;
  }
  if (auto it = response->find("warnings"); it != response->end() && it->is_array()) {
    for (const json& w : *it) {
      if (w.is_string() && !w.get_ref<const std::string&>().empty()) verdict.warnings.push_back(w);
    }
  }
  if (auto it = response->find("auditAnnotations"); it != response->end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      if (value.is_string()) verdict.audit_annotations[key] = value.get<std::string>();
    }
  }
  const std::string patch = Str(*response, "patch");
  const std::string patch_type = Str(*response, "patchType");
  if (!mutating) {
    if (!patch.empty()) return invalid("validating webhook may not return response.patch");
    if (!patch_type.empty()) return invalid("validating webhook may not return response.patchType");
    return verdict;
  }
  if (v1) {
    if (!patch.empty() && patch_type.empty())
      return invalid("webhook returned response.patch but not response.patchType");
    if (patch.empty() && !patch_type.empty())
      return invalid("webhook returned response.patchType but not response.patch");
    if (!patch_type.empty() && patch_type != "JSONPatch")
      return invalid("webhook returned invalid response.patchType of " + GoQuote(patch_type));
  }
  if (!patch.empty()) {
    auto decoded = util::Base64Decode(patch);
    json operations =
        decoded ? json::parse(*decoded, nullptr, false) : json(json::value_t::discarded);
    if (operations.is_discarded() || !operations.is_array()) {
      return std::unexpected(
          CallError{"received undecodable patch in webhook response: the patch is not a JSON "
                    "array of operations"});
    }
    verdict.patch = std::move(operations);
  }
  return verdict;
}

apimachinery::Status DenialStatus(std::string_view webhook_name, const json& status) {
  apimachinery::Status out;
  out.code = 400;
  if (status.is_object()) {
    if (auto it = status.find("code"); it != status.end() && it->is_number_integer()) {
      out.code = std::max(it->get<int>(), 400);
    }
    out.reason = Str(status, "reason");
    out.message = Str(status, "message");
    if (auto it = status.find("details"); it != status.end() && it->is_object()) {
      apimachinery::StatusDetails details;
      details.name = Str(*it, "name");
      details.group = Str(*it, "group");
      details.kind = Str(*it, "kind");
      details.uid = Str(*it, "uid");
      if (auto retry = it->find("retryAfterSeconds");
          retry != it->end() && retry->is_number_integer()) {
        details.retry_after_seconds = retry->get<int>();
      }
      if (auto causes = it->find("causes"); causes != it->end() && causes->is_array()) {
        for (const json& c : *causes) {
          if (!c.is_object()) continue;
          details.causes.push_back({Str(c, "reason"), Str(c, "message"), Str(c, "field")});
        }
      }
      out.details = std::move(details);
    }
  }
  const std::string denied = "admission webhook " + GoQuote(webhook_name) + " denied the request";
  if (!out.message.empty()) {
    out.message = denied + ": " + out.message;
  } else if (!out.reason.empty()) {
    out.message = denied + ": " + out.reason;
  } else {
    out.message = denied + " without explanation";
  }
  return out;
}

}  // namespace admission::webhook
