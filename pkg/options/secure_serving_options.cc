#include "pkg/options/secure_serving_options.h"

#include <filesystem>

#include "pkg/options/generic_server_run_options.h"
#include "pkg/pki/pki.h"
#include "pkg/util/strings.h"

namespace options {

void SecureServingOptions::AddFlags(FlagSet& fs) {
  fs.Section("Secure serving flags");
  fs.String("bind-address", &bind_address,
            "The IP address to listen on for HTTPS; 0.0.0.0 or :: for every interface.");
  fs.Int("secure-port", &secure_port, "The port to serve HTTPS on.");
  fs.String("cert-dir", &cert_dir,
            "Where generated certificates are kept when --tls-cert-file is not given "
            "(default <data-dir>/pki).");
  fs.String("tls-cert-file", &tls_cert_file,
            "PEM file with the serving certificate, followed by any intermediates. "
            "Without it a CA and a serving certificate are generated in --cert-dir.");
  fs.String("tls-private-key-file", &tls_private_key_file,
            "PEM file with the private key of --tls-cert-file.");
}

std::vector<std::string> SecureServingOptions::Validate() const {
  std::vector<std::string> errors;
  if (pki::CanonicalIP(bind_address).empty()) {
    errors.push_back("--bind-address " + util::Quote(bind_address) + " is not a valid IP address");
  }
  if (secure_port < 1 || secure_port > 65535) {
    errors.push_back("--secure-port " + std::to_string(secure_port) +
                     " must be between 1 and 65535, inclusive. It cannot be turned off with 0");
  }
  if (tls_cert_file.empty() != tls_private_key_file.empty()) {
    errors.push_back("--tls-cert-file and --tls-private-key-file must be given together");
  }
  for (const auto& [flag, path] : {std::pair{"--tls-cert-file", tls_cert_file},
                                   std::pair{"--tls-private-key-file", tls_private_key_file}}) {
    if (!path.empty() && !std::filesystem::is_regular_file(path)) {
      errors.push_back(std::string(flag) + " " + util::Quote(path) + ": no such file");
    }
  }
  return errors;
}

std::string SecureServingOptions::LocalHost() const {
  std::string ip = pki::CanonicalIP(bind_address);
  if (IsUnspecifiedAddress(ip) || ip.empty()) return "127.0.0.1";
  return ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
}

}  // namespace options
