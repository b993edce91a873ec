#pragma once
// Loading a kubeconfig file as client-go's clientcmd does, into what a client needs to
// reach the API server: the server URL, the TLS settings (CA, client certificate, skip
// verify, server name) and credentials (client certificate or bearer token), from the
// current context or a chosen one, with --master overriding the server.
//
// Paths in the file (certificate-authority, client-certificate, client-key, tokenFile) are
// relative to the file's directory; the *-data fields are base64 PEM. Errors are worded as
// clientcmd words them ("invalid configuration: context was not found for specified
// context: foo"). Pure: no threads, no I/O beyond reading the files named.

#include <expected>
#include <memory>
#include <string>

namespace client {

class TokenSource;  // rest/token_source.h

struct RestConfig {
  std::string host;  // "https://127.0.0.1:6443"
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string ca_pem;  // empty: the system's roots
  std::string cert_pem;
  std::string key_pem;
  std::string bearer_token;
  // Where the bearer token comes from instead, asked before every request (it caches and
  // renews): a controller acting as its service account. Never from a kubeconfig.
  std::shared_ptr<TokenSource> token_source;
  std::string namespace_name;  // the context's namespace, "default" when it names none
  // Client-side rate limits; clientcmd leaves them to the caller (client-go's defaults).
  double qps = 5;
  int burst = 10;
};

struct KubeconfigOverrides {
  std::string context{};  // empty: current-context
  std::string master{};   // --master: replaces the cluster's server
};

std::expected<RestConfig, std::string> LoadKubeconfig(const std::string& path,
                                                      const KubeconfigOverrides& overrides = {});

// The same from the file's text; relative paths are resolved against `directory`.
std::expected<RestConfig, std::string> ParseKubeconfig(std::string_view text,
                                                       const std::string& directory,
                                                       const KubeconfigOverrides& overrides = {});

}  // namespace client
