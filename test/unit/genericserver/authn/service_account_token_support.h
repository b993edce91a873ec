#pragma once
// What the service-account token tests share: keys made for the test, signing, an
// authenticator of the test issuer and audience, and the parts of a compact token.

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/service_account_token.h"
#include "pkg/util/base64.h"
#include "pkg/util/openssl.h"

namespace testing::sa_tokens {

using nlohmann::json;

using Clock = std::chrono::system_clock;

constexpr char kIssuer[] = "https://issuer.example";
constexpr char kAudience[] = "https://api.example";
constexpr char kCryptoFailure[] = "go-jose/go-jose: error in cryptographic primitive";

using Key = util::openssl::Pkey;
using Bio = util::openssl::Bio;

// PKCS#8 ("PRIVATE KEY"), or PKCS#1 / SEC 1 ("RSA PRIVATE KEY" / "EC PRIVATE KEY").
inline std::string PrivatePem(EVP_PKEY* key, bool traditional = false) {
  Bio bio(BIO_new(BIO_s_mem()));
  int ok = traditional
               ? PEM_write_bio_PrivateKey_traditional(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                                      nullptr)
               : PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  REQUIRE(ok == 1);
  return util::openssl::BioString(bio.get());
}

inline Key ReadKey(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

// Generated once: RSA 2048 takes a moment.
inline const std::string& RsaKey() {
  static const std::string pem = [] {
    Key key(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048}));
    REQUIRE(key);
    return PrivatePem(key.get());
  }();
  return pem;
}

inline std::string NewEcKey(const char* curve = "P-256") {
  Key key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve));
  REQUIRE(key);
  return PrivatePem(key.get());
}

inline const std::string& EcKey() {
  static const std::string pem = NewEcKey();
  return pem;
}

inline std::string PublicPem(const std::string& private_pem) {
  auto pub = authn::PublicKeyOf(private_pem);
  REQUIRE(pub);
  return *pub;
}

// The key ID as upstream derives it, computed here independently.
inline std::string KeyIDOf(const std::string& private_pem) {
  Key key = ReadKey(private_pem);
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(key.get(), &der);
  REQUIRE(len > 0);
  unsigned char digest[32];
  unsigned int size = 0;
  EVP_Digest(der, static_cast<size_t>(len), digest, &size, EVP_sha256(), nullptr);
  OPENSSL_free(der);
  return util::Base64RawURLEncode(std::string_view(reinterpret_cast<char*>(digest), size));
}

inline Clock::time_point Now() {
  return std::chrono::time_point_cast<std::chrono::seconds>(Clock::now());
}

inline authn::ServiceAccountClaims PodClaims() {
  authn::ServiceAccountClaims c;
  c.issuer = kIssuer;
  c.audiences = {kAudience};
  c.ns = "default";
  c.name = "robot";
  c.uid = "sa-uid-1";
  c.issued_at = Now();
  c.expires_at = c.issued_at + std::chrono::hours(1);
  c.jti = "4f9c2a1e-8d7b-4c3a-9e2f-1a2b3c4d5e6f";
  c.bound_kind = "Pod";
  c.bound_name = "web-0";
  c.bound_uid = "pod-uid-1";
  return c;
}

inline std::string SignOrFail(const authn::ServiceAccountClaims& claims, const std::string& key) {
  auto token = authn::SignServiceAccountToken(claims, key);
  INFO((token ? std::string() : token.error()));
  REQUIRE(token);
  return *token;
}

inline authn::AuthenticatorPtr Authenticator(std::vector<std::string> keys,
                                             std::vector<std::string> audiences = {kAudience}) {
  return authn::NewServiceAccountTokenAuthenticator(std::move(keys), {kIssuer},
                                                    std::move(audiences));
}

inline authn::AuthenticateResult Authenticate(const authn::AuthenticatorPtr& a,
                                              const std::string& token) {
  genericserver::Request r = genericserver::Request::FromTarget("GET", "/api");
  r.headers.Add("Authorization", "Bearer " + token);
  return a->Authenticate(r);
}

// A user, or the reason why not in the test's output.
inline bool Accepted(const authn::AuthenticateResult& r) {
  if (!r) UNSCOPED_INFO("error: " << r.error());
  return r.has_value() && r->has_value();
}

// The token is not this authenticator's business (another one may know it).
inline bool Ignored(const authn::AuthenticateResult& r) { return r.has_value() && !r->has_value(); }

inline std::string Error(const authn::AuthenticateResult& r) {
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

inline std::vector<std::string> Parts(const std::string& token) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = token.find('.', start)) != std::string::npos; start = dot + 1) {
    parts.push_back(token.substr(start, dot - start));
  }
  parts.push_back(token.substr(start));
  return parts;
}

inline json DecodePart(const std::string& part) {
  auto bytes = util::Base64Decode(part);
  REQUIRE(bytes);
  return json::parse(*bytes);
}

inline std::string EncodePart(const json& j) { return util::Base64RawURLEncode(j.dump()); }

// A JWS signed here, RS256 with an RSA key: for headers and payloads the module would never
// write.
inline std::string SignRS256(const std::string& key_pem, const json& header, const json& payload) {
  std::string input = EncodePart(header) + "." + EncodePart(payload);
  Key key = ReadKey(key_pem);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t len = 0;
  REQUIRE(EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1);
  auto data = reinterpret_cast<const unsigned char*>(input.data());
  REQUIRE(EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size()) == 1);
  std::string sig(len, '\0');
  REQUIRE(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data,
                         input.size()) == 1);
  sig.resize(len);
  return input + "." + util::Base64RawURLEncode(sig);
}

inline json ValidPayload() {
  auto now = std::chrono::floor<std::chrono::seconds>(Clock::now().time_since_epoch()).count();
  return {
      {"aud", {kAudience}},
      {"exp", now + 3600},
      {"iat", now},
      {"nbf", now},
      {"iss", kIssuer},
      {"sub", "system:serviceaccount:default:robot"},
      {"kubernetes.io",
       {{"namespace", "default"}, {"serviceaccount", {{"name", "robot"}, {"uid", "sa-uid-1"}}}}}};
}

}  // namespace testing::sa_tokens
