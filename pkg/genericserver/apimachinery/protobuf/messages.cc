#include "pkg/genericserver/apimachinery/protobuf/messages.h"

#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/decoder.h"
#include "pkg/genericserver/apimachinery/protobuf/tables.h"

namespace apimachinery::protobuf {
namespace {

struct KindEntry {
  std::string_view api_version;
  std::string_view kind;
  const MessageSpec* spec;
};

constexpr KindEntry kKinds[] = {
    {"v1", "Namespace", &tables::kNamespace},
    {"v1", "ConfigMap", &tables::kConfigMap},
    {"v1", "Secret", &tables::kSecret},
    {"v1", "ServiceAccount", &tables::kServiceAccount},
    {"v1", "Event", &tables::kEvent},
    {"coordination.k8s.io/v1", "Lease", &tables::kLease},
    {"authorization.k8s.io/v1", "SubjectAccessReview", &tables::kSubjectAccessReview},
    {"authorization.k8s.io/v1", "SelfSubjectAccessReview", &tables::kSelfSubjectAccessReview},
    {"authorization.k8s.io/v1", "SelfSubjectRulesReview", &tables::kSelfSubjectRulesReview},
    {"authentication.k8s.io/v1", "TokenReview", &tables::kTokenReview},
    {"authentication.k8s.io/v1", "SelfSubjectReview", &tables::kSelfSubjectReview},
    {"authentication.k8s.io/v1", "TokenRequest", &tables::kTokenRequest},
};

const MessageSpec* Find(std::string_view api_version, std::string_view kind) {
  for (const KindEntry& e : kKinds) {
    if (e.api_version == api_version && e.kind == kind) return e.spec;
  }
  return nullptr;
}

}  // namespace

bool KnowsKind(std::string_view api_version, std::string_view kind) {
  return Find(api_version, kind) != nullptr;
}

std::expected<nlohmann::json, std::string> ToJSON(const Envelope& envelope) {
  const MessageSpec* spec = Find(envelope.type.api_version, envelope.type.kind);
  if (spec == nullptr) {
    return std::unexpected("no protobuf decoding for kind \"" + envelope.type.kind +
                           "\" in version \"" + envelope.type.api_version + "\"");
  }
  auto object = DecodeMessage(*spec, envelope.raw);
  if (!object) return std::unexpected(object.error());
  // TypeMeta is inline with omitempty; both are non-empty for a known kind.
  (*object)["apiVersion"] = envelope.type.api_version;
  (*object)["kind"] = envelope.type.kind;
  return object;
}

}  // namespace apimachinery::protobuf
