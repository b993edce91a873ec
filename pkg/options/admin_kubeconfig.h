#pragma once
// The kubeconfig for the generated admin user, pointing at this server.

#include <expected>
#include <string>

namespace options {

struct AdminKubeconfig {
  std::string path;
  std::string server;        // https://127.0.0.1:6443
  std::string ca_cert_file;  // empty: the server's certificate is not ours, use system roots
  std::string client_cert_file;
  std::string client_key_file;
};

// Writes the file (mode 0600) with the certificates embedded, so it works when copied.
std::expected<void, std::string> WriteAdminKubeconfig(const AdminKubeconfig& k);

}  // namespace options
