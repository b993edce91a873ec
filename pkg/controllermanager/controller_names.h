#pragma once
// The controllers upstream's kube-controller-manager 1.32 knows, by the names `--controllers`
// takes: the canonical "<what>-controller" names, the short aliases of releases before 1.28,
// which are disabled unless named, which are cloud-provider controllers (always skipped
// since in-tree cloud providers are gone) and which needs starting first. The table is
// upstream's whole list, so that a flag that works upstream works here; a controller this
// project does not implement yet is accepted and skipped when it would start
// (docs/notes/kube-controller-manager-1.32.md).

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace controllermanager {

inline constexpr char kServiceAccountTokenController[] = "serviceaccount-token-controller";

struct ControllerName {
  std::string_view name;
  std::vector<std::string_view> aliases;
  bool disabled_by_default = false;
  bool cloud_provider = false;
  // Started before the others (its tokens are what the others may authenticate with).
  bool special_handling = false;
};

// Upstream's registration order.
const std::vector<ControllerName>& ControllerNames();

// Sorted, as upstream's KnownControllers() and ControllersDisabledByDefault().
std::vector<std::string> KnownControllers();
std::vector<std::string> ControllersDisabledByDefault();
// alias -> canonical name.
const std::map<std::string, std::string, std::less<>>& ControllerAliases();

}  // namespace controllermanager
