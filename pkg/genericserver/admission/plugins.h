#pragma once
// The admission plugins kube-apiserver 1.32 knows, in the order it runs them, and which are
// on by default; the plugins --enable-admission-plugins and --disable-admission-plugins
// leave on, in that order, with upstream's errors for names it does not know. Pure.

#include <expected>
#include <string>
#include <vector>

namespace admission {

// Every plugin name, in upstream's order (its AllOrderedPlugins).
const std::vector<std::string>& AllOrderedPlugins();
// Those on unless disabled.
const std::vector<std::string>& DefaultOnPlugins();

// The plugins that run: the default ones and `enable`, minus `disable`, in upstream's order;
// or every error (unknown names, a name both enabled and disabled).
std::expected<std::vector<std::string>, std::vector<std::string>> EnabledPlugins(
    const std::vector<std::string>& enable, const std::vector<std::string>& disable);

}  // namespace admission
