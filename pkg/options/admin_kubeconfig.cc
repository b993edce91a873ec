#include "pkg/options/admin_kubeconfig.h"

#include <filesystem>

#include "pkg/util/base64.h"
#include "pkg/util/file.h"

namespace options {

std::expected<void, std::string> WriteAdminKubeconfig(const AdminKubeconfig& k) {
  auto cert = util::ReadFile(k.client_cert_file);
  if (!cert) return std::unexpected(cert.error());
  auto key = util::ReadFile(k.client_key_file);
  if (!key) return std::unexpected(key.error());
  std::string ca_line;
  if (!k.ca_cert_file.empty()) {
    auto ca = util::ReadFile(k.ca_cert_file);
    if (!ca) return std::unexpected(ca.error());
    ca_line = "    certificate-authority-data: " + util::Base64Encode(*ca) + "\n";
  }
  std::string text =
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- cluster:\n" +
      ca_line + "    server: " + k.server +
      "\n"
      "  name: kube-apiserver\n"
      "contexts:\n"
      "- context:\n"
      "    cluster: kube-apiserver\n"
      "    user: " +
      k.user + "\n  name: " + k.user + "@kube-apiserver\n" + "current-context: " + k.user +
      "@kube-apiserver\n" +
      "preferences: {}\n"
      "users:\n"
      "- name: " +
      k.user +
      "\n  user:\n"
      "    client-certificate-data: " +
      util::Base64Encode(*cert) + "\n    client-key-data: " + util::Base64Encode(*key) + "\n";
  std::error_code ec;
  auto parent = std::filesystem::path(k.path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  return util::WriteFileAtomic(k.path, text, 0600);
}

}  // namespace options
