// metadata.name, spec.group, spec.scope and the names of spec.names and status.acceptedNames.

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
#include "pkg/genericserver/apimachinery/validation/names.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

}  // namespace

void ValidateMetadataName(const json& crd, const Crd& view, FieldErrors& errors) {
  // Upstream's name validation function adds this to the DNS subdomain checks the generic
  // object metadata validation makes (which the registry runs for every resource).
  static constexpr std::string_view kDetail = R"(must be spec.names.plural+"."+spec.group)";
  const std::string required = Str(view.names, "plural") + "." + view.group;
  const json* meta = Get(crd, "metadata");
  const std::string generate_name = Str(meta, "generateName");
  if (!generate_name.empty() && generate_name != required) {
    errors.push_back(v::FieldInvalid("metadata.generateName", generate_name, std::string(kDetail)));
  }
  const std::string name = Str(meta, "name");
  if (!name.empty() && name != required) {
    errors.push_back(v::FieldInvalid("metadata.name", name, std::string(kDetail)));
  }
}

void ValidateGroup(const Crd& crd, FieldErrors& errors) {
  if (crd.group.empty()) {
    errors.push_back(v::FieldRequired("spec.group", ""));
  } else if (auto errs = v::IsDNS1123Subdomain(crd.group); !errs.empty()) {
    errors.push_back(v::FieldInvalid("spec.group", crd.group, Join(errs, ",")));
  } else if (crd.group.find('.') == std::string::npos) {
    errors.push_back(
        v::FieldInvalid("spec.group", crd.group, "should be a domain with at least one dot"));
  }
}

void ValidateScope(const Crd& crd, FieldErrors& errors) {
  if (crd.scope.empty()) {
    errors.push_back(v::FieldRequired("spec.scope", ""));
  } else if (crd.scope != "Cluster" && crd.scope != "Namespaced") {
    errors.push_back(v::FieldNotSupported("spec.scope", crd.scope, {"Cluster", "Namespaced"}));
  }
}

void ValidateRequiredNames(const Crd& crd, FieldErrors& errors) {
  for (const char* name : {"plural", "singular", "kind", "listKind"}) {
    if (Str(crd.names, name).empty()) {
      errors.push_back(v::FieldRequired(std::string("spec.names.") + name, ""));
    }
  }
}

void ValidateNames(const json* names, const std::string& path, FieldErrors& errors) {
  const std::string plural = Str(names, "plural");
  if (auto errs = v::IsDNS1035Label(plural); !plural.empty() && !errs.empty()) {
    errors.push_back(v::FieldInvalid(Child(path, "plural"), plural, Join(errs, ",")));
  }
  const std::string singular = Str(names, "singular");
  if (auto errs = v::IsDNS1035Label(singular); !singular.empty() && !errs.empty()) {
    errors.push_back(v::FieldInvalid(Child(path, "singular"), singular, Join(errs, ",")));
  }
  const std::string kind = Str(names, "kind");
  if (auto errs = v::IsDNS1035Label(Lower(kind)); !kind.empty() && !errs.empty()) {
    errors.push_back(
        v::FieldInvalid(Child(path, "kind"), kind,
                        "may have mixed case, but should otherwise match: " + Join(errs, ",")));
  }
  const std::string list_kind = Str(names, "listKind");
  if (auto errs = v::IsDNS1035Label(Lower(list_kind)); !list_kind.empty() && !errs.empty()) {
    errors.push_back(
        v::FieldInvalid(Child(path, "listKind"), list_kind,
                        "may have mixed case, but should otherwise match: " + Join(errs, ",")));
  }
  const std::vector<std::string> short_names = Strings(names, "shortNames");
  for (size_t i = 0; i < short_names.size(); ++i) {
    if (auto errs = v::IsDNS1035Label(short_names[i]); !errs.empty()) {
      errors.push_back(
          v::FieldInvalid(Index(Child(path, "shortNames"), i), short_names[i], Join(errs, ",")));
    }
  }
  // kind and listKind may not be the same or parsing becomes ambiguous
  if (!kind.empty() && kind == list_kind) {
    errors.push_back(v::FieldInvalid(Child(path, "listKind"), list_kind,
                                     "kind and listKind may not be the same"));
  }
  const std::vector<std::string> categories = Strings(names, "categories");
  for (size_t i = 0; i < categories.size(); ++i) {
    if (auto errs = v::IsDNS1035Label(categories[i]); !errs.empty()) {
      errors.push_back(
          v::FieldInvalid(Index(Child(path, "categories"), i), categories[i], Join(errs, ",")));
    }
  }
}

}  // namespace apiextensions::validation::internal
