#include "pkg/options/embedded_options.h"

#include <filesystem>

#include "pkg/util/strings.h"

namespace options {

void EmbeddedOptions::AddFlags(FlagSet& fs) {
  fs.Section("Embedded flags");
  fs.String("data-dir", &data_dir,
            "Directory for the embedded store, the generated certificates and the admin "
            "kubeconfig; created if missing.");
  fs.String("admin-kubeconfig", &admin_kubeconfig,
            "Where to write a kubeconfig for the generated admin user (system:masters) "
            "(default <data-dir>/admin.kubeconfig).");
}

std::vector<std::string> EmbeddedOptions::Validate() const {
  std::vector<std::string> errors;
  if (data_dir.empty()) errors.push_back("--data-dir must not be empty");
  std::error_code ec;
  if (!data_dir.empty() && std::filesystem::exists(data_dir, ec) &&
      !std::filesystem::is_directory(data_dir, ec)) {
    errors.push_back("--data-dir " + util::Quote(data_dir) + " is not a directory");
  }
  return errors;
}

}  // namespace options
