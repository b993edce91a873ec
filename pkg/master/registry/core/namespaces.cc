// core/v1 namespaces: cluster-scoped, DNS-label names, phase Active until deleted, then
// Terminating until spec.finalizers (the namespace controller's "kubernetes") and
// metadata.finalizers are empty. The finalize subresource edits spec.finalizers.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr char kFinalizerKubernetes[] = "kubernetes";
constexpr char kNameLabel[] = "kubernetes.io/metadata.name";

json SpecFinalizers(const json& ns) {
  auto spec = ns.find("spec");
  if (spec == ns.end() || !spec->is_object()) return json::array();
  auto f = spec->find("finalizers");
  return f != spec->end() && f->is_array() ? *f : json::array();
}

bool Terminating(const json& ns) {
  return ns.contains("metadata") && ns["metadata"].contains("deletionTimestamp");
}

registry::FieldErrors ValidateFinalizers(const json& ns) {
  registry::FieldErrors errors;
  static const char* const kStandard[] = {"kubernetes", "orphan", "foregroundDeletion"};
  for (const json& f : SpecFinalizers(ns)) {
    const std::string name = f.is_string() ? f.get<std::string>() : f.dump();
    bool bad = false;
    for (const std::string& msg : v::IsQualifiedName(name)) {
      errors.push_back(v::FieldInvalid("spec.finalizers", name, msg));
      bad = true;
    }
    if (bad || name.find('/') != std::string::npos) continue;
    if (std::find(std::begin(kStandard), std::end(kStandard), name) == std::end(kStandard)) {
      errors.push_back(v::FieldInvalid("spec.finalizers", name,
                                       "name is neither a standard finalizer name nor is it fully "
                                       "qualified"));
    }
  }
  return errors;
}

void CopyOrErase(json& object, const json& old, const char* field) {
  if (old.contains(field)) {
    object[field] = old[field];
  } else {
    object.erase(field);
  }
}

class NamespaceStrategy final : public registry::Strategy {
 public:
  apimachinery::validation::NameRule Names() const override {
    return apimachinery::validation::NameRule::kDNS1123Label;
  }

  void PrepareForCreate(json& ns) const override {
    ns["status"] = {{"phase", "Active"}};
    json finalizers = SpecFinalizers(ns);
    if (std::find(finalizers.begin(), finalizers.end(), kFinalizerKubernetes) == finalizers.end()) {
      finalizers.push_back(kFinalizerKubernetes);
    }
    ns["spec"]["finalizers"] = std::move(finalizers);
  }

  void PrepareForUpdate(json& ns, const json& old) const override {
    // spec.finalizers change through /finalize only, status through /status only.
    const json finalizers = SpecFinalizers(old);
    if (!ns.contains("spec") || !ns["spec"].is_object()) ns["spec"] = json::object();
    if (finalizers.empty()) {
      ns["spec"].erase("finalizers");
    } else {
      ns["spec"]["finalizers"] = finalizers;
    }
    CopyOrErase(ns, old, "status");
  }

  registry::FieldErrors Validate(const json& ns) const override { return ValidateFinalizers(ns); }

  void Canonicalize(json& ns) const override {
    ns["metadata"]["labels"][kNameLabel] = registry::MetaString(ns, "name");
    if (ns.contains("spec") && ns["spec"].is_object() && SpecFinalizers(ns).empty()) {
      ns["spec"].erase("finalizers");
    }
  }

  bool PrepareForDelete(json& ns) const override {
    ns["status"]["phase"] = "Terminating";
    return !SpecFinalizers(ns).empty();
  }

  bool Finalized(const json& ns) const override {
    return Strategy::Finalized(ns) && SpecFinalizers(ns).empty();
  }

  std::optional<apimachinery::Status> RefuseDelete(const json& ns) const override {
    const std::string name = registry::MetaString(ns, "name");
    if (name == "default" || name == "kube-system" || name == "kube-public") {
      return apimachinery::NewForbidden({"", "namespaces"}, name,
                                        "this namespace may not be deleted");
    }
    if (Terminating(ns) && !SpecFinalizers(ns).empty()) {
      return apimachinery::NewConflict(
          {"", "namespaces"}, name,
          "The system is ensuring all content is removed from this namespace.  Upon completion, "
          "this namespace will automatically be purged by the system.");
    }
    return std::nullopt;
  }
};

// namespaces/status: status only, and its phase must agree with the deletionTimestamp.
class NamespaceStatusStrategy final : public registry::StatusStrategy {
 public:
  registry::FieldErrors ValidateUpdate(const json& ns, const json&) const override {
    const std::string phase = ns.value("status", json::object()).value("phase", "");
    if (!Terminating(ns) && phase != "Active") {
      return {v::FieldInvalid("status.Phase", phase,
                              "may only be 'Active' if `deletionTimestamp` is empty")};
    }
    if (Terminating(ns) && phase != "Terminating") {
      return {v::FieldInvalid("status.Phase", phase,
                              "may only be 'Terminating' if `deletionTimestamp` is not empty")};
    }
    return {};
  }
};

// namespaces/finalize: spec.finalizers (and metadata) change, status does not.
class NamespaceFinalizeStrategy final : public registry::Strategy {
 public:
  apimachinery::validation::NameRule Names() const override {
    return apimachinery::validation::NameRule::kDNS1123Label;
  }
  void PrepareForUpdate(json& ns, const json& old) const override {
    CopyOrErase(ns, old, "status");
  }
  registry::FieldErrors ValidateUpdate(const json& ns, const json&) const override {
    return ValidateFinalizers(ns);
  }
  void Canonicalize(json& ns) const override {
    ns["metadata"]["labels"][kNameLabel] = registry::MetaString(ns, "name");
  }
};

}  // namespace

registry::ResourceSpecPtr Namespaces() {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->version = "v1";
  spec->kind = "Namespace";
  spec->plural = "namespaces";
  spec->short_names = {"ns"};
  spec->namespaced = false;
  spec->verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  spec->strategy = std::make_shared<NamespaceStrategy>();
  spec->subresources = {
      {"finalize",
       {"", "v1", "Namespace"},
       {"update"},
       std::make_shared<NamespaceFinalizeStrategy>()},
      {"status",
       {"", "v1", "Namespace"},
       {"get", "patch", "update"},
       std::make_shared<NamespaceStatusStrategy>()},
  };
  spec->columns = {
      registry::NameColumn(),
      {"Status", "string", "", "Active, or Terminating while being deleted.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& ns, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(ns, "name"),
                             ns.value("status", json::object()).value("phase", ""),
                             registry::Age(ns, now)};
  };
  spec->fields["status.phase"] = [](const json& ns) {
    return ns.value("status", json::object()).value("phase", "");
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
