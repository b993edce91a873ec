#pragma once
// The admission plugins of --enable-admission-plugins and --disable-admission-plugins made
// by name, in the order given (admission::EnabledPlugins' order). Names upstream knows that
// this server does not implement yet are left out, and said so in the log once.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"
#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/genericserver/transport/webhook_client.h"

namespace plugin::admission {

// What plugins are configured with by flags (upstream's legacy admission flags).
struct PluginSettings {
  int64_t default_not_ready_toleration_seconds = 300;
  int64_t default_unreachable_toleration_seconds = 300;
  // Where the admission webhooks' clientConfig.service points.
  transport::ServiceResolver resolve_service;
  // --admission-control-config-file's configuration of each plugin (JSON, by name).
  std::map<std::string, std::string> configs;
};

// Why `config` (JSON; "" when the file gives none) cannot configure the enabled plugin
// `name`, or nothing when it can (or when the plugin takes no configuration).
std::optional<std::string> CheckPluginConfig(const std::string& name, const std::string& config);

// The plugins read what they need from `stores` (namespaces, service accounts, priority
// classes), which the servers fill as they make their stores; the certificate plugins ask
// `authorizer`.
std::vector<::admission::PluginPtr> NewPlugins(const std::vector<std::string>& names,
                                               std::shared_ptr<const ::admission::Stores> stores,
                                               authz::AuthorizerPtr authorizer,
                                               const PluginSettings& settings = {});

}  // namespace plugin::admission
