// authorization.k8s.io/v1: the access reviews (may this user do this?) and the rules review
// (what may I do here?), answered by the server's authorizer. Created, never stored: the
// answer is the review with its status.
#include <ctime>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/registry/subresource_action.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr char kGroupVersion[] = "authorization.k8s.io/v1";

std::vector<std::string> Strings(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const json& s : list) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

// Whether spec sets the attribute set (a Go pointer: present and not null).
bool Has(const json& spec, const char* key) {
  const json* set = Present(spec, key);
  return set && set->is_object();
}

json Array(const std::vector<std::string>& strings) {
  return strings.empty() ? json(nullptr) : json(strings);
}

// The request a review describes, as the authorizer sees requests.
endpoints::RequestInfo Request(const json& spec) {
  endpoints::RequestInfo info;
  if (Has(spec, "resourceAttributes")) {
    const json& r = Sub(spec, "resourceAttributes");
    info.is_resource_request = true;
    info.verb = Str(r, "verb");
    info.api_group = Str(r, "group");
    info.api_version = Str(r, "version");
    info.resource = Str(r, "resource");
    info.subresource = Str(r, "subresource");
    info.namespace_ = Str(r, "namespace");
    info.name = Str(r, "name");
  } else {
    const json& n = Sub(spec, "nonResourceAttributes");
    info.path = Str(n, "path");
    info.verb = Str(n, "verb");
  }
  return info;
}

// spec.nonResourceAttributes refused, its value printed as Go's %#v prints the pointer.
v::FieldError NonResourceRefused(const json& spec, std::string detail) {
  const json& n = Sub(spec, "nonResourceAttributes");
  v::FieldError e =
      v::FieldInvalid("spec.nonResourceAttributes",
                      "&authorization.NonResourceAttributes{Path:" + json(Str(n, "path")).dump() +
                          ", Verb:" + json(Str(n, "verb")).dump() + "}",
                      std::move(detail));
  e.value_form = v::ValueForm::kVerbatim;
  return e;
}

// Exactly one of the two attribute sets (ValidateSubjectAccessReviewSpec).
registry::FieldErrors ValidateAttributes(const json& spec) {
  const bool resource = Has(spec, "resourceAttributes");
  const bool non_resource = Has(spec, "nonResourceAttributes");
  registry::FieldErrors errors;
  if (resource && non_resource) {
    errors.push_back(
        NonResourceRefused(spec, "cannot be specified in combination with resourceAttributes"));
  }
  if (!resource && !non_resource) {
    v::FieldError e =
        v::FieldInvalid("spec.resourceAttributes", "null",
                        "exactly one of nonResourceAttributes or resourceAttributes must be "
                        "specified");
    e.value_form = v::ValueForm::kVerbatim;
    errors.push_back(e);
  }
  return errors;
}

Awaitable<json> Decide(const authz::Authorizer& authorizer, const authn::UserInfo& user,
                       const json& spec) {
  const endpoints::RequestInfo info = Request(spec);
  const authz::Attributes attributes{user, info};
  const authz::AuthorizationResult result = co_await authorizer.Authorize(attributes);
  json status = {{"allowed", result.decision == authz::Decision::kAllow}};
  if (result.decision == authz::Decision::kDeny) status["denied"] = true;
  if (!result.reason.empty()) status["reason"] = result.reason;
  if (!result.error.empty()) status["evaluationError"] = result.error;
  co_return status;
}

// Go's %#v of a metav1.ObjectMeta, as upstream prints the metadata it refuses. Fields a review
// could carry are printed as Go does; time values other than the zero time are shown in UTC.
std::string GoObjectMeta(const json& meta) {
  auto str = [&](const char* field) { return v::GoQuote(Str(meta, field)); };
  auto map = [&](const char* field) {
    if (!meta.contains(field) || !meta[field].is_object())
      return std::string("map[string]string(nil)");
    const json& m = meta[field];
    std::string out = "map[string]string{";
    bool first = true;
    for (const auto& [k, val] : m.items()) {  // sorted, as fmt sorts map keys
      out += (first ? "" : ", ") + v::GoQuote(k) + ":" +
             v::GoQuote(val.is_string() ? val.get<std::string>() : val.dump());
      first = false;
    }
    return out + "}";
  };
  auto time = [&](const char* field) {
    std::tm tm{};
    const std::string text = Str(meta, field);
    if (text.empty() || !strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return std::string();
    static constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                              "May",       "June",     "July",     "August",
                                              "September", "October",  "November", "December"};
    return "time.Date(" + std::to_string(tm.tm_year + 1900) + ", time." + kMonths[tm.tm_mon] +
           ", " + std::to_string(tm.tm_mday) + ", " + std::to_string(tm.tm_hour) + ", " +
           std::to_string(tm.tm_min) + ", " + std::to_string(tm.tm_sec) + ", 0, time.UTC)";
  };
  const json finalizers = meta.value("finalizers", json());
  const std::string created = time("creationTimestamp");
  const std::string deleted = time("deletionTimestamp");
  return "v1.ObjectMeta{Name:" + str("name") + ", GenerateName:" + str("generateName") +
         ", Namespace:" + str("namespace") + ", SelfLink:" + str("selfLink") +
         ", UID:" + str("uid") + ", ResourceVersion:" + str("resourceVersion") +
         ", Generation:" + std::to_string(meta.value("generation", int64_t{0})) +
         ", CreationTimestamp:" +
         (created.empty() ? "time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)" : created) +
         ", DeletionTimestamp:" + (deleted.empty() ? "<nil>" : deleted) +
         ", DeletionGracePeriodSeconds:(*int64)(nil), Labels:" + map("labels") +
         ", Annotations:" + map("annotations") + ", OwnerReferences:[]v1.OwnerReference(nil)" +
         ", Finalizers:" +
         (finalizers.is_array() ? v::GoStringSlice(Strings(finalizers)) : "[]string(nil)") +
         ", ManagedFields:[]v1.ManagedFieldsEntry(nil)}";
}

// Access reviews carry no metadata (a local one its namespace only): upstream refuses any
// other, after the spec's errors. managedFields do not count.
void ValidateEmptyMetadata(const json& body, bool local, registry::FieldErrors& errors) {
  json meta = Sub(body, "metadata");
  if (!meta.is_object()) return;
  json checked = meta;
  checked.erase("managedFields");
  if (local) checked.erase("namespace");
  // A creationTimestamp of null is what clients send for "none".
  if (checked.contains("creationTimestamp") && checked["creationTimestamp"].is_null()) {
    checked.erase("creationTimestamp");
  }
  if (checked.empty()) return;
  v::FieldError e = v::FieldInvalid("metadata", GoObjectMeta(meta),
                                    local ? "must be empty except for namespace" : "must be empty");
  e.value_form = v::ValueForm::kVerbatim;
  errors.push_back(std::move(e));
}

enum class Subject { kSpec, kRequester };

class AccessReview final : public registry::SubresourceAction {
 public:
  AccessReview(authz::AuthorizerPtr authorizer, std::string kind, Subject subject, bool local)
      : authorizer_(std::move(authorizer)),
        kind_(std::move(kind)),
        subject_(subject),
        local_(local) {}

  Awaitable<registry::Result<json>> Post(registry::Store&, std::string ns, std::string, json body,
                                         registry::WriteOptions options) const override {
    const json& spec = Sub(body, "spec");
    registry::FieldErrors errors = ValidateAttributes(spec);
    authn::UserInfo user;
    if (subject_ == Subject::kSpec) {
      user.name = Str(spec, "user");
      user.uid = Str(spec, "uid");
      user.groups = Strings(Sub(spec, "groups"));
      const json& extra = Sub(spec, "extra");
      for (const auto& [key, values] : extra.items()) user.extra[key] = Strings(values);
      if (user.name.empty() && user.groups.empty()) {
        errors.push_back(
            v::FieldInvalid("spec.user", "", "at least one of user or group must be specified"));
      }
    } else if (options.user) {
      user = *options.user;
    }
    if (local_) {
      const json& attributes = Sub(spec, "resourceAttributes");
      if (Has(spec, "nonResourceAttributes")) {
        errors.push_back(NonResourceRefused(spec, "disallowed on this kind of request"));
      }
      if (Has(spec, "resourceAttributes") && Str(attributes, "namespace") != ns) {
        errors.push_back(v::FieldInvalid("spec.resourceAttributes.namespace",
                                         Str(attributes, "namespace"),
                                         "must match metadata.namespace"));
      }
    }
    ValidateEmptyMetadata(body, local_, errors);
    if (!errors.empty()) {
      co_return std::unexpected(v::NewInvalid("authorization.k8s.io", kind_, "", errors));
    }
    json status = co_await Decide(*authorizer_, user, spec);
    co_return AnswerWithStatus(std::move(body), std::move(status));
  }

 private:
  authz::AuthorizerPtr authorizer_;
  std::string kind_;
  Subject subject_;
  bool local_;
};

// What the requester may do in spec.namespace.
class RulesReview final : public registry::SubresourceAction {
 public:
  explicit RulesReview(authz::AuthorizerPtr authorizer) : authorizer_(std::move(authorizer)) {}

  Awaitable<registry::Result<json>> Post(registry::Store&, std::string, std::string, json body,
                                         registry::WriteOptions options) const override {
    const std::string ns = Str(Sub(body, "spec"), "namespace");
    if (ns.empty())
      co_return std::unexpected(apimachinery::NewBadRequest("no namespace on request"));
    const authn::UserInfo user = options.user.value_or(authn::UserInfo{});
    const authz::Rules rules = authorizer_->RulesFor(user, ns);
    json resource_rules = json::array();
    for (const authz::ResourceRule& r : rules.resource_rules) {
      json rule = {{"verbs", Array(r.verbs)}};
      if (!r.api_groups.empty()) rule["apiGroups"] = r.api_groups;
      if (!r.resources.empty()) rule["resources"] = r.resources;
      if (!r.resource_names.empty()) rule["resourceNames"] = r.resource_names;
      resource_rules.push_back(std::move(rule));
    }
    json non_resource_rules = json::array();
    for (const authz::NonResourceRule& r : rules.non_resource_rules) {
      json rule = {{"verbs", Array(r.verbs)}};
      if (!r.non_resource_urls.empty()) rule["nonResourceURLs"] = r.non_resource_urls;
      non_resource_rules.push_back(std::move(rule));
    }
    json status = {{"resourceRules", std::move(resource_rules)},
                   {"nonResourceRules", std::move(non_resource_rules)},
                   {"incomplete", rules.incomplete}};
    if (!rules.evaluation_error.empty()) status["evaluationError"] = rules.evaluation_error;
    co_return AnswerWithStatus(std::move(body), std::move(status));
  }

 private:
  authz::AuthorizerPtr authorizer_;
};

registry::ResourceSpecPtr Review(std::string_view plural,
                                 std::shared_ptr<const registry::SubresourceAction> action) {
  auto spec = Builtin(kGroupVersion, plural);
  spec->create_action = std::move(action);
  return Finish(std::move(spec));
}

}  // namespace

registry::ResourceSpecPtr SubjectAccessReviews(authz::AuthorizerPtr authorizer) {
  return Review("subjectaccessreviews",
                std::make_shared<AccessReview>(std::move(authorizer), "SubjectAccessReview",
                                               Subject::kSpec, false));
}

registry::ResourceSpecPtr LocalSubjectAccessReviews(authz::AuthorizerPtr authorizer) {
  return Review("localsubjectaccessreviews",
                std::make_shared<AccessReview>(std::move(authorizer), "LocalSubjectAccessReview",
                                               Subject::kSpec, true));
}

registry::ResourceSpecPtr SelfSubjectAccessReviews(authz::AuthorizerPtr authorizer) {
  return Review("selfsubjectaccessreviews",
                std::make_shared<AccessReview>(std::move(authorizer), "SelfSubjectAccessReview",
                                               Subject::kRequester, false));
}

registry::ResourceSpecPtr SelfSubjectRulesReviews(authz::AuthorizerPtr authorizer) {
  return Review("selfsubjectrulesreviews", std::make_shared<RulesReview>(std::move(authorizer)));
}

}  // namespace master::resources
