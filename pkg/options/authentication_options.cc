#include "pkg/options/authentication_options.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/options/certificates.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace options {

void AuthenticationOptions::AddFlags(FlagSet& fs) {
  fs.Section("Authentication flags");
  fs.String("client-ca-file", &client_ca_file,
            "PEM bundle of CAs whose client certificates are accepted, besides the generated "
            "CA; the certificate's CN is the user name and its O entries the groups.");
  fs.String("token-auth-file", &token_auth_file,
            "CSV file of static bearer tokens: token,user,uid[,\"group1,group2\"].");
  fs.Bool("anonymous-auth", &anonymous_auth,
          "Requests without credentials become system:anonymous in group "
          "system:unauthenticated. Turned off under --authorization-mode=AlwaysAllow.");
  fs.StringList("service-account-issuer", &service_account_issuers,
                "The issuer (iss) of the service-account tokens this server signs (the first) "
                "and accepts (all). Default: https://kubernetes.default.svc.cluster.local.");
  fs.StringList("service-account-key-file", &service_account_key_files,
                "PEM files of public (or private) keys that verify service-account tokens, "
                "besides the signing key.");
  fs.String("service-account-signing-key-file", &service_account_signing_key_file,
            "PEM private key (RSA or ECDSA P-256) that signs service-account tokens. Default: "
            "sa.key in --cert-dir, generated on first start.");
  fs.Bool("service-account-lookup", &service_account_lookup,
          "If true, validate ServiceAccount tokens exist in etcd as part of authentication: "
          "the service account, the pod or Secret a token is bound to, a legacy token's "
          "Secret.");
  fs.String("service-account-jwks-uri", &service_account_jwks_uri,
            "Overrides the URI for the JSON Web Key Set in the discovery doc served at "
            "/.well-known/openid-configuration. Default: https://<advertise address:port>"
            "/openid/v1/jwks.");
  fs.StringList("api-audiences", &api_audiences,
                "Audiences a token must name to be accepted, and the default audiences of "
                "TokenRequests. Default: the first --service-account-issuer.");
  fs.String("requestheader-client-ca-file", &requestheader_client_ca_file,
            "PEM bundle of CAs whose client certificates may name the user in the "
            "--requestheader-username-headers; such a certificate is not itself a user unless "
            "--client-ca-file trusts it too. The generated front-proxy CA is trusted as well "
            "unless --proxy-client-cert-file is given.");
  fs.StringList("requestheader-allowed-names", &requestheader_allowed_names,
                "Common names a front-proxy certificate must have; empty: any certificate of "
                "those CAs. Default with only the generated front-proxy CA: front-proxy-client.");
  fs.StringList("requestheader-username-headers", &requestheader_username_headers,
                "Request headers holding the user name; the first one present wins. Default "
                "with the generated front proxy: X-Remote-User.");
  fs.StringList("requestheader-group-headers", &requestheader_group_headers,
                "Request headers holding the groups; every value counts. Default with the "
                "generated front proxy: X-Remote-Group.");
  fs.StringList("requestheader-extra-headers-prefix", &requestheader_extra_headers_prefix,
                "Prefixes of request headers holding extra user information (the rest of the "
                "name, lower-cased and percent-decoded, is the key). Default with the "
                "generated front proxy: X-Remote-Extra-.");
  fs.String("authentication-token-webhook-config-file", &token_webhook_config_file,
            "A kubeconfig naming the service that reviews bearer tokens no other authenticator "
            "knows (its server URL, CA and client credentials), asked with TokenReviews.");
  fs.String("authentication-token-webhook-version", &token_webhook_version,
            "Which TokenReview version the webhook speaks: v1 or v1beta1.");
  fs.Duration("authentication-token-webhook-cache-ttl", &token_webhook_cache_ttl,
              "How long the webhook's answers are reused.");
  fs.Bool("enable-bootstrap-token-auth", &enable_bootstrap_token_auth,
          "Enable to allow Secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' "
          "namespace to be used for TLS bootstrapping authentication.");
  fs.String("oidc-issuer-url", &oidc_issuer_url,
            "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will "
            "be used to verify the OIDC JSON Web Token (JWT).");
  fs.String("oidc-client-id", &oidc_client_id,
            "The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.");
  fs.String("oidc-ca-file", &oidc_ca_file,
            "If set, the OpenID server's certificate will be verified by one of the "
            "authorities in the oidc-ca-file, otherwise the host's root CA set will be used.");
  fs.String("oidc-username-claim", &oidc_username_claim,
            "The OpenID claim to use as the user name. Note that claims other than the default "
            "('sub') is not guaranteed to be unique and immutable.");
  fs.String("oidc-username-prefix", &oidc_username_prefix,
            "If provided, all usernames will be prefixed with this value. If not provided, "
            "username claims other than 'email' are prefixed by the issuer URL to avoid "
            "clashes. To skip any prefixing, provide the value '-'.");
  fs.String("oidc-groups-claim", &oidc_groups_claim,
            "If provided, the name of a custom OpenID Connect claim for specifying user groups. "
            "The claim value is expected to be a string or array of strings.");
  fs.String("oidc-groups-prefix", &oidc_groups_prefix,
            "If provided, all groups will be prefixed with this value to prevent conflicts with "
            "other authentication strategies.");
  fs.StringMap("oidc-required-claim", &oidc_required_claims,
               "A key=value pair that describes a required claim in the ID Token. If set, the "
               "claim is verified to be present in the ID Token with a matching value. Repeat "
               "this flag to specify multiple claims.");
  fs.StringList("oidc-signing-algs", &oidc_signing_algs,
                "Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a "
                "supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, "
                "PS256, PS384, PS512.");
}

std::vector<std::string> AuthenticationOptions::Validate() const {
  std::vector<std::string> errors;
  std::vector<std::pair<std::string, std::string>> files = {
      {"--client-ca-file", client_ca_file},
      {"--token-auth-file", token_auth_file},
      {"--service-account-signing-key-file", service_account_signing_key_file},
      {"--requestheader-client-ca-file", requestheader_client_ca_file},
      {"--authentication-token-webhook-config-file", token_webhook_config_file}};
  for (const std::string& f : service_account_key_files) {
    files.emplace_back("--service-account-key-file", f);
  }
  for (const auto& [flag, path] : files) {
    if (!path.empty() && !std::filesystem::is_regular_file(path)) {
      errors.push_back(flag + " " + util::Quote(path) + ": no such file");
    }
  }
  for (const auto& [flag, values] :
       {std::pair{"requestheader-username-headers", &requestheader_username_headers},
        std::pair{"requestheader-group-headers", &requestheader_group_headers},
        std::pair{"requestheader-extra-headers-prefix", &requestheader_extra_headers_prefix},
        std::pair{"requestheader-allowed-names", &requestheader_allowed_names}}) {
    for (const std::string& v : *values) {
      if (util::TrimSpace(v).empty()) {
        errors.push_back("empty value in " + util::Quote(flag));
        break;
      }
    }
  }
  // Any --oidc-* flag needs both (upstream counts a flag given at its default value too).
  const bool oidc = !oidc_issuer_url.empty() || !oidc_client_id.empty() || !oidc_ca_file.empty() ||
                    oidc_username_claim != "sub" || !oidc_username_prefix.empty() ||
                    !oidc_groups_claim.empty() || !oidc_groups_prefix.empty() ||
                    !oidc_required_claims.empty() ||
                    oidc_signing_algs != std::vector<std::string>{"RS256"};
  if (oidc && (oidc_issuer_url.empty() || oidc_client_id.empty())) {
    errors.push_back(
        "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags "
        "are set");
  }
  if (token_webhook_version != "v1" && token_webhook_version != "v1beta1") {
    errors.push_back("unsupported authentication webhook version " +
                     util::Quote(token_webhook_version) +
                     ", supported versions are \"v1\", \"v1beta1\"");
  }
  return errors;
}

void AuthenticationOptions::Complete(const std::vector<std::string>& modes,
                                     bool front_proxy_generated) {
  if (service_account_issuers.empty()) {
    service_account_issuers = {"https://kubernetes.default.svc.cluster.local"};
  }
  if (api_audiences.empty()) api_audiences = {service_account_issuers.front()};
  if (anonymous_auth && std::ranges::find(modes, authz::kModeAlwaysAllow) != modes.end()) {
    KLOG_WARNING << "AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting "
                    "AnonymousAuth to false. You should use a different authorizer";
    anonymous_auth = false;
  }

  if (front_proxy_generated) {
    auto fill = [](std::vector<std::string>& values, const char* standard) {
      if (values.empty()) values = {standard};
    };
    fill(requestheader_username_headers, "X-Remote-User");
    fill(requestheader_group_headers, "X-Remote-Group");
    fill(requestheader_extra_headers_prefix, "X-Remote-Extra-");
    // Only the generated CA is trusted: only its client may send the headers.
    if (requestheader_client_ca_file.empty()) {
      fill(requestheader_allowed_names, kFrontProxyClientName);
    }
  }
  for (auto* values : {&requestheader_username_headers, &requestheader_group_headers,
                       &requestheader_extra_headers_prefix}) {
    for (std::string& v : *values) v = std::string(util::TrimSpace(v));
  }
  // What upstream warns about: the aggregator sets the standard headers.
  for (const auto& [flag, values, standard] :
       {std::tuple{"--requestheader-username-headers", &requestheader_username_headers,
                   "X-Remote-User"},
        std::tuple{"--requestheader-group-headers", &requestheader_group_headers, "X-Remote-Group"},
        std::tuple{"--requestheader-extra-headers-prefix", &requestheader_extra_headers_prefix,
                   "X-Remote-Extra-"}}) {
    if (!values->empty() && std::ranges::none_of(*values, [&](const std::string& v) {
          return util::EqualsIgnoreCase(v, standard);
        })) {
      KLOG_WARNING << flag << " is set without specifying the standard " << standard
                   << " header - API aggregation will not work";
    }
  }
}

}  // namespace options
