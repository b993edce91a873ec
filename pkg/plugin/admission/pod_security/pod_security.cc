#include "pkg/plugin/admission/pod_security/pod_security.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/plugin/admission/pod_security/checks.h"

namespace plugin::admission::pod_security {

namespace {

using ::admission::Attributes;
using ::admission::Operation;
using apimachinery::Status;
using apimachinery::validation::GoQuote;
using nlohmann::json;
namespace v = apimachinery::validation;

constexpr char kLabelPrefix[] = "pod-security.kubernetes.io/";
const char* const kModes[] = {"enforce", "audit", "warn"};
// How many pods a namespace's new enforce level is tried on.
constexpr size_t kMaxPodsEvaluated = 3000;

const json kNull;

const json& At(const json& object, std::string_view key) {
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// The namespace's levels (missing labels take the defaults; a level given without a version
// is at latest), and what is wrong with its labels. An invalid level counts as restricted,
// an invalid version as latest.
struct Policy {
  LevelVersion enforce, audit, warn;
};

Policy PolicyOf(const json& labels, const Configuration& defaults,
                std::vector<v::FieldError>* errors) {
  Policy p{defaults.enforce, defaults.audit, defaults.warn};
  LevelVersion* modes[] = {&p.enforce, &p.audit, &p.warn};
  for (size_t i = 0; i < 3; ++i) {
    const std::string level_key = std::string(kLabelPrefix) + kModes[i];
    const std::string version_key = level_key + "-version";
    const json& level = At(labels, level_key);
    bool level_set = false;
    if (level.is_string()) {
      auto parsed = ParseLevel(level.get<std::string>());
      // An enforce level that does not parse fails closed, warn and audit open.
      modes[i]->level = parsed.value_or(i == 0 ? Level::kRestricted : Level::kPrivileged);
      level_set = parsed.has_value();
      if (!parsed && errors) {
        errors->push_back(v::FieldInvalid("metadata.labels[" + level_key + "]",
                                          level.get<std::string>(), parsed.error()));
      }
    }
    const json& version = At(labels, version_key);
    if (version.is_string()) {
      auto parsed = ParseVersion(version.get<std::string>());
      modes[i]->minor = parsed.value_or(0);
      if (!parsed && errors) {
        errors->push_back(v::FieldInvalid("metadata.labels[" + version_key + "]",
                                          version.get<std::string>(), parsed.error()));
      }
    } else if (level_set) {
      modes[i]->minor = 0;
    }
  }
  return p;
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The pod template of a workload kind, or null.
const json* Template(const registry::ResourceSpec& spec, const json& object) {
  static const std::map<std::string, std::string> kWorkloads = {
      {"/podtemplates", "template"}, {"/replicationcontrollers", "spec"},
      {"apps/replicasets", "spec"},  {"apps/deployments", "spec"},
      {"apps/statefulsets", "spec"}, {"apps/daemonsets", "spec"},
      {"batch/jobs", "spec"},        {"batch/cronjobs", "cronjob"}};
  auto it = kWorkloads.find(spec.group + "/" + spec.plural);
  if (it == kWorkloads.end()) return nullptr;
  const json* t = nullptr;
  if (it->second == "template") {
    t = &At(object, "template");
  } else if (it->second == "spec") {
    t = &At(At(object, "spec"), "template");
  } else {
    t = &At(At(At(At(object, "spec"), "jobTemplate"), "spec"), "template");
  }
  return t->is_object() ? t : nullptr;
}

// isSignificantPodUpdate: images, containers or seccomp annotations changed.
bool SignificantUpdate(const json& pod, const json& old) {
  const json& spec = At(pod, "spec");
  const json& old_spec = At(old, "spec");
  const json& annotations = At(At(pod, "metadata"), "annotations");
  const json& old_annotations = At(At(old, "metadata"), "annotations");
  if (At(annotations, "seccomp.security.alpha.kubernetes.io/pod") !=
      At(old_annotations, "seccomp.security.alpha.kubernetes.io/pod")) {
    return true;
  }
  for (const char* field : {"initContainers", "containers", "ephemeralContainers"}) {
    const json& list = At(spec, field);
    const json& old_list = At(old_spec, field);
    const size_t n = list.is_array() ? list.size() : 0;
    if (n != (old_list.is_array() ? old_list.size() : 0)) return true;
    for (size_t i = 0; i < n; ++i) {
      if (At(list[i], "image") != At(old_list[i], "image")) return true;
      const std::string key =
          "container.seccomp.security.alpha.kubernetes.io/" + registry::MetaString(list[i], "name");
      if (At(annotations, key) != At(old_annotations, key)) return true;
    }
  }
  return false;
}

// pod-security.kubernetes.io/<key> on the request's audit event.
void Annotate(const Attributes& a, const std::string& key, std::string value) {
  if (a.options.audit != nullptr)
    a.options.audit->AddAnnotation(kLabelPrefix + key, std::move(value));
}

class PodSecurity final : public ::admission::Plugin {
 public:
  PodSecurity(std::shared_ptr<const ::admission::Stores> stores, Configuration configuration)
      : stores_(std::move(stores)), config_(std::move(configuration)) {}

  Awaitable<std::optional<Status>> Validate(const Attributes& a,
                                            const json& object) const override {
    if (a.spec.group.empty() && a.spec.plural == "namespaces") {
      co_return co_await ValidateNamespace(a, object);
    }
    const bool pod = a.spec.group.empty() && a.spec.plural == "pods";
    if (pod && !a.options.subresource.empty() && a.options.subresource != "ephemeralcontainers") {
      co_return std::nullopt;
    }
    const json* pod_template = pod ? nullptr : Template(a.spec, object);
    if (!pod && (pod_template == nullptr || !a.options.subresource.empty())) co_return std::nullopt;
    if (Contains(config_.exempt_namespaces, a.ns)) {
      Annotate(a, "exempt", "namespace");
      co_return std::nullopt;
    }
    if (a.options.user && Contains(config_.exempt_usernames, a.options.user->name)) {
      Annotate(a, "exempt", "user");
      co_return std::nullopt;
    }
    const json& subject = pod ? object : *pod_template;
    const json& metadata = At(subject, "metadata");
    const json& spec = At(subject, "spec");
    if (const json& rc = At(spec, "runtimeClassName");
        rc.is_string() && Contains(config_.exempt_runtime_classes, rc.get<std::string>())) {
      Annotate(a, "exempt", "runtimeClass");
      co_return std::nullopt;
    }
    if (a.operation == Operation::kUpdate && a.old != nullptr) {
      if (pod && !SignificantUpdate(object, *a.old)) co_return std::nullopt;
      if (!pod) {
        const json* old_template = Template(a.spec, *a.old);
        if (old_template != nullptr && *old_template == *pod_template) co_return std::nullopt;
      }
    }
    json labels = json::object();
    if (auto store = stores_->Get("namespaces")) {
      auto ns = co_await ::admission::Lookup(store, "", a.ns);
      if (!ns) co_return ns.error();
      labels = At(At(*ns, "metadata"), "labels");
    }
    const Policy policy = PolicyOf(labels, config_, nullptr);
    if (pod) Annotate(a, "enforce-policy", policy.enforce.String());
    if (policy.audit.level != Level::kPrivileged) {
      auto violations = Check(policy.audit, metadata, spec);
      if (!violations.empty()) {
        Annotate(a, "audit-violations",
                 "would violate PodSecurity " + GoQuote(policy.audit.String()) + ": " +
                     Describe(violations));
      }
    }
    // A pod is refused at the enforce level (and then not warned about); workloads are only
    // warned about.
    if (pod) {
      auto enforced = Check(policy.enforce, metadata, spec);
      if (!enforced.empty()) {
        co_return apimachinery::NewForbidden(
            a.spec.Resource(), a.name,
            "violates PodSecurity " + GoQuote(policy.enforce.String()) + ": " + Describe(enforced));
      }
    }
    if (policy.warn.level != Level::kPrivileged && a.options.warnings != nullptr) {
      auto violations = Check(policy.warn, metadata, spec);
      if (!violations.empty()) {
        a.options.warnings->push_back("would violate PodSecurity " + GoQuote(policy.warn.String()) +
                                      ": " + Describe(violations));
      }
    }
    co_return std::nullopt;
  }

 private:
  Awaitable<std::optional<Status>> ValidateNamespace(const Attributes& a,
                                                     const json& object) const {
    if (!a.options.subresource.empty() || a.operation == Operation::kDelete) co_return std::nullopt;
    const json& labels = At(At(object, "metadata"), "labels");
    std::vector<v::FieldError> errors;
    const Policy policy = PolicyOf(labels, config_, &errors);
    if (a.operation == Operation::kUpdate && a.old != nullptr) {
      const Policy before = PolicyOf(At(At(*a.old, "metadata"), "labels"), config_, nullptr);
      const json& old_labels = At(At(*a.old, "metadata"), "labels");
      bool labels_changed = false;
      for (const char* mode : kModes) {
        for (const std::string suffix : {"", "-version"}) {
          const std::string key = std::string(kLabelPrefix) + mode + suffix;
          if (At(labels, key) != At(old_labels, key)) labels_changed = true;
        }
      }
      if (!labels_changed) co_return std::nullopt;
      if (!errors.empty()) {
        co_return v::NewInvalid("", "Namespace", a.name, std::move(errors));
      }
      if (policy.enforce.String() != before.enforce.String() &&
          policy.enforce.level != Level::kPrivileged &&
          !Contains(config_.exempt_namespaces, a.name)) {
        co_await WarnOfPods(a, policy.enforce);
      }
      co_return std::nullopt;
    }
    if (!errors.empty()) co_return v::NewInvalid("", "Namespace", a.name, std::move(errors));
    co_return std::nullopt;
  }

  // The warnings of a stricter enforce level: the pods of the namespace that break it, those
  // with the same reasons named together.
  Awaitable<void> WarnOfPods(const Attributes& a, const LevelVersion& enforce) const {
    if (a.options.warnings == nullptr) co_return;
    auto store = stores_->Get("pods");
    if (!store) co_return;
    auto pods = co_await ::admission::ListCached(store, a.name);
    if (!pods) co_return;
    std::vector<std::pair<std::string, std::vector<std::string>>> by_reasons;
    size_t evaluated = 0;
    for (const json& p : *pods) {
      if (++evaluated > kMaxPodsEvaluated) break;
      const json& spec = At(p, "spec");
      if (const json& rc = At(spec, "runtimeClassName");
          rc.is_string() && Contains(config_.exempt_runtime_classes, rc.get<std::string>())) {
        continue;
      }
      auto violations = Check(enforce, At(p, "metadata"), spec);
      if (violations.empty()) continue;
      std::string reasons;
      for (const Violation& violation : violations) {
        reasons += (reasons.empty() ? "" : ", ") + violation.reason;
      }
      auto it = std::find_if(by_reasons.begin(), by_reasons.end(),
                             [&](const auto& entry) { return entry.first == reasons; });
      if (it == by_reasons.end()) {
        by_reasons.push_back({reasons, {}});
        it = by_reasons.end() - 1;
      }
      it->second.push_back(registry::MetaString(p, "name"));
    }
    if (pods->size() > kMaxPodsEvaluated) {
      a.options.warnings->push_back(
          "new PodSecurity enforce level only checked against the "
          "first " +
          std::to_string(kMaxPodsEvaluated) + " of " + std::to_string(pods->size()) +
          " existing pods");
    }
    if (by_reasons.empty()) co_return;
    a.options.warnings->push_back("existing pods in namespace " + GoQuote(a.name) +
                                  " violate the new PodSecurity enforce level " +
                                  GoQuote(enforce.String()));
    // One warning per set of reasons, naming its lexically first pod, in sorted order.
    std::vector<std::string> lines;
    for (auto& [reasons, names] : by_reasons) {
      std::sort(names.begin(), names.end());
      std::string who = names[0];
      if (names.size() == 2) who += " (and 1 other pod)";
      if (names.size() > 2) who += " (and " + std::to_string(names.size() - 1) + " other pods)";
      lines.push_back(who + ": " + reasons);
    }
    std::sort(lines.begin(), lines.end());
    a.options.warnings->insert(a.options.warnings->end(), lines.begin(), lines.end());
  }

  std::shared_ptr<const ::admission::Stores> stores_;
  Configuration config_;
};

std::vector<std::string> StringList(const json& object, std::string_view key) {
  std::vector<std::string> out;
  const json& list = At(object, key);
  if (!list.is_array()) return out;
  for (const json& item : list) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace

std::expected<Configuration, std::string> ParseConfiguration(const std::string& text) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return std::unexpected("the PodSecurity configuration is not an object");
  }
  const std::string api_version = doc.value("apiVersion", "");
  if (doc.value("kind", "") != "PodSecurityConfiguration" ||
      (api_version != "pod-security.admission.config.k8s.io/v1" &&
       api_version != "pod-security.admission.config.k8s.io/v1beta1" &&
       api_version != "pod-security.admission.config.k8s.io/v1alpha1")) {
    return std::unexpected(
        "expected PodSecurityConfiguration of "
        "pod-security.admission.config.k8s.io/v1, got " +
        api_version + ", Kind=" + doc.value("kind", ""));
  }
  Configuration c;
  const json& defaults = At(doc, "defaults");
  std::vector<std::string> errors;
  LevelVersion* modes[] = {&c.enforce, &c.audit, &c.warn};
  for (size_t i = 0; i < 3; ++i) {
    const std::string mode = kModes[i];
    if (const json& level = At(defaults, mode); level.is_string()) {
      auto parsed = ParseLevel(level.get<std::string>());
      if (parsed) {
        modes[i]->level = *parsed;
      } else {
        errors.push_back("defaults." + mode + ": Invalid value: " +
                         GoQuote(level.get<std::string>()) + ": " + parsed.error());
      }
    }
    if (const json& version = At(defaults, mode + "-version"); version.is_string()) {
      auto parsed = ParseVersion(version.get<std::string>());
      if (parsed) {
        modes[i]->minor = *parsed;
      } else {
        errors.push_back("defaults." + mode + "-version: Invalid value: " +
                         GoQuote(version.get<std::string>()) + ": " + parsed.error());
      }
    }
  }
  if (!errors.empty()) {
    std::string joined = errors[0];
    for (size_t i = 1; i < errors.size(); ++i) joined += ", " + errors[i];
    return std::unexpected(errors.size() == 1 ? joined : "[" + joined + "]");
  }
  const json& exemptions = At(doc, "exemptions");
  c.exempt_usernames = StringList(exemptions, "usernames");
  c.exempt_namespaces = StringList(exemptions, "namespaces");
  c.exempt_runtime_classes = StringList(exemptions, "runtimeClasses");
  return c;
}

::admission::PluginPtr NewPodSecurity(std::shared_ptr<const ::admission::Stores> stores,
                                      Configuration configuration) {
  return std::make_shared<PodSecurity>(std::move(stores), std::move(configuration));
}

}  // namespace plugin::admission::pod_security
