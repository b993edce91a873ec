#pragma once
// --bind-address, --secure-port, --cert-dir, --tls-cert-file, --tls-private-key-file.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct SecureServingOptions {
  std::string bind_address = "0.0.0.0";
  int secure_port = 6443;
  std::string cert_dir;  // default <data-dir>/pki
  std::string tls_cert_file;
  std::string tls_private_key_file;

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // The address clients on this host use: loopback when bound to all addresses.
  std::string LocalHost() const;
};

}  // namespace options
