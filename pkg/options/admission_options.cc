#include "pkg/options/admission_options.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/admission/plugins.h"
#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/plugin/admission/plugins.h"
#include "pkg/util/file.h"
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
  fs.String("admission-control-config-file", &config_file,
            "File with admission control configuration.");
}

std::vector<std::string> AdmissionOptions::Validate() const {
  auto enabled = admission::EnabledPlugins(enable_plugins, disable_plugins);
  std::vector<std::string> errors = enabled ? std::vector<std::string>{} : enabled.error();
  auto configs = PluginConfigs();
  if (!configs) {
    errors.push_back(configs.error());
  } else if (enabled) {
    for (const std::string& name : *enabled) {
      auto it = configs->find(name);
      const std::string config = it == configs->end() ? "" : it->second;
      if (auto bad = plugin::admission::CheckPluginConfig(name, config)) {
        errors.push_back("couldn't init admission plugin " + util::Quote(name) + ": " + *bad);
      }
    }
  }
  return errors;
}

std::expected<std::map<std::string, std::string>, std::string> AdmissionOptions::PluginConfigs()
    const {
  std::map<std::string, std::string> out;
  if (config_file.empty()) return out;
  const auto read_error = [this](const std::string& why) {
    return std::unexpected(
        "failed to read plugin config: unable to read admission control "
        "configuration from " +
        util::Quote(config_file) + " [" + why + "]");
  };
  auto text = util::ReadFile(config_file);
  if (!text) return read_error(text.error());
  auto doc = apimachinery::yaml::YAMLToJSON(*text);
  if (!doc || !doc->is_object()) {
    return read_error(doc ? "the configuration is not an object" : doc.error());
  }
  const std::string kind = doc->value("kind", "");
  const std::string api_version = doc->value("apiVersion", "");
  if (kind != "AdmissionConfiguration" ||
      (api_version != "apiserver.config.k8s.io/v1" && api_version != "apiserver.k8s.io/v1alpha1")) {
    return read_error("expected an AdmissionConfiguration of apiserver.config.k8s.io/v1, got " +
                      api_version + ", Kind=" + kind);
  }
  const std::string dir = config_file.find('/') == std::string::npos
                              ? "."
                              : config_file.substr(0, config_file.rfind('/'));
  for (const nlohmann::json& plugin : doc->value("plugins", nlohmann::json::array())) {
    if (!plugin.is_object()) continue;
    const std::string name = plugin.value("name", "");
    if (auto embedded = plugin.find("configuration");
        embedded != plugin.end() && !embedded->is_null()) {
      out[name] = embedded->dump();
      continue;
    }
    std::string path = plugin.value("path", "");
    if (path.empty()) continue;
    if (path[0] != '/') path = dir + "/" + path;
    auto plugin_text = util::ReadFile(path);
    if (!plugin_text) {
      return std::unexpected(
          "failed to read plugin config: couldn't open admission plugin "
          "configuration " +
          util::Quote(path) + ": " + plugin_text.error());
    }
    auto plugin_doc = apimachinery::yaml::YAMLToJSON(*plugin_text);
    if (!plugin_doc) {
      return std::unexpected("failed to read plugin config: " + plugin_doc.error());
    }
    out[name] = plugin_doc->dump();
  }
  return out;
}

std::vector<std::string> AdmissionOptions::Enabled() const {
  return admission::EnabledPlugins(enable_plugins, disable_plugins)
      .value_or(std::vector<std::string>{});
}

}  // namespace options
