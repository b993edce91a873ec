#include "pkg/options/admission_options.h"

#include "pkg/genericserver/admission/plugins.h"
#include "pkg/util/strings.h"

namespace options {

void AdmissionOptions::AddFlags(FlagSet& fs) {
  fs.Section("Admission flags");
  fs.StringList("enable-admission-plugins", &enable_plugins,
                "admission plugins that should be enabled in addition to default enabled ones (" +
                    util::Join(admission::DefaultOnPlugins(), ", ") +
                    "). Comma-delimited list of admission plugins: " +
                    util::Join(admission::AllOrderedPlugins(), ", ") +
                    ". The order of plugins in this flag does not matter.");
  fs.StringList("disable-admission-plugins", &disable_plugins,
                "admission plugins that should be disabled although they are in the default "
                "enabled plugins list. The order of plugins in this flag does not matter.");
  fs.Int("default-not-ready-toleration-seconds", &default_not_ready_toleration_seconds,
         "Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is "
         "added by default to every pod that does not already have such a toleration.");
  fs.Int("default-unreachable-toleration-seconds", &default_unreachable_toleration_seconds,
         "Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is "
         "added by default to every pod that does not already have such a toleration.");
}

std::vector<std::string> AdmissionOptions::Validate() const {
  auto enabled = admission::EnabledPlugins(enable_plugins, disable_plugins);
  return enabled ? std::vector<std::string>{} : enabled.error();
}

std::vector<std::string> AdmissionOptions::Enabled() const {
  return admission::EnabledPlugins(enable_plugins, disable_plugins)
      .value_or(std::vector<std::string>{});
}

}  // namespace options
