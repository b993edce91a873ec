#include "pkg/controllermanager/controllers_flag.h"

#include <algorithm>

#include "pkg/controllermanager/controller_names.h"

namespace controllermanager {

namespace {

// The canonical name of `name`, or empty when it names no controller.
std::string Canonical(std::string_view name) {
  const auto& aliases = ControllerAliases();
  if (auto it = aliases.find(name); it != aliases.end()) return it->second;
  for (const auto& c : ControllerNames()) {
    if (c.name == name) return std::string(name);
  }
  return "";
}

std::string_view WithoutDash(std::string_view entry) {
  return entry.starts_with('-') ? entry.substr(1) : entry;
}

}  // namespace

std::vector<std::string> ValidateControllers(const std::vector<std::string>& controllers) {
  std::vector<std::string> errors;
  for (const std::string& entry : controllers) {
    if (entry == "*") continue;
    const std::string_view name = WithoutDash(entry);
    if (Canonical(name).empty()) {
      errors.push_back("\"" + std::string(name) + "\" is not in the list of known controllers");
    }
  }
  return errors;
}

std::vector<std::string> CanonicalControllers(const std::vector<std::string>& controllers) {
  std::vector<std::string> out;
  for (const std::string& entry : controllers) {
    const std::string canonical = entry == "*" ? "" : Canonical(WithoutDash(entry));
    if (canonical.empty()) {
      out.push_back(entry);
    } else {
      out.push_back((entry.starts_with('-') ? "-" : "") + canonical);
    }
  }
  return out;
}

bool IsControllerEnabled(const std::string& name, const std::set<std::string>& disabled_by_default,
                         const std::vector<std::string>& controllers) {
  bool star = false;
  for (const std::string& entry : controllers) {
    if (entry == name) return true;
    if (entry.starts_with('-') && entry.substr(1) == name) return false;
    if (entry == "*") star = true;
  }
  return star && !disabled_by_default.contains(name);
}

std::string AggregateErrors(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  for (const std::string& e : errors) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  if (unique.empty()) return "";
  if (unique.size() == 1) return unique[0];
  std::string out = "[";
  for (size_t i = 0; i < unique.size(); ++i) out += (i ? ", " : "") + unique[i];
  return out + "]";
}

}  // namespace controllermanager
