#pragma once
// --enable-admission-plugins and --disable-admission-plugins: which of upstream's admission
// plugins run (admission::EnabledPlugins), checked against the names upstream 1.32 knows;
// --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds;
// --admission-control-config-file (an AdmissionConfiguration: each plugin's configuration,
// embedded or in a file of its own).

#include <expected>
#include <map>
#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct AdmissionOptions {
  std::vector<std::string> enable_plugins;
  std::vector<std::string> disable_plugins;
  // DefaultTolerationSeconds' flags.
  int default_not_ready_toleration_seconds = 300;
  int default_unreachable_toleration_seconds = 300;
  std::string config_file;  // --admission-control-config-file

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // The plugins that run, in upstream's order (call after Validate found nothing).
  std::vector<std::string> Enabled() const;
  // The configuration of each plugin the config file names (JSON text, by plugin name),
  // or upstream's error reading it; empty without a file.
  std::expected<std::map<std::string, std::string>, std::string> PluginConfigs() const;
};

}  // namespace options
