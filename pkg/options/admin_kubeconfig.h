#pragma once
// A kubeconfig with a client certificate, pointing at this server: the generated admin
// user's, and the controller manager's.

#include <expected>
#include <string>

namespace options {

struct AdminKubeconfig {
  std::string path;
  std::string server;        // https://127.0.0.1:6443
  std::string ca_cert_file;  // empty: the server's certificate is not ours, use system roots
  std::string client_cert_file;
  std::string client_key_file;
  std::string user = "admin";  // the user entry; the context is <user>@kube-apiserver
};

// Writes the file (mode 0600) with the certificates embedded, so it works when copied.
std::expected<void, std::string> WriteAdminKubeconfig(const AdminKubeconfig& k);

}  // namespace options
