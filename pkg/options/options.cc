#include "pkg/options/options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <boost/asio/io_context.hpp>

#include "pkg/genericserver/authn/request_header.h"
#include "pkg/genericserver/authn/service_account_token.h"
#include "pkg/genericserver/authn/token_file.h"
#include "pkg/genericserver/authn/union.h"
#include "pkg/genericserver/authn/x509.h"
#include "pkg/genericserver/storage/value/encryption_config.h"
#include "pkg/options/admin_kubeconfig.h"
#include "pkg/pki/pki.h"
#include "pkg/plugin/authenticator/bootstrap_token.h"
#include "pkg/plugin/authenticator/oidc.h"
#include "pkg/plugin/authenticator/token_webhook.h"
#include "pkg/plugin/authorizer/webhook.h"
#include "pkg/util/file.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace options {
namespace {
namespace fs = std::filesystem;

void Append(std::vector<std::string>& to, std::vector<std::string> from) {
  for (auto& e : from) to.push_back(std::move(e));
}

// The PEM bundles of files, one after the other; errors name the flag of each file.
std::string Concatenate(const std::vector<std::pair<std::string, std::string>>& flags_and_files,
                        std::vector<std::string>& errors, std::vector<std::string>& files) {
  std::string bundle;
  for (const auto& [flag, path] : flags_and_files) {
    auto pem = util::ReadFile(path);
    auto valid = pem ? pki::ValidateBundle(*pem)
                     : std::expected<void, std::string>(std::unexpected(pem.error()));
    if (!valid) {
      errors.push_back(flag + " " + path + ": " + valid.error());
      continue;
    }
    files.push_back(path);
    bundle += *pem;
    if (!bundle.empty() && bundle.back() != '\n') bundle += '\n';
  }
  return bundle;
}

// The OIDC authenticator of the --oidc-* flags, checked as upstream checks them when it
// builds it.
std::expected<authn::AuthenticatorPtr, std::string> NewOIDC(const AuthenticationOptions& a,
                                                            boost::asio::any_io_executor io) {
  authn::OIDCOptions oidc;
  oidc.issuer_url = a.oidc_issuer_url;
  oidc.client_id = a.oidc_client_id;
  oidc.username_claim = a.oidc_username_claim;
  oidc.username_prefix = a.oidc_username_prefix;
  oidc.groups_claim = a.oidc_groups_claim;
  oidc.groups_prefix = a.oidc_groups_prefix;
  oidc.required_claims = a.oidc_required_claims;
  oidc.signing_algs = a.oidc_signing_algs;
  if (!a.oidc_ca_file.empty()) {
    auto pem = util::ReadFile(a.oidc_ca_file);
    if (!pem) return std::unexpected("open " + a.oidc_ca_file + ": no such file or directory");
    if (!pki::ValidateBundle(*pem)) {
      return std::unexpected(
          "invalid authentication configuration: jwt[0].issuer.certificateAuthority: Invalid "
          "value: \"<omitted>\": data does not contain any valid RSA or ECDSA certificates");
    }
    oidc.ca_pem = std::move(*pem);
  }
  if (std::ranges::find(a.service_account_issuers, oidc.issuer_url) !=
      a.service_account_issuers.end()) {
    std::vector<std::string> issuers = a.service_account_issuers;
    std::ranges::sort(issuers);
    return std::unexpected("issuer.url: Invalid value: " + util::Quote(oidc.issuer_url) +
                           ": URL must not overlap with disallowed issuers: [" +
                           util::Join(issuers, " ") + "]");
  }
  return authn::NewOIDCAuthenticator(oidc, std::move(io));
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}
}  // namespace

void Options::AddFlags(FlagSet& fs) {
  generic.AddFlags(fs);
  secure_serving.AddFlags(fs);
  authentication.AddFlags(fs);
  authorization.AddFlags(fs);
  audit.AddFlags(fs);
  admission.AddFlags(fs);
  aggregator.AddFlags(fs);
  storage.AddFlags(fs);
  embedded.AddFlags(fs);
  service.AddFlags(fs);
  fs.Section("Logs flags");
  fs.Int("v", &verbosity, "Log verbosity: 0 (start-up and errors) to 10 (everything).");
  fs.Shorthand('v', "v");
  fs.Section("Global flags");
  fs.Bool("help", &help, "Print this help and exit.");
  fs.Shorthand('h', "help");
  fs.Bool("version", &version, "Print the version and exit.");
}

std::vector<std::string> Options::Validate() const {
  std::vector<std::string> errors;
  Append(errors, generic.Validate());
  Append(errors, secure_serving.Validate());
  Append(errors, authentication.Validate());
  Append(errors, authorization.Validate());
  Append(errors, audit.Validate());
  Append(errors, admission.Validate());
  Append(errors, aggregator.Validate());
  Append(errors, storage.Validate());
  Append(errors, embedded.Validate());
  Append(errors, service.Validate());
  if (verbosity < 0) errors.push_back("-v " + std::to_string(verbosity) + " must not be negative");
  return errors;
}

std::expected<CompletedOptions, std::vector<std::string>> Options::Complete() const {
  CompletedOptions done;
  Options& o = done.options_;
  o = *this;
  std::vector<std::string> errors;

  std::error_code ec;
  o.embedded.data_dir = fs::absolute(o.embedded.data_dir, ec).lexically_normal().string();
  fs::create_directories(o.embedded.data_dir, ec);
  if (ec)
    return std::unexpected(
        std::vector{"creating --data-dir " + o.embedded.data_dir + ": " + ec.message()});
  ::chmod(o.embedded.data_dir.c_str(), 0700);
  if (o.secure_serving.cert_dir.empty()) {
    o.secure_serving.cert_dir = (fs::path(o.embedded.data_dir) / "pki").string();
  }
  if (o.embedded.admin_kubeconfig.empty()) {
    o.embedded.admin_kubeconfig = (fs::path(o.embedded.data_dir) / "admin.kubeconfig").string();
  }
  o.generic.Complete(o.secure_serving.bind_address);
  o.service.Complete();
  o.authentication.Complete(o.authorization.modes, o.aggregator.GenerateFrontProxy());

  PKIRequest pki_request;
  pki_request.cert_dir = o.secure_serving.cert_dir;
  pki_request.generate_serving = o.secure_serving.tls_cert_file.empty();
  pki_request.generate_front_proxy = o.aggregator.GenerateFrontProxy();
  pki_request.dns_names = {"localhost", "kubernetes", "kubernetes.default",
                           "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"};
  if (std::string host = HostName(); !host.empty() && host != "localhost") {
    pki_request.dns_names.push_back(host);
  }
  pki_request.ips = {"127.0.0.1", "::1", o.generic.advertise_address};
  if (!IsUnspecifiedAddress(o.secure_serving.bind_address)) {
    pki_request.ips.push_back(o.secure_serving.bind_address);
  }
  if (std::string ip = o.service.FirstServiceIP(); !ip.empty()) pki_request.ips.push_back(ip);
  auto files = EnsurePKI(pki_request);
  if (!files) return std::unexpected(std::vector{files.error()});
  done.pki_ = *files;

  if (std::ranges::find(o.authorization.modes, authz::kModeRBAC) != o.authorization.modes.end()) {
    done.rbac_policy_ = std::make_shared<authz::rbac::PolicyIndex>();
  }
  done.io_ = std::make_shared<boost::asio::io_context>();
  if (!o.authorization.webhook_config_file.empty()) {
    authz::WebhookAuthorizerOptions webhook;
    webhook.config_file = o.authorization.webhook_config_file;
    webhook.version = o.authorization.webhook_version;
    webhook.authorized_ttl = o.authorization.webhook_cache_authorized_ttl;
    webhook.unauthorized_ttl = o.authorization.webhook_cache_unauthorized_ttl;
    auto authorizer = authz::NewWebhookAuthorizer(webhook, done.io_->get_executor());
    if (authorizer) {
      done.webhook_authorizer_ = *authorizer;
    } else {
      errors.push_back("--authorization-webhook-config-file: " + authorizer.error());
    }
  }
  if (!o.authentication.token_webhook_config_file.empty()) {
    authn::TokenWebhookOptions webhook;
    webhook.config_file = o.authentication.token_webhook_config_file;
    webhook.version = o.authentication.token_webhook_version;
    webhook.cache_ttl = o.authentication.token_webhook_cache_ttl;
    webhook.api_audiences = o.authentication.api_audiences;
    auto authenticator = authn::NewTokenWebhookAuthenticator(webhook, done.io_->get_executor());
    if (authenticator) {
      done.token_webhook_ = *authenticator;
    } else {
      errors.push_back("--authentication-token-webhook-config-file: " + authenticator.error());
    }
  }
  if (auto audit = NewAudit(o.audit)) {
    done.audit_ = std::move(*audit);
  } else {
    errors.push_back(audit.error());
  }
  if (!o.storage.encryption_provider_config.empty()) {
    auto encryption = storage::value::LoadEncryptionConfig(o.storage.encryption_provider_config);
    if (encryption) {
      done.encryption_ =
          std::make_shared<const storage::value::EncryptionConfig>(std::move(*encryption));
    } else {
      errors.push_back("--encryption-provider-config: " + encryption.error());
    }
  }
  if (o.authentication.service_account_lookup) {
    done.service_account_lookup_ = std::make_shared<authn::ServiceAccountObjects>();
  }
  if (!o.authentication.oidc_issuer_url.empty() && !o.authentication.oidc_client_id.empty()) {
    auto oidc = NewOIDC(o.authentication, done.io_->get_executor());
    if (oidc) {
      done.oidc_ = *oidc;
    } else {
      errors.push_back(oidc.error());
    }
  }
  if (o.authentication.enable_bootstrap_token_auth) {
    done.bootstrap_tokens_ = std::make_shared<authn::BootstrapTokenSecrets>();
  }
  if (!o.authentication.token_auth_file.empty()) {
    auto tokens = authn::TokenFileAuthenticator::Load(o.authentication.token_auth_file);
    if (tokens) {
      done.tokens_ = *tokens;
    } else {
      errors.push_back("--token-auth-file: " + tokens.error());
    }
  }
  // Service-account tokens: signed with one key, verified with its public half and those of
  // --service-account-key-file (public or private keys).
  const std::string signing_path = o.authentication.service_account_signing_key_file.empty()
                                       ? done.pki_.service_account_key
                                       : o.authentication.service_account_signing_key_file;
  auto signing = util::ReadFile(signing_path);
  auto signing_public =
      signing ? authn::PublicKeyOf(*signing)
              : std::expected<std::string, std::string>(std::unexpected(signing.error()));
  if (!signing_public) {
    errors.push_back("--service-account-signing-key-file " + signing_path + ": " +
                     signing_public.error());
  } else {
    done.service_account_signing_key_ = *signing;
    done.service_account_public_keys_.push_back(*signing_public);
  }
  for (const std::string& path : o.authentication.service_account_key_files) {
    auto pem = util::ReadFile(path);
    if (!pem) {
      errors.push_back("--service-account-key-file " + path + ": " + pem.error());
      continue;
    }
    done.service_account_public_keys_.push_back(*pem);  // the authenticator reads any PEM
  }
  // The two sets of CAs, kept apart: client certificates, and front proxies.
  std::vector<std::pair<std::string, std::string>> client_cas = {{"ca.crt", done.pki_.ca_cert}};
  if (!o.authentication.client_ca_file.empty()) {
    client_cas.emplace_back("--client-ca-file", o.authentication.client_ca_file);
  }
  done.client_ca_bundle_ = Concatenate(client_cas, errors, done.client_ca_files_);
  std::vector<std::pair<std::string, std::string>> request_header_cas;
  if (pki_request.generate_front_proxy) {
    request_header_cas.emplace_back("front-proxy-ca.crt", done.pki_.front_proxy_ca_cert);
  }
  if (!o.authentication.requestheader_client_ca_file.empty()) {
    request_header_cas.emplace_back("--requestheader-client-ca-file",
                                    o.authentication.requestheader_client_ca_file);
  }
  done.request_header_ca_bundle_ =
      Concatenate(request_header_cas, errors, done.request_header_ca_files_);

  // The aggregator's client certificate: given (both files, checked here as upstream's
  // aggregator checks them when it loads them) or generated.
  if (pki_request.generate_front_proxy) {
    done.proxy_client_cert_file_ = done.pki_.front_proxy_client_cert;
    done.proxy_client_key_file_ = done.pki_.front_proxy_client_key;
  } else {
    done.proxy_client_cert_file_ = o.aggregator.proxy_client_cert_file;
    done.proxy_client_key_file_ = o.aggregator.proxy_client_key_file;
    auto cert = util::ReadFile(done.proxy_client_cert_file_);
    auto key = util::ReadFile(done.proxy_client_key_file_);
    if (!cert || !key) {
      errors.push_back("--proxy-client-cert-file, --proxy-client-key-file: " +
                       (cert ? key.error() : cert.error()));
    } else if (auto info = pki::ParseCertificate(*cert); !info) {
      errors.push_back("--proxy-client-cert-file " + done.proxy_client_cert_file_ + ": " +
                       info.error());
    } else if (!pki::KeyMatches(*cert, *key)) {
      errors.push_back("--proxy-client-key-file " + done.proxy_client_key_file_ +
                       " does not match --proxy-client-cert-file " + done.proxy_client_cert_file_);
    }
  }
  if (!errors.empty()) return std::unexpected(errors);

  AdminKubeconfig kubeconfig;
  kubeconfig.path = o.embedded.admin_kubeconfig;
  kubeconfig.server = "https://" + o.secure_serving.LocalHost() + ":" +
                      std::to_string(o.secure_serving.secure_port);
  if (pki_request.generate_serving) kubeconfig.ca_cert_file = done.pki_.ca_cert;
  kubeconfig.client_cert_file = done.pki_.admin_cert;
  kubeconfig.client_key_file = done.pki_.admin_key;
  if (auto r = WriteAdminKubeconfig(kubeconfig); !r) {
    return std::unexpected(std::vector{"writing the admin kubeconfig: " + r.error()});
  }
  // What kube-controller-manager needs beside: its kubeconfig (the signing key is sa.key).
  kubeconfig.path = done.ControllerManagerKubeconfig();
  kubeconfig.client_cert_file = done.pki_.controller_manager_cert;
  kubeconfig.client_key_file = done.pki_.controller_manager_key;
  kubeconfig.user = kControllerManagerUser;
  if (auto r = WriteAdminKubeconfig(kubeconfig); !r) {
    return std::unexpected(
        std::vector{"writing the controller manager's kubeconfig: " + r.error()});
  }
  return done;
}

storage::StorageConfig CompletedOptions::StorageConfig() const {
  const Options& o = options_;
  storage::StorageConfig c;
  c.backend = o.storage.storage_backend;
  c.sqlite_path = (fs::path(o.embedded.data_dir) / "state.db").string();
  c.etcd_servers = o.storage.etcd_servers;
  c.etcd_ca_file = o.storage.etcd_cafile;
  c.etcd_cert_file = o.storage.etcd_certfile;
  c.etcd_key_file = o.storage.etcd_keyfile;
  c.prefix = o.storage.etcd_prefix;
  c.encryption = encryption_;
  c.compaction.window = o.storage.compaction_interval;
  // Look often enough that history is never kept much longer than the window.
  c.compaction.interval = std::clamp<util::Duration>(
      o.storage.compaction_interval / 5, std::chrono::seconds(1), std::chrono::minutes(1));
  return c;
}

genericserver::Config CompletedOptions::GenericConfig() const {
  const Options& o = options_;
  genericserver::Config c;
  c.io = io_;
  c.secure_serving.bind_address = o.secure_serving.bind_address;
  c.secure_serving.port = o.secure_serving.secure_port;
  if (o.secure_serving.tls_cert_file.empty()) {
    c.secure_serving.cert_file = pki_.serving_cert;
    c.secure_serving.key_file = pki_.serving_key;
  } else {
    c.secure_serving.cert_file = o.secure_serving.tls_cert_file;
    c.secure_serving.key_file = o.secure_serving.tls_private_key_file;
  }
  c.secure_serving.client_ca_files = client_ca_files_;
  c.secure_serving.request_header_ca_files = request_header_ca_files_;

  // As upstream orders them: the front proxy first, then client certificates, then tokens,
  // local ones before the remote webhook.
  std::vector<authn::AuthenticatorPtr> authenticators;
  if (!request_header_ca_files_.empty()) {
    authn::RequestHeaderConfig request_header;
    request_header.username_headers = o.authentication.requestheader_username_headers;
    request_header.group_headers = o.authentication.requestheader_group_headers;
    request_header.extra_header_prefixes = o.authentication.requestheader_extra_headers_prefix;
    request_header.allowed_names = o.authentication.requestheader_allowed_names;
    c.request_header = std::make_shared<const authn::RequestHeaderConfig>(request_header);
    authenticators.push_back(
        std::make_shared<authn::RequestHeaderAuthenticator>(std::move(request_header)));
  }
  authenticators.push_back(std::make_shared<authn::X509Authenticator>());
  // Tokens that name no audience are for the server's.
  auto agnostic = [&](authn::AuthenticatorPtr a) {
    return authn::WithImplicitAudiences(o.authentication.api_audiences, std::move(a));
  };
  if (tokens_) authenticators.push_back(agnostic(tokens_));
  authenticators.push_back(authn::NewServiceAccountTokenAuthenticator(
      service_account_public_keys_, o.authentication.service_account_issuers,
      o.authentication.api_audiences, service_account_lookup_));
  if (bootstrap_tokens_) {
    authenticators.push_back(agnostic(authn::NewBootstrapTokenAuthenticator(bootstrap_tokens_)));
  }
  if (oidc_) authenticators.push_back(agnostic(oidc_));
  if (token_webhook_) authenticators.push_back(token_webhook_);
  c.authenticator =
      authn::NewUnionAuthenticator(std::move(authenticators), o.authentication.anonymous_auth);
  c.authorizer = authz::NewFromModes(o.authorization.modes, rbac_policy_, webhook_authorizer_);
  c.audit_policy = audit_.policy;
  c.audit_backend = audit_.backend;

  c.max_requests_in_flight = o.generic.max_requests_inflight;
  c.max_mutating_requests_in_flight = o.generic.max_mutating_requests_inflight;
  c.request_timeout = o.generic.request_timeout;
  c.shutdown_delay = o.generic.shutdown_delay_duration;
  const std::string& ip = o.generic.advertise_address;
  c.external_address = (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":" +
                       std::to_string(o.secure_serving.secure_port);
  return c;
}

}  // namespace options
