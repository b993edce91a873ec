// certificates.k8s.io/v1 certificate signing requests: the requester recorded from the
// request's user; approval through /approval (Approved or Denied, never both, never
// withdrawn), the issued certificate through /status.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"
#include "pkg/util/base64.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

bool IsApproval(const json& condition) {
  const std::string type = Str(condition, "type");
  return type == "Approved" || type == "Denied";
}

// Conditions get lastUpdateTime, and lastTransitionTime (the old one for a type seen
// before), when the client left them out.
void StampConditions(json& csr, const json& old) {
  auto conditions = Child(csr, "status").find("conditions");
  if (conditions == csr["status"].end() || !conditions->is_array()) return;
  const std::string now = registry::NowTimestamp();
  for (json& c : *conditions) {
    if (!c.is_object()) continue;
    if (Str(c, "lastUpdateTime").empty()) c["lastUpdateTime"] = now;
    if (!Str(c, "lastTransitionTime").empty()) continue;
    c["lastTransitionTime"] = now;
    for (const json& was : List(Sub(old, "status"), "conditions")) {
      if (Str(was, "type") == Str(c, "type") && !Str(was, "lastTransitionTime").empty()) {
        c["lastTransitionTime"] = was["lastTransitionTime"];
      }
    }
  }
}

registry::FieldErrors ValidateConditions(const json& csr, const json& old) {
  registry::FieldErrors errors;
  const json& conditions = List(Sub(csr, "status"), "conditions");
  bool approved = false;
  bool denied = false;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const json& c = conditions[i];
    const std::string at = "status.conditions[" + std::to_string(i) + "]";
    const std::string type = Str(c, "type");
    if (type.empty()) errors.push_back(v::FieldRequired(at + ".type", ""));
    if (IsApproval(c) && Str(c, "status") != "True") {
      errors.push_back(v::FieldNotSupported(at + ".status", Str(c, "status"), {"True"}));
    }
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    if (approved && denied && (type == "Approved" || type == "Denied")) {
      errors.push_back(v::FieldInvalid(at + ".type", type,
                                       "Approved and Denied conditions are mutually exclusive"));
    }
  }
  for (const json& was : List(Sub(old, "status"), "conditions")) {
    if (!IsApproval(was)) continue;
    bool kept = false;
    for (const json& c : conditions) kept = kept || Str(c, "type") == Str(was, "type");
    if (!kept) {
      errors.push_back(v::FieldForbidden(
          "status.conditions",
          "updates may not remove a condition of type \"" + Str(was, "type") + "\""));
    }
  }
  return errors;
}

class CSRStrategy final : public registry::Strategy {
 public:
  // Upstream does not mind what requests are called: only the path-segment rules apply.
  apimachinery::validation::NameRule Names() const override {
    return apimachinery::validation::NameRule::kNone;
  }
  void PrepareForCreate(json& csr) const override { csr.erase("status"); }
  void RecordRequester(json& csr, const authn::UserInfo& user) const override {
    json& spec = Child(csr, "spec");
    spec["username"] = user.name;
    if (!user.uid.empty()) {
      spec["uid"] = user.uid;
    } else {
      spec.erase("uid");
    }
    spec["groups"] = user.groups;
    if (user.extra.empty()) {
      spec.erase("extra");
    } else {
      spec["extra"] = user.extra;
    }
  }
  bool HasStatusSubresource() const override { return true; }
  registry::FieldErrors Validate(const json& csr) const override {
    registry::FieldErrors errors;
    const json& spec = Sub(csr, "spec");
    auto request = util::Base64Decode(Str(spec, "request"));
    if (!request || request->find("-----BEGIN CERTIFICATE REQUEST-----") == std::string::npos) {
      errors.push_back(
          v::FieldInvalid("spec.request", "", "PEM block type must be CERTIFICATE REQUEST"));
      errors.back().value_form = v::ValueForm::kOmitted;
    }
    if (Str(spec, "signerName").empty()) {
      errors.push_back(v::FieldRequired("spec.signerName", ""));
    }
    if (List(spec, "usages").empty()) errors.push_back(v::FieldRequired("spec.usages", ""));
    if (spec.contains("expirationSeconds") && Int(spec, "expirationSeconds") < 600) {
      errors.push_back(v::FieldInvalid("spec.expirationSeconds",
                                       std::to_string(Int(spec, "expirationSeconds")),
                                       "may not specify a duration less than 600 seconds (10 "
                                       "minutes)"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    return errors;
  }
  registry::FieldErrors ValidateUpdate(const json& csr, const json& old) const override {
    registry::FieldErrors errors;
    if (Sub(csr, "spec") != Sub(old, "spec")) {
      errors.push_back(v::FieldInvalid("spec", "", "field is immutable"));
      errors.back().value_form = v::ValueForm::kOmitted;
    }
    return errors;
  }
};

// /approval: the conditions and the metadata change, the rest stays as stored.
class ApprovalStrategy final : public registry::Strategy {
 public:
  void PrepareForUpdate(json& csr, const json& old) const override {
    json conditions = Sub(csr, "status").value("conditions", json());
    json meta = std::move(csr["metadata"]);
    csr = old;
    csr["metadata"] = std::move(meta);
    if (conditions.is_null()) {
      Child(csr, "status").erase("conditions");
    } else {
      Child(csr, "status")["conditions"] = std::move(conditions);
    }
    StampConditions(csr, old);
  }
  registry::FieldErrors ValidateUpdate(const json& csr, const json& old) const override {
    return ValidateConditions(csr, old);
  }
};

// /status: the certificate and other conditions; approval stays as it was.
class CSRStatusStrategy final : public registry::StatusStrategy {
 public:
  void PrepareForUpdate(json& csr, const json& old) const override {
    registry::StatusStrategy::PrepareForUpdate(csr, old);
    StampConditions(csr, old);
  }
  registry::FieldErrors ValidateUpdate(const json& csr, const json& old) const override {
    registry::FieldErrors errors = ValidateConditions(csr, old);
    std::vector<json> now;
    std::vector<json> before;
    for (const json& c : List(Sub(csr, "status"), "conditions")) {
      if (IsApproval(c)) now.push_back(Str(c, "type"));
    }
    for (const json& c : List(Sub(old, "status"), "conditions")) {
      if (IsApproval(c)) before.push_back(Str(c, "type"));
    }
    if (now != before) {
      errors.push_back(v::FieldForbidden("status.conditions",
                                         "updates to status cannot add or remove approval "
                                         "conditions"));
    }
    return errors;
  }
};

std::string Condition(const json& csr) {
  bool approved = false;
  bool denied = false;
  bool failed = false;
  for (const json& c : List(Sub(csr, "status"), "conditions")) {
    const std::string type = Str(c, "type");
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    failed = failed || type == "Failed";
  }
  std::string out = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) out += ",Failed";
  if (!Str(Sub(csr, "status"), "certificate").empty()) out += ",Issued";
  return out;
}

}  // namespace

registry::ResourceSpecPtr CertificateSigningRequests() {
  auto spec = Builtin("certificates.k8s.io/v1", "certificatesigningrequests");
  spec->short_names = {"csr"};
  spec->strategy = std::make_shared<CSRStrategy>();
  spec->subresources = {
      {"approval", spec->Kind(), {"get", "patch", "update"}, std::make_shared<ApprovalStrategy>()},
      {"status", spec->Kind(), {"get", "patch", "update"}, std::make_shared<CSRStatusStrategy>()},
  };
  spec->columns = {
      registry::NameColumn(),
      registry::AgeColumn(),
      {"SignerName", "string", "", "Who is asked to sign.", 0},
      {"Requestor", "string", "", "The user who made the request.", 0},
      {"RequestedDuration", "string", "", "How long the certificate should be valid.", 0},
      {"Condition", "string", "", "Pending, Approved or Denied, and Issued.", 0},
  };
  spec->row = [](const json& csr, std::chrono::system_clock::time_point now) {
    const json& s = Sub(csr, "spec");
    std::string duration = "<none>";
    if (s.contains("expirationSeconds")) {
      duration = registry::HumanDuration(std::chrono::seconds(Int(s, "expirationSeconds")));
    }
    return std::vector<json>{registry::MetaString(csr, "name"),
                             registry::Age(csr, now),
                             Str(s, "signerName"),
                             Str(s, "username"),
                             duration,
                             Condition(csr)};
  };
  spec->fields["spec.signerName"] = [](const json& csr) {
    return Str(Sub(csr, "spec"), "signerName");
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
