#include "pkg/master/service_account_issuer_discovery.h"

#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/jws.h"
#include "pkg/genericserver/server/handler.h"

namespace master {
namespace {

using nlohmann::ordered_json;

// An https URL without query or fragment (what OIDC requires of an issuer).
bool IsIssuerURL(const std::string& url) {
  return url.starts_with("https://") && url.size() > 8 &&
         url.find_first_of("?#") == std::string::npos;
}

genericserver::HandlerPtr Serve(std::string body, std::string content_type) {
  return genericserver::MakeHandler(
      [body = std::move(body), content_type = std::move(content_type)](
          genericserver::RequestContext&, genericserver::ResponseWriter& out) -> Awaitable<void> {
        genericserver::Response r;
        r.headers.Set("Content-Type", content_type);
        r.headers.Set("Cache-Control", "public, max-age=3600");
        r.body = body;
        co_await out.Respond(std::move(r));
      });
}

}  // namespace

std::expected<void, std::string> InstallIssuerDiscovery(genericserver::GenericAPIServer& server,
                                                        const IssuerDiscovery& d) {
  if (!IsIssuerURL(d.issuer)) {
    return std::unexpected("issuer URL must use https scheme without query or fragment, got: " +
                           d.issuer);
  }
  std::string jwks_uri = d.jwks_uri;
  if (jwks_uri.empty()) jwks_uri = "https://" + d.external_address + "/openid/v1/jwks";
  if (!jwks_uri.starts_with("https://")) {
    return std::unexpected("jwksURI requires https scheme, parsed as: " + jwks_uri);
  }
  ordered_json keys = ordered_json::array();
  std::set<std::string> algorithms;
  for (const std::string& pem : d.public_keys) {
    for (authn::jws::Pkey& key : authn::jws::ReadPublicKeys(pem)) {
      auto kid = authn::jws::KeyID(key.get());
      auto alg = authn::jws::SigningAlgorithm(key.get());
      auto jwk = authn::jws::JWKOf(key.get());
      if (!kid || !alg || !jwk) continue;
      // go-jose's member order.
      ordered_json k = {{"use", "sig"}, {"kty", jwk->kty}, {"kid", *kid}};
      if (!jwk->crv.empty()) k["crv"] = jwk->crv;
      k["alg"] = *alg;
      if (jwk->kty == "EC") {
        k["x"] = jwk->x;
        k["y"] = jwk->y;
      } else {
        k["n"] = jwk->n;
        k["e"] = jwk->e;
      }
      keys.push_back(std::move(k));
      algorithms.insert(*alg);
    }
  }
  if (keys.empty()) return std::unexpected("no keys provided for validating keyset");
  const ordered_json config = {{"issuer", d.issuer},
                               {"jwks_uri", jwks_uri},
                               {"response_types_supported", {"id_token"}},
                               {"subject_types_supported", {"public"}},
                               {"id_token_signing_alg_values_supported", algorithms}};
  server.Mux().Handle("/.well-known/openid-configuration",
                      Serve(config.dump(), "application/json"));
  server.Mux().Handle("/openid/v1/jwks",
                      Serve(ordered_json{{"keys", keys}}.dump(), "application/jwk-set+json"));
  return {};
}

}  // namespace master
