#include "pkg/controller/certificates/csr.h"

#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"
#include "pkg/util/base64.h"

namespace controller::certificates {

using nlohmann::json;

namespace {

const json& Conditions(const json& csr) { return Field(Field(csr, "status"), "conditions"); }

}  // namespace

Approval GetApproval(const json& csr) {
  Approval out;
  const json& conditions = Conditions(csr);
  if (!conditions.is_array()) return out;
  for (const json& c : conditions) {
    const std::string type = Str(c, "type");
    if (type == kApproved) out.approved = true;
    if (type == kDenied) out.denied = true;
  }
  return out;
}

bool IsApproved(const json& csr) {
  const Approval a = GetApproval(csr);
  return a.approved && !a.denied;
}

bool HasTrueCondition(const json& csr, const std::string& type) {
  const json& conditions = Conditions(csr);
  if (!conditions.is_array()) return false;
  for (const json& c : conditions) {
    const std::string status = Str(c, "status");
    if (Str(c, "type") == type && (status.empty() || status == "True")) return true;
  }
  return false;
}

std::string IssuedCertificate(const json& csr) {
  auto decoded = util::Base64Decode(Str(Field(csr, "status"), "certificate"));
  return decoded ? *decoded : std::string();
}

std::string RequestPEM(const json& csr) {
  auto decoded = util::Base64Decode(Str(Field(csr, "spec"), "request"));
  return decoded ? *decoded : std::string();
}

std::vector<std::string> Usages(const json& csr) {
  std::vector<std::string> out;
  const json& usages = Field(Field(csr, "spec"), "usages");
  if (!usages.is_array()) return out;
  for (const json& u : usages) {
    if (u.is_string()) out.push_back(u.get<std::string>());
  }
  return out;
}

std::set<std::string> UsageSet(const json& csr) {
  std::vector<std::string> usages = Usages(csr);
  return {usages.begin(), usages.end()};
}

std::optional<int64_t> ExpirationSeconds(const json& csr) {
  const json& v = Field(Field(csr, "spec"), "expirationSeconds");
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<int64_t>();
}

std::string Name(const json& csr) { return Meta(csr, "name"); }

std::string SignerName(const json& csr) { return Str(Field(csr, "spec"), "signerName"); }

}  // namespace controller::certificates
