#include "pkg/aggregator/registry/apiservice_validation.h"

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/name_rule.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/util/base64.h"

namespace aggregator::validation {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

const json& Member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string String(const json& object, const char* key) {
  const json& value = Member(object, key);
  return value.is_string() ? value.get<std::string>() : "";
}

// Integers as the Go int32 fields hold them (0 when absent, as Go decodes a missing field).
int64_t Int(const json& object, const char* key) {
  const json& value = Member(object, key);
  return value.is_number_integer() ? value.get<int64_t>() : 0;
}

// The length of a []byte field as Go decodes its base64 text (line breaks are skipped).
size_t DecodedLength(const json& value) {
  if (!value.is_string()) return 0;
  size_t symbols = 0;
  for (char c : value.get_ref<const std::string&>()) {
    if (c != '=' && c != '\r' && c != '\n') ++symbols;
  }
  return symbols * 3 / 4;
}

bool Base64Symbol(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

// Where Go's base64.StdEncoding stops decoding `text` (line breaks are skipped; an offset into
// `text`, its length for a missing padding character), or -1 when it decodes.
long IllegalBase64At(const std::string& text) {
  std::vector<size_t> at;  // offsets of the characters that are not line breaks
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r' && text[i] != '\n') at.push_back(i);
  }
  for (size_t q = 0; q < at.size(); q += 4) {
    for (size_t k = 0; k < 4; ++k) {
      if (q + k == at.size()) return static_cast<long>(at[q]);  // a short last quantum
      const char c = text[at[q + k]];
      if (Base64Symbol(c)) continue;
      if (c != '=' || k < 2) return static_cast<long>(at[q + k]);
      // Padding ends the text: "xx==" or "xxx=".
      if (k == 2) {
        if (q + 3 == at.size()) return static_cast<long>(text.size());
        if (text[at[q + 3]] != '=') return static_cast<long>(at[q + 2]);
        if (q + 4 < at.size()) return static_cast<long>(at[q + 4]);
        return -1;
      }
      if (q + 4 < at.size()) return static_cast<long>(at[q + 4]);
      return -1;
    }
  }
  return -1;
}

// Upstream's name function for APIServices: once the Store's path-segment rules hold, the
// name (and a generateName) must be exactly "<version>.<group>".
void ValidateName(const json& apiservice, FieldErrors& errors) {
  const json& spec = Member(apiservice, "spec");
  const std::string required = String(spec, "version") + "." + String(spec, "group");
  const std::string message = "must be `spec.version+\".\"+spec.group`: " + v::GoQuote(required);
  const json& meta = Member(apiservice, "metadata");
  const std::string generate_name = String(meta, "generateName");
  if (!generate_name.empty() && v::IsValidPathSegmentName(generate_name).empty() &&
      generate_name != required) {
    errors.push_back(v::FieldInvalid("metadata.generateName", generate_name, message));
  }
  const std::string name = String(meta, "name");
  if (!name.empty() && v::IsValidPathSegmentName(name).empty() && name != required) {
    errors.push_back(v::FieldInvalid("metadata.name", name, message));
  }
}

v::FieldError InvalidNumber(std::string field, int64_t value, std::string detail) {
  v::FieldError e = v::FieldInvalid(std::move(field), std::to_string(value), std::move(detail));
  e.value_form = v::ValueForm::kVerbatim;
  return e;
}

v::FieldError InvalidTrue(std::string field, std::string detail) {
  v::FieldError e = v::FieldInvalid(std::move(field), "true", std::move(detail));
  e.value_form = v::ValueForm::kVerbatim;
  return e;
}

}  // namespace

bool IsLocal(const json& apiservice) {
  return !Member(Member(apiservice, "spec"), "service").is_object();
}

std::optional<std::string> Decode(json& apiservice) {
  if (!apiservice.is_object()) return std::nullopt;
  auto spec = apiservice.find("spec");
  if (spec == apiservice.end() || !spec->is_object()) return std::nullopt;
  auto ca = spec->find("caBundle");
  if (ca == spec->end() || !ca->is_string()) return std::nullopt;
  const std::string& text = ca->get_ref<const std::string&>();
  if (const long bad = IllegalBase64At(text); bad >= 0) {
    return "illegal base64 data at input byte " + std::to_string(bad);
  }
  std::string symbols;
  for (char c : text) {
    if (c != '\r' && c != '\n') symbols.push_back(c);
  }
  if (auto bytes = util::Base64Decode(symbols)) *ca = util::Base64Encode(*bytes);
  return std::nullopt;
}

void SetDefaults(json& apiservice) {
  if (!apiservice.is_object()) return;
  json& spec = apiservice["spec"];
  if (spec.is_null()) spec = json::object();
  if (!spec.is_object()) return;
  for (const char* field : {"group", "version", "caBundle"}) {
    if (spec.contains(field) && spec[field] == "") spec.erase(field);
  }
  if (spec.contains("insecureSkipTLSVerify") && spec["insecureSkipTLSVerify"] == false) {
    spec.erase("insecureSkipTLSVerify");
  }
  json& service = spec["service"];
  if (!service.is_object()) {
    service = nullptr;
    return;
  }
  for (const char* field : {"namespace", "name"}) {
    if (service.contains(field) && service[field] == "") service.erase(field);
  }
  if (!service.contains("port") || service["port"].is_null()) service["port"] = 443;
}

FieldErrors ValidateAPIService(const json& apiservice) {
  FieldErrors errors;
  ValidateName(apiservice, errors);
  const json& spec = Member(apiservice, "spec");
  const std::string group = String(spec, "group");
  const std::string version = String(spec, "version");
  // The legacy core group ("v1.") is the one APIService without a group.
  if (group.empty() && version != "v1") {
    errors.push_back(v::FieldRequired("spec.group",
                                      "only v1 may have an empty group and it better be legacy "
                                      "kube"));
  }
  if (!group.empty()) {
    for (const std::string& msg : v::IsDNS1123Subdomain(group)) {
      errors.push_back(v::FieldInvalid("spec.group", group, msg));
    }
  }
  for (const std::string& msg : v::IsDNS1035Label(version)) {
    errors.push_back(v::FieldInvalid("spec.version", version, msg));
  }
  const int64_t group_priority = Int(spec, "groupPriorityMinimum");
  if (group_priority <= 0 || group_priority > 20000) {
    errors.push_back(InvalidNumber("spec.groupPriorityMinimum", group_priority,
                                   "must be positive and less than 20000"));
  }
  const int64_t version_priority = Int(spec, "versionPriority");
  if (version_priority <= 0 || version_priority > 1000) {
    errors.push_back(InvalidNumber("spec.versionPriority", version_priority,
                                   "must be positive and less than 1000"));
  }
  const size_t ca_bundle = DecodedLength(Member(spec, "caBundle"));
  const bool insecure = Member(spec, "insecureSkipTLSVerify") == true;
  const json& service = Member(spec, "service");
  if (!service.is_object()) {
    if (ca_bundle != 0) {
      errors.push_back(v::FieldInvalid("spec.caBundle", std::to_string(ca_bundle) + " bytes",
                                       "local APIServices may not have a caBundle"));
    }
    if (insecure) {
      errors.push_back(InvalidTrue("spec.insecureSkipTLSVerify",
                                   "local APIServices may not have insecureSkipTLSVerify"));
    }
    return errors;
  }
  if (String(service, "namespace").empty()) {
    errors.push_back(v::FieldRequired("spec.service.namespace", ""));
  }
  if (String(service, "name").empty()) errors.push_back(v::FieldRequired("spec.service.name", ""));
  const int64_t port = Int(service, "port");
  if (port < 1 || port > 65535) {
    errors.push_back(InvalidNumber("spec.service.port", port,
                                   "port is not valid: must be between 1 and 65535, inclusive"));
  }
  if (insecure && ca_bundle > 0) {
    errors.push_back(
        InvalidTrue("spec.insecureSkipTLSVerify", "may not be true if caBundle is present"));
  }
  return errors;
}

FieldErrors ValidateAPIServiceStatus(const json& apiservice) {
  FieldErrors errors;
  const json& conditions = Member(Member(apiservice, "status"), "conditions");
  if (!conditions.is_array()) return errors;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const std::string status = String(conditions[i], "status");
    if (status != "True" && status != "False" && status != "Unknown") {
      errors.push_back(v::FieldNotSupported("status.conditions[" + std::to_string(i) + "].status",
                                            status, {"True", "False", "Unknown"}));
    }
  }
  return errors;
}

}  // namespace aggregator::validation
