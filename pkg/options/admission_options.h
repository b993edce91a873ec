#pragma once
// --enable-admission-plugins and --disable-admission-plugins: which of upstream's admission
// plugins run (admission::EnabledPlugins), checked against the names upstream 1.32 knows;
// --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds.

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

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // The plugins that run, in upstream's order (call after Validate found nothing).
  std::vector<std::string> Enabled() const;
};

}  // namespace options
