// certificates.k8s.io/v1 certificate signing requests, as upstream's registry and
// validation: the requester recorded from the request's user; spec.request a PKCS#10 request
// whose signature verifies; known, distinct usages; a signerName of the form
// "example.com/path" (never kubernetes.io/legacy-unknown through v1); approval through
// /approval (Approved or Denied, never both, never withdrawn), the issued certificate and
// other conditions through /status (the certificate set once, approval left alone); the main
// resource changes neither spec nor status.
#include <algorithm>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"
#include "pkg/pki/sign_csr.h"
#include "pkg/util/base64.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr char kApproved[] = "Approved";
constexpr char kDenied[] = "Denied";
constexpr char kFailed[] = "Failed";
constexpr char kLegacyUnknownSignerName[] = "kubernetes.io/legacy-unknown";

bool IsKnownUsage(const std::string& usage) {
  static const std::vector<std::string> known = pki::KnownUsages();
  return std::binary_search(known.begin(), known.end(), usage);
}

std::vector<json> ConditionsOfType(const json& csr, const std::string& type) {
  std::vector<json> out;
  for (const json& c : List(Sub(csr, "status"), "conditions")) {
    if (Str(c, "type") == type) out.push_back(c);
  }
  return out;
}

// Go's %#v of a []byte: []byte{0x2d, 0x2d} ([]byte(nil) when absent).
std::string GoBytes(const std::optional<std::string>& bytes) {
  if (!bytes) return "[]byte(nil)";
  static const char kHex[] = "0123456789abcdef";
  std::string out = "[]byte{";
  for (size_t i = 0; i < bytes->size(); ++i) {
    const auto b = static_cast<unsigned char>((*bytes)[i]);
    if (i > 0) out += ", ";
    out += "0x";
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out + "}";
}

std::optional<std::string> Bytes(const json& object, const char* key) {
  if (!Present(object, key)) return std::nullopt;
  return util::Base64Decode(Str(object, key));
}

// populateConditionTimestamps: lastUpdateTime now when the client left it out;
// lastTransitionTime kept from a stored condition of the same type and status, else now.
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
      if (Str(was, "type") == Str(c, "type") && Str(was, "status") == Str(c, "status") &&
          !Str(was, "lastTransitionTime").empty()) {
        c["lastTransitionTime"] = was["lastTransitionTime"];
        break;
      }
    }
  }
}

// What the stored object already breaks is tolerated on update (getValidationOptions).
struct Options {
  bool allow_setting_approval = false;
  bool allow_setting_certificate = false;
  bool allow_both_approved_and_denied = false;
  bool allow_legacy_signer = false;
  bool allow_duplicate_condition_types = false;
  bool allow_empty_condition_type = false;
  bool allow_arbitrary_certificate = false;
  bool allow_unknown_usages = false;
  bool allow_duplicate_usages = false;
};

Options OptionsFor(const json& csr, const json* old) {
  Options o;
  if (!old) return o;
  const json& old_spec = Sub(*old, "spec");
  o.allow_both_approved_and_denied =
      !ConditionsOfType(*old, kApproved).empty() && !ConditionsOfType(*old, kDenied).empty();
  o.allow_legacy_signer = Str(old_spec, "signerName") == kLegacyUnknownSignerName;
  std::set<std::string> types;
  for (const json& c : List(Sub(*old, "status"), "conditions")) {
    const std::string type = Str(c, "type");
    if (type.empty()) o.allow_empty_condition_type = true;
    if (!types.insert(type).second) o.allow_duplicate_condition_types = true;
  }
  const std::string old_cert = Bytes(Sub(*old, "status"), "certificate").value_or("");
  const std::string new_cert = Bytes(Sub(csr, "status"), "certificate").value_or("");
  o.allow_arbitrary_certificate =
      new_cert == old_cert || !pki::ValidateCertificateBlocks(old_cert).has_value();
  std::set<std::string> usages;
  for (const json& u : List(old_spec, "usages")) {
    const std::string usage = u.is_string() ? u.get<std::string>() : "";
    if (!IsKnownUsage(usage)) o.allow_unknown_usages = true;
    if (!usages.insert(usage).second) o.allow_duplicate_usages = true;
  }
  return o;
}

// s split at every dot (Go's strings.Split: "" gives one empty part).
std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// ValidateSignerName: "<domain with a dot>/<path>", each of DNS-1123 labels, 571 at most.
registry::FieldErrors ValidateSignerName(const std::string& signer) {
  registry::FieldErrors errors;
  const std::string path = "spec.signerName";
  if (signer.empty()) {
    errors.push_back(v::FieldRequired(path, ""));
    return errors;
  }
  const size_t slash = signer.find('/');
  if (slash == std::string::npos || signer.find('/', slash + 1) != std::string::npos) {
    errors.push_back(v::FieldInvalid(
        path, signer,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    return errors;
  }
  const std::string domain = signer.substr(0, slash);
  const std::string rest = signer.substr(slash + 1);
  if (domain.size() > 253) errors.push_back(v::FieldTooLong(path, 253));
  const std::vector<std::string> domain_labels = Split(domain);
  for (const std::string& label : domain_labels) {
    const std::vector<std::string> problems = v::IsDNS1123Label(label);
    for (const std::string& p : problems) {
      errors.push_back(
          v::FieldInvalid(path, domain, "validating label " + json(label).dump() + ": " + p));
    }
    if (!problems.empty()) break;  // the same error again for the other labels helps nobody
  }
  if (domain_labels.size() < 2) {
    errors.push_back(v::FieldInvalid(path, domain,
                                     "should be a domain with at least two segments separated "
                                     "by dots"));
  }
  for (const std::string& label : Split(rest)) {
    const std::vector<std::string> problems = v::IsDNS1123Subdomain(label);
    for (const std::string& p : problems) {
      errors.push_back(
          v::FieldInvalid(path, rest, "validating label " + json(label).dump() + ": " + p));
    }
    if (!problems.empty()) break;
  }
  if (signer.size() > 253 + 253 + 63 + 1 + 1) errors.push_back(v::FieldTooLong(path, 571));
  return errors;
}

// validateConditions.
registry::FieldErrors ValidateConditions(const json& csr, const Options& o) {
  registry::FieldErrors errors;
  const json& conditions = List(Sub(csr, "status"), "conditions");
  std::set<std::string> seen;
  bool approved = false;
  bool denied = false;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const json& c = conditions[i];
    const std::string at = "status.conditions[" + std::to_string(i) + "]";
    const std::string type = Str(c, "type");
    const std::string status = Str(c, "status");
    if (!o.allow_empty_condition_type && type.empty()) {
      errors.push_back(v::FieldRequired(at + ".type", ""));
    }
    const bool true_only = type == kApproved || type == kDenied || type == kFailed;
    if (status.empty()) {
      errors.push_back(v::FieldRequired(at + ".status", ""));
    } else if (true_only && status != "True") {
      errors.push_back(v::FieldNotSupported(at + ".status", status, {"True"}));
    } else if (!true_only && status != "True" && status != "False" && status != "Unknown") {
      errors.push_back(v::FieldNotSupported(at + ".status", status, {"False", "True", "Unknown"}));
    }
    if (!o.allow_both_approved_and_denied) {
      if (type == kApproved) {
        approved = true;
        if (denied) {
          errors.push_back(v::FieldInvalid(
              at + ".type", type, "Approved and Denied conditions are mutually exclusive"));
        }
      } else if (type == kDenied) {
        denied = true;
        if (approved) {
          errors.push_back(v::FieldInvalid(
              at + ".type", type, "Approved and Denied conditions are mutually exclusive"));
        }
      }
    }
    if (!o.allow_duplicate_condition_types && !seen.insert(type).second) {
      errors.push_back(v::FieldDuplicate(at + ".type", type));
    }
  }
  return errors;
}

// validateCertificateSigningRequest.
registry::FieldErrors ValidateCSR(const json& csr, const Options& o) {
  registry::FieldErrors errors;
  const json& spec = Sub(csr, "spec");
  const std::optional<std::string> request = Bytes(spec, "request");
  // One read: the signature check reports the parse errors too.
  std::expected<void, std::string> parsed =
      std::unexpected("PEM block type must be CERTIFICATE REQUEST");
  if (request) parsed = pki::CheckRequestSignature(*request);
  if (!parsed) {
    v::FieldError e = v::FieldInvalid("spec.request", GoBytes(request), parsed.error());
    e.value_form = v::ValueForm::kVerbatim;
    errors.push_back(std::move(e));
  }
  const json& usages = List(spec, "usages");
  if (usages.empty()) errors.push_back(v::FieldRequired("spec.usages", ""));
  std::set<std::string> seen;
  for (size_t i = 0; i < usages.size(); ++i) {
    const std::string usage = usages[i].is_string() ? usages[i].get<std::string>() : "";
    const std::string at = "spec.usages[" + std::to_string(i) + "]";
    if (!o.allow_unknown_usages && !IsKnownUsage(usage)) {
      errors.push_back(v::FieldNotSupported(at, usage, pki::KnownUsages()));
    }
    if (!o.allow_duplicate_usages && !seen.insert(usage).second) {
      errors.push_back(v::FieldDuplicate(at, usage));
    }
  }
  const std::string signer = Str(spec, "signerName");
  if (!o.allow_legacy_signer && signer == kLegacyUnknownSignerName) {
    errors.push_back(v::FieldInvalid("spec.signerName", signer,
                                     "the legacy signerName is not allowed via this API version"));
  } else {
    for (auto& e : ValidateSignerName(signer)) errors.push_back(std::move(e));
  }
  if (spec.contains("expirationSeconds") && Int(spec, "expirationSeconds") < 600) {
    errors.push_back(v::FieldInvalid("spec.expirationSeconds",
                                     std::to_string(Int(spec, "expirationSeconds")),
                                     "may not specify a duration less than 600 seconds (10 "
                                     "minutes)"));
    errors.back().value_form = v::ValueForm::kVerbatim;
  }
  for (auto& e : ValidateConditions(csr, o)) errors.push_back(std::move(e));
  if (!o.allow_arbitrary_certificate) {
    const std::string cert = Bytes(Sub(csr, "status"), "certificate").value_or("");
    if (auto valid = pki::ValidateCertificateBlocks(cert); !valid) {
      errors.push_back(v::FieldInvalid("status.certificate", "<certificate data>", valid.error()));
    }
  }
  return errors;
}

// validateCertificateSigningRequestUpdate.
registry::FieldErrors ValidateCSRUpdate(const json& csr, const json& old, Options o) {
  registry::FieldErrors errors = ValidateCSR(csr, o);
  for (const char* type : {kApproved, kDenied, kFailed}) {
    if (ConditionsOfType(csr, type).size() < ConditionsOfType(old, type).size()) {
      errors.push_back(v::FieldForbidden(
          "status.conditions",
          "updates may not remove a condition of type \"" + std::string(type) + "\""));
    }
  }
  if (!o.allow_setting_approval) {
    for (const char* type : {kApproved, kDenied}) {
      const std::vector<json> now = ConditionsOfType(csr, type);
      const std::vector<json> before = ConditionsOfType(old, type);
      if (now.size() > before.size()) {
        errors.push_back(v::FieldForbidden(
            "status.conditions",
            "updates may not add a condition of type \"" + std::string(type) + "\""));
      } else if (now.size() == before.size() && now != before) {
        errors.push_back(v::FieldForbidden(
            "status.conditions",
            "updates may not modify a condition of type \"" + std::string(type) + "\""));
      }
    }
  }
  const std::string cert = Bytes(Sub(csr, "status"), "certificate").value_or("");
  const std::string old_cert = Bytes(Sub(old, "status"), "certificate").value_or("");
  if (cert != old_cert) {
    if (!o.allow_setting_certificate) {
      errors.push_back(
          v::FieldForbidden("status.certificate", "updates may not set certificate content"));
    } else if (!old_cert.empty()) {
      errors.push_back(v::FieldForbidden("status.certificate",
                                         "updates may not modify existing certificate content"));
    }
  }
  return errors;
}

// The spec of an update is always the stored one.
void KeepSpec(json& csr, const json& old) {
  if (old.contains("spec")) {
    csr["spec"] = old["spec"];
  } else {
    csr.erase("spec");
  }
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
    if (user.groups.empty()) {
      spec.erase("groups");
    } else {
      spec["groups"] = user.groups;
    }
    if (user.extra.empty()) {
      spec.erase("extra");
    } else {
      spec["extra"] = user.extra;
    }
  }
  bool HasStatusSubresource() const override { return true; }
  void PrepareForUpdate(json& csr, const json& old) const override {
    registry::Strategy::PrepareForUpdate(csr, old);  // status as stored
    KeepSpec(csr, old);
  }
  registry::FieldErrors Validate(const json& csr) const override {
    return ValidateCSR(csr, OptionsFor(csr, nullptr));
  }
  registry::FieldErrors ValidateUpdate(const json& csr, const json& old) const override {
    return ValidateCSRUpdate(csr, old, OptionsFor(csr, &old));
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
    Options o = OptionsFor(csr, &old);
    o.allow_setting_approval = true;
    return ValidateCSRUpdate(csr, old, o);
  }
};

// /status: the certificate and other conditions; the stored Approved and Denied conditions
// are kept when the request has as many of them (adding or removing one is refused).
class CSRStatusStrategy final : public registry::StatusStrategy {
 public:
  void PrepareForUpdate(json& csr, const json& old) const override {
    registry::StatusStrategy::PrepareForUpdate(csr, old);
    for (const char* type : {kApproved, kDenied}) {
      const std::vector<json> before = ConditionsOfType(old, type);
      auto conditions = Child(csr, "status").find("conditions");
      if (conditions == csr["status"].end() || !conditions->is_array()) continue;
      size_t count = 0;
      for (const json& c : *conditions) count += Str(c, "type") == type ? 1 : 0;
      if (count != before.size()) continue;
      size_t next = 0;
      for (json& c : *conditions) {
        if (Str(c, "type") == type) c = before[next++];
      }
    }
    StampConditions(csr, old);
  }
  registry::FieldErrors ValidateUpdate(const json& csr, const json& old) const override {
    Options o = OptionsFor(csr, &old);
    o.allow_setting_certificate = true;
    return ValidateCSRUpdate(csr, old, o);
  }
};

std::string Condition(const json& csr) {
  bool approved = false;
  bool denied = false;
  bool failed = false;
  for (const json& c : List(Sub(csr, "status"), "conditions")) {
    const std::string type = Str(c, "type");
    approved = approved || type == kApproved;
    denied = denied || type == kDenied;
    failed = failed || type == kFailed;
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
    std::string signer = Str(s, "signerName");
    if (signer.empty()) signer = "<none>";
    return std::vector<json>{registry::MetaString(csr, "name"),
                             registry::Age(csr, now),
                             signer,
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
