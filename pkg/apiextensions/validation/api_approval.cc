// Groups of the Kubernetes community (k8s.io, kubernetes.io and their subdomains) need the
// api-approved.kubernetes.io annotation: a URL, or a reason starting with "unapproved".

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

constexpr std::string_view kAnnotation = "api-approved.kubernetes.io";

enum class Approval { kInvalid, kApproved, kBypassed, kMissing };

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsProtectedCommunityGroup(std::string_view group) {
  return group == "k8s.io" || EndsWith(group, ".k8s.io") || group == "kubernetes.io" ||
         EndsWith(group, ".kubernetes.io");
}

// url.ParseRequestURI succeeding with a scheme and a host: "scheme://host...".
bool IsAbsoluteURLWithHost(std::string_view s) {
  size_t colon = s.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  for (size_t i = 0; i < colon; ++i) {
    const char c = s[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    const bool other = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    if (!letter && !(i > 0 && other)) return false;
  }
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ') return false;
  }
  std::string_view rest = s.substr(colon + 1);
  if (rest.substr(0, 2) != "//") return false;
  rest.remove_prefix(2);
  const size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  return !authority.empty();
}

Approval State(const json& crd, std::string* reason, std::string* value) {
  const std::string annotation = Str(Get(Get(crd, "metadata"), "annotations"), kAnnotation);
  *value = annotation;
  const std::string quoted = v::GoQuote(kAnnotation);
  if (annotation.empty()) {
    *reason = "protected groups must have approval annotation " + quoted +
              ", see https://github.com/kubernetes/enhancements/pull/1111";
    return Approval::kMissing;
  }
  if (annotation.starts_with("unapproved")) {
    *reason = "not approved: " + v::GoQuote(annotation);
    return Approval::kBypassed;
  }
  if (IsAbsoluteURLWithHost(annotation)) {
    *reason = "approved in " + annotation;
    return Approval::kApproved;
  }
  *reason = "protected groups must have approval annotation " + quoted +
            R"( with either a URL or a reason starting with "unapproved", see )"
            "https://github.com/kubernetes/enhancements/pull/1111";
  return Approval::kInvalid;
}

}  // namespace

void ValidateAPIApproval(const json& crd, const json* old, FieldErrors& errors) {
  if (!IsProtectedCommunityGroup(Str(Get(crd, "spec"), "group"))) return;
  std::string reason, value, old_reason, old_value;
  const Approval state = State(crd, &reason, &value);
  // An unchanged approval state never fails, so controllers that only touch the spec pass.
  if (old != nullptr && State(*old, &old_reason, &old_value) == state) return;
  const std::string path = Key("metadata.annotations", kAnnotation);
  switch (state) {
    case Approval::kApproved:
    case Approval::kBypassed:
      return;
    case Approval::kMissing:
      errors.push_back(v::FieldRequired(path, reason));
      return;
    case Approval::kInvalid:
      errors.push_back(v::FieldInvalid(path, value, reason));
      return;
  }
}

}  // namespace apiextensions::validation::internal
