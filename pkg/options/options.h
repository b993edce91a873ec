#pragma once
// Every kube-apiserver flag, grouped by concern. The life of the options:
//   Options (parsed flags) -> Validate() (every error at once, no side effects)
//   -> Complete() (defaults, generated certificates, kubeconfig, token file)
//   -> CompletedOptions -> GenericConfig() for the servers of the chain.

#include <expected>
#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/authn/service_account_objects.h"
#include "pkg/genericserver/authz/rbac/policy_index.h"
#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/storage/factory.h"
#include "pkg/options/admission_options.h"
#include "pkg/options/aggregator_options.h"
#include "pkg/options/audit_options.h"
#include "pkg/options/authentication_options.h"
#include "pkg/options/authorization_options.h"
#include "pkg/options/certificates.h"
#include "pkg/options/embedded_options.h"
#include "pkg/options/flagset.h"
#include "pkg/options/generic_server_run_options.h"
#include "pkg/options/secure_serving_options.h"
#include "pkg/options/service_options.h"
#include "pkg/options/storage_options.h"

namespace authn {
class BootstrapTokenSecrets;
class TokenFileAuthenticator;
}  // namespace authn

namespace options {

class CompletedOptions;

struct Options {
  GenericServerRunOptions generic;
  SecureServingOptions secure_serving;
  AuthenticationOptions authentication;
  AuthorizationOptions authorization;
  AuditOptions audit;
  AdmissionOptions admission;
  AggregatorOptions aggregator;
  StorageOptions storage;
  EmbeddedOptions embedded;
  ServiceOptions service;
  int verbosity = 0;
  bool help = false;
  bool version = false;

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // Call after Validate() found nothing. Writes under --data-dir.
  std::expected<CompletedOptions, std::vector<std::string>> Complete() const;
};

class CompletedOptions {
 public:
  const Options& Get() const { return options_; }
  const PKIFiles& Pki() const { return pki_; }
  const std::string& AdminKubeconfig() const { return options_.embedded.admin_kubeconfig; }
  // <data-dir>/controller-manager.kubeconfig, as the controller manager's user.
  std::string ControllerManagerKubeconfig() const {
    return options_.embedded.data_dir + "/controller-manager.kubeconfig";
  }
  // The configuration the aggregator, master and apiextensions servers share.
  genericserver::Config GenericConfig() const;
  // Which storage to open, and where.
  storage::StorageConfig StorageConfig() const;
  // The PEM private key that signs service-account tokens.
  const std::string& ServiceAccountSigningKey() const { return service_account_signing_key_; }
  // The PEM keys that verify service-account tokens (the signer's public half and those of
  // --service-account-key-file).
  const std::vector<std::string>& ServiceAccountPublicKeys() const {
    return service_account_public_keys_;
  }
  // The RBAC policy the RBAC mode decides with (null without that mode); the master feeds it.
  const std::shared_ptr<authz::rbac::PolicyIndex>& RBACPolicy() const { return rbac_policy_; }
  // The audit policy and backends (null when nothing is audited); call Shutdown on the
  // backend when the server stopped, so that what is buffered is written.
  const Audit& AuditSetup() const { return audit_; }
  // What service-account tokens are checked against (null without --service-account-lookup);
  // the master feeds it.
  const std::shared_ptr<authn::ServiceAccountObjects>& ServiceAccountLookup() const {
    return service_account_lookup_;
  }
  // The Secrets bootstrap tokens are checked against (null without
  // --enable-bootstrap-token-auth); the master feeds it.
  const std::shared_ptr<authn::BootstrapTokenSecrets>& BootstrapTokens() const {
    return bootstrap_tokens_;
  }

  // The client certificate the aggregator presents to extension API servers: the flags',
  // or the generated front-proxy-client.crt/.key.
  const std::string& ProxyClientCertFile() const { return proxy_client_cert_file_; }
  const std::string& ProxyClientKeyFile() const { return proxy_client_key_file_; }
  // The CAs trusted for client certificates (the generated CA, --client-ca-file) and for
  // front-proxy certificates (the generated front-proxy CA unless --proxy-client-cert-file,
  // --requestheader-client-ca-file): the files, and their PEM content concatenated, as
  // kube-system/extension-apiserver-authentication publishes them. No request-header CA:
  // request-header authentication is off.
  const std::vector<std::string>& ClientCAFiles() const { return client_ca_files_; }
  const std::string& ClientCABundle() const { return client_ca_bundle_; }
  const std::vector<std::string>& RequestHeaderCAFiles() const { return request_header_ca_files_; }
  const std::string& RequestHeaderCABundle() const { return request_header_ca_bundle_; }

 private:
  friend struct Options;
  CompletedOptions() = default;
  Options options_;
  PKIFiles pki_;
  std::shared_ptr<authn::TokenFileAuthenticator> tokens_;
  std::shared_ptr<authz::rbac::PolicyIndex> rbac_policy_;
  // The I/O loop of the servers, made here because the webhooks' clients run on it.
  std::shared_ptr<boost::asio::io_context> io_;
  authz::AuthorizerPtr webhook_authorizer_;
  authn::AuthenticatorPtr token_webhook_;
  authn::AuthenticatorPtr oidc_;
  Audit audit_;
  std::shared_ptr<authn::ServiceAccountObjects> service_account_lookup_;
  std::shared_ptr<authn::BootstrapTokenSecrets> bootstrap_tokens_;
  std::shared_ptr<const storage::value::EncryptionConfig> encryption_;
  std::string service_account_signing_key_;
  std::vector<std::string> service_account_public_keys_;  // PEM
  std::string proxy_client_cert_file_;
  std::string proxy_client_key_file_;
  std::vector<std::string> client_ca_files_;
  std::string client_ca_bundle_;
  std::vector<std::string> request_header_ca_files_;
  std::string request_header_ca_bundle_;
};

}  // namespace options
