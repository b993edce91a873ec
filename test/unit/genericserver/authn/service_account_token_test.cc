// Service-account tokens: signing and verifying with RSA and EC keys, upstream's claims and
// user, and every way a token can be refused (expired, early, foreign, tampered, garbage).
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <catch2/catch.hpp>

#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "pkg/genericserver/authn/service_account_token.h"
#include "pkg/genericserver/authn/token_file.h"
#include "pkg/genericserver/authn/union.h"
#include "pkg/util/base64.h"

using nlohmann::json;

namespace {

using Clock = std::chrono::system_clock;

constexpr char kIssuer[] = "https://issuer.example";
constexpr char kAudience[] = "https://api.example";
constexpr char kCryptoFailure[] = "go-jose/go-jose: error in cryptographic primitive";

struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
struct BioFree {
  void operator()(BIO* bio) const { BIO_free_all(bio); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(len));
}

// PKCS#8 ("PRIVATE KEY"), or PKCS#1 / SEC 1 ("RSA PRIVATE KEY" / "EC PRIVATE KEY").
std::string PrivatePem(EVP_PKEY* key, bool traditional = false) {
  Bio bio(BIO_new(BIO_s_mem()));
  int ok = traditional
               ? PEM_write_bio_PrivateKey_traditional(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                                      nullptr)
               : PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  REQUIRE(ok == 1);
  return BioText(bio.get());
}

Key ReadKey(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

// Generated once: RSA 2048 takes a moment.
const std::string& RsaKey() {
  static const std::string pem = [] {
    Key key(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048}));
    REQUIRE(key);
    return PrivatePem(key.get());
  }();
  return pem;
}

std::string NewEcKey(const char* curve = "P-256") {
  Key key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve));
  REQUIRE(key);
  return PrivatePem(key.get());
}

const std::string& EcKey() {
  static const std::string pem = NewEcKey();
  return pem;
}

std::string PublicPem(const std::string& private_pem) {
  auto pub = authn::PublicKeyOf(private_pem);
  REQUIRE(pub);
  return *pub;
}

// The key ID as upstream derives it, computed here independently.
std::string KeyIDOf(const std::string& private_pem) {
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

Clock::time_point Now() { return std::chrono::time_point_cast<std::chrono::seconds>(Clock::now()); }

authn::ServiceAccountClaims PodClaims() {
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

std::string SignOrFail(const authn::ServiceAccountClaims& claims, const std::string& key) {
  auto token = authn::SignServiceAccountToken(claims, key);
  INFO((token ? std::string() : token.error()));
  REQUIRE(token);
  return *token;
}

authn::AuthenticatorPtr Authenticator(std::vector<std::string> keys,
                                      std::vector<std::string> audiences = {kAudience}) {
  return authn::NewServiceAccountTokenAuthenticator(std::move(keys), {kIssuer},
                                                    std::move(audiences));
}

authn::AuthenticateResult Authenticate(const authn::AuthenticatorPtr& a, const std::string& token) {
  genericserver::Request r = genericserver::Request::FromTarget("GET", "/api");
  r.headers.Add("Authorization", "Bearer " + token);
  return a->Authenticate(r);
}

// A user, or the reason why not in the test's output.
bool Accepted(const authn::AuthenticateResult& r) {
  if (!r) UNSCOPED_INFO("error: " << r.error());
  return r.has_value() && r->has_value();
}

// The token is not this authenticator's business (another one may know it).
bool Ignored(const authn::AuthenticateResult& r) { return r.has_value() && !r->has_value(); }

std::string Error(const authn::AuthenticateResult& r) {
  REQUIRE_FALSE(r.has_value());
  return r.error();
}

std::vector<std::string> Parts(const std::string& token) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = token.find('.', start)) != std::string::npos; start = dot + 1) {
    parts.push_back(token.substr(start, dot - start));
  }
  parts.push_back(token.substr(start));
  return parts;
}

json DecodePart(const std::string& part) {
  auto bytes = util::Base64Decode(part);
  REQUIRE(bytes);
  return json::parse(*bytes);
}

std::string EncodePart(const json& j) { return util::Base64RawURLEncode(j.dump()); }

// A JWS signed here, RS256 with an RSA key: for headers and payloads the module would never
// write.
std::string SignRS256(const std::string& key_pem, const json& header, const json& payload) {
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

json ValidPayload() {
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

}  // namespace

TEST_CASE("service account token: RSA round trip gives upstream's user", "[authn]") {
  const std::string token = SignOrFail(PodClaims(), RsaKey());
  auto result = Authenticate(Authenticator({PublicPem(RsaKey())}), token);
  REQUIRE(result);
  REQUIRE(*result);
  const authn::UserInfo& user = **result;
  CHECK(user.name == "system:serviceaccount:default:robot");
  CHECK(user.uid == "sa-uid-1");
  CHECK(user.groups ==
        std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:default"});
  CHECK(user.extra == std::map<std::string, std::vector<std::string>>{
                          {"authentication.kubernetes.io/credential-id",
                           {"JTI=4f9c2a1e-8d7b-4c3a-9e2f-1a2b3c4d5e6f"}},
                          {"authentication.kubernetes.io/pod-name", {"web-0"}},
                          {"authentication.kubernetes.io/pod-uid", {"pod-uid-1"}},
                      });

  // The header: RS256 and the key ID of the public key, nothing else.
  std::vector<std::string> parts = Parts(token);
  REQUIRE(parts.size() == 3);
  CHECK(DecodePart(parts[0]) == json{{"alg", "RS256"}, {"kid", KeyIDOf(RsaKey())}});
  CHECK(util::Base64Decode(parts[2])->size() == 256);
  // Unpadded base64url throughout.
  CHECK(token.find_first_of("=+/") == std::string::npos);
}

TEST_CASE("service account token: EC P-256 round trip, node-bound", "[authn]") {
  authn::ServiceAccountClaims claims = PodClaims();
  claims.bound_kind = "Node";
  claims.bound_name = "node-a";
  claims.bound_uid = "node-uid-1";
  const std::string token = SignOrFail(claims, EcKey());
  std::vector<std::string> parts = Parts(token);
  CHECK(DecodePart(parts[0]) == json{{"alg", "ES256"}, {"kid", KeyIDOf(EcKey())}});
  CHECK(util::Base64Decode(parts[2])->size() == 64);  // JOSE's r || s, not DER

  auto result = Authenticate(Authenticator({PublicPem(EcKey())}), token);
  REQUIRE(result);
  REQUIRE(*result);
  CHECK((*result)->name == "system:serviceaccount:default:robot");
  CHECK((*result)->extra == std::map<std::string, std::vector<std::string>>{
                                {"authentication.kubernetes.io/credential-id",
                                 {"JTI=4f9c2a1e-8d7b-4c3a-9e2f-1a2b3c4d5e6f"}},
                                {"authentication.kubernetes.io/node-name", {"node-a"}},
                                {"authentication.kubernetes.io/node-uid", {"node-uid-1"}},
                            });

  // Several signatures of the same claims all verify (ECDSA is randomized).
  for (int i = 0; i < 20; ++i) {
    CHECK(Accepted(Authenticate(Authenticator({PublicPem(EcKey())}), SignOrFail(claims, EcKey()))));
  }
  // Other curves sign with their own algorithm, as upstream.
  const std::string p384 = NewEcKey("P-384");
  const std::string t384 = SignOrFail(claims, p384);
  CHECK(DecodePart(Parts(t384)[0])["alg"] == "ES384");
  CHECK(Accepted(Authenticate(Authenticator({PublicPem(p384)}), t384)));
}

TEST_CASE("service account token: claims are exactly upstream's", "[authn]") {
  const authn::ServiceAccountClaims c = PodClaims();
  const json claims = DecodePart(Parts(SignOrFail(c, RsaKey()))[1]);
  const auto iat = std::chrono::floor<std::chrono::seconds>(c.issued_at.time_since_epoch()).count();
  CHECK(claims == json{
                      {"aud", {kAudience}},
                      {"exp", iat + 3600},
                      {"iat", iat},
                      {"iss", kIssuer},
                      {"jti", c.jti},
                      {"kubernetes.io",
                       {{"namespace", "default"},
                        {"pod", {{"name", "web-0"}, {"uid", "pod-uid-1"}}},
                        {"serviceaccount", {{"name", "robot"}, {"uid", "sa-uid-1"}}}}},
                      {"nbf", iat},
                      {"sub", "system:serviceaccount:default:robot"},
                  });
  // Keys in Go's (sorted) order, integers for the dates.
  const std::string raw = *util::Base64Decode(Parts(SignOrFail(c, RsaKey()))[1]);
  CHECK(raw.starts_with("{\"aud\":[\"https://api.example\"],\"exp\":"));

  // Unbound and secret-bound tokens; empty fields left out.
  authn::ServiceAccountClaims unbound = c;
  unbound.bound_kind.clear();
  unbound.jti.clear();
  unbound.audiences.clear();
  const json plain = DecodePart(Parts(SignOrFail(unbound, RsaKey()))[1]);
  CHECK_FALSE(plain.contains("jti"));
  CHECK_FALSE(plain.contains("aud"));
  CHECK(
      plain["kubernetes.io"] ==
      json{{"namespace", "default"}, {"serviceaccount", {{"name", "robot"}, {"uid", "sa-uid-1"}}}});

  authn::ServiceAccountClaims secret = c;
  secret.bound_kind = "Secret";
  secret.bound_name = "robot-token";
  secret.bound_uid = "secret-uid";
  const std::string secret_token = SignOrFail(secret, RsaKey());
  CHECK(DecodePart(Parts(secret_token)[1])["kubernetes.io"]["secret"] ==
        json{{"name", "robot-token"}, {"uid", "secret-uid"}});
  // A secret binding adds no extra but the credential ID.
  auto user = Authenticate(Authenticator({PublicPem(RsaKey())}), secret_token);
  REQUIRE(user);
  REQUIRE(*user);
  CHECK((*user)->extra.size() == 1);
  CHECK((*user)->extra.contains("authentication.kubernetes.io/credential-id"));
}

TEST_CASE("service account token: expiry and not-before with a minute of leeway", "[authn]") {
  auto auth = Authenticator({PublicPem(RsaKey())});
  authn::ServiceAccountClaims c = PodClaims();

  c.issued_at = Now() - std::chrono::hours(2);
  c.expires_at = Now() - std::chrono::hours(1);
  CHECK(Error(Authenticate(auth, SignOrFail(c, RsaKey()))) == "service account token has expired");
  c.expires_at = Now() - std::chrono::seconds(30);  // within the leeway
  CHECK(Accepted(Authenticate(auth, SignOrFail(c, RsaKey()))));

  c.issued_at = Now() + std::chrono::minutes(5);
  c.expires_at = Now() + std::chrono::hours(1);
  CHECK(Error(Authenticate(auth, SignOrFail(c, RsaKey()))) ==
        "service account token is not valid yet");
  c.issued_at = Now() + std::chrono::seconds(30);  // within the leeway
  CHECK(Accepted(Authenticate(auth, SignOrFail(c, RsaKey()))));

  // iat in the future on its own (nbf fine) is refused too.
  json payload = ValidPayload();
  payload["iat"] = payload["iat"].get<int64_t>() + 600;
  CHECK(Error(Authenticate(auth, SignRS256(RsaKey(), {{"alg", "RS256"}}, payload))) ==
        "service account token is issued in the future");
}

TEST_CASE("service account token: issuer and audience", "[authn]") {
  const std::string token = SignOrFail(PodClaims(), RsaKey());
  // Another issuer's token is left to the other authenticators.
  auto other_issuer = authn::NewServiceAccountTokenAuthenticator({PublicPem(RsaKey())},
                                                                 {"https://other"}, {kAudience});
  CHECK(Ignored(Authenticate(other_issuer, token)));
  // Several issuers may be accepted.
  auto both = authn::NewServiceAccountTokenAuthenticator({PublicPem(RsaKey())},
                                                         {"https://other", kIssuer}, {kAudience});
  CHECK(Accepted(Authenticate(both, token)));

  auto vault_only = Authenticator({PublicPem(RsaKey())}, {"vault", "https://x"});
  CHECK(Error(Authenticate(vault_only, token)) ==
        "token audiences [\"https://api.example\"] is invalid for the target audiences "
        "[\"vault\" \"https://x\"]");
  // One shared audience is enough; no configured audience accepts any.
  authn::ServiceAccountClaims c = PodClaims();
  c.audiences = {"vault", kAudience};
  CHECK(Accepted(Authenticate(Authenticator({PublicPem(RsaKey())}), SignOrFail(c, RsaKey()))));
  CHECK(Accepted(Authenticate(Authenticator({PublicPem(RsaKey())}, {}), token)));
  // A token without audiences (legacy) is taken to be for the server's own.
  c.audiences.clear();
  CHECK(Accepted(Authenticate(Authenticator({PublicPem(RsaKey())}), SignOrFail(c, RsaKey()))));
}

TEST_CASE("service account token: signatures", "[authn]") {
  const std::string token = SignOrFail(PodClaims(), RsaKey());
  std::vector<std::string> parts = Parts(token);
  auto auth = Authenticator({PublicPem(RsaKey())});

  // A changed payload no longer matches its signature.
  json payload = DecodePart(parts[1]);
  payload["kubernetes.io"]["serviceaccount"]["name"] = "admin";
  CHECK(Error(Authenticate(auth, parts[0] + "." + EncodePart(payload) + "." + parts[2])) ==
        kCryptoFailure);
  // A signature from another key: that key's ID is not known.
  const std::string other = NewEcKey();
  CHECK(Error(Authenticate(auth, SignOrFail(PodClaims(), other))) ==
        "invalid signature, no keys found");
  CHECK(Error(Authenticate(Authenticator({}), token)) == "invalid signature, no keys found");
  // Without a key ID every key is tried.
  auto two = Authenticator({PublicPem(EcKey()), PublicPem(RsaKey())});
  CHECK(Accepted(Authenticate(two, SignRS256(RsaKey(), {{"alg", "RS256"}}, ValidPayload()))));
  CHECK(Error(Authenticate(Authenticator({PublicPem(EcKey())}),
                           SignRS256(RsaKey(), {{"alg", "RS256"}}, ValidPayload()))) ==
        kCryptoFailure);

  // The header's algorithm is not trusted: none, HMAC, or ECDSA claimed for an RSA key.
  const std::string kid = KeyIDOf(RsaKey());
  for (const char* alg : {"none", "HS256", "ES256", "RS384", "PS256", ""}) {
    INFO(alg);
    std::string forged = EncodePart({{"alg", alg}, {"kid", kid}}) + "." + parts[1] + ".";
    CHECK(Error(Authenticate(auth, forged)) == kCryptoFailure);
    CHECK(Error(Authenticate(auth, EncodePart({{"alg", alg}, {"kid", kid}}) + "." + parts[1] + "." +
                                       parts[2])) == kCryptoFailure);
  }
  // An unsupported critical header extension fails verification.
  CHECK(Error(Authenticate(Authenticator({PublicPem(RsaKey())}),
                           SignRS256(RsaKey(), {{"alg", "RS256"}, {"crit", {"exp"}}},
                                     ValidPayload()))) == kCryptoFailure);
  // ES256 signatures of the wrong length or in DER form are refused.
  const std::string ec_token = SignOrFail(PodClaims(), EcKey());
  std::vector<std::string> ec_parts = Parts(ec_token);
  std::string sig = *util::Base64Decode(ec_parts[2]);
  auto ec_auth = Authenticator({PublicPem(EcKey())});
  CHECK(Error(Authenticate(ec_auth, ec_parts[0] + "." + ec_parts[1] + "." +
                                        util::Base64RawURLEncode(sig.substr(0, 63)))) ==
        kCryptoFailure);
  sig[40] ^= 1;
  CHECK(Error(Authenticate(ec_auth, ec_parts[0] + "." + ec_parts[1] + "." +
                                        util::Base64RawURLEncode(sig))) == kCryptoFailure);
}

TEST_CASE("service account token: keys as PEM public keys, private keys and bundles", "[authn]") {
  const std::string token = SignOrFail(PodClaims(), RsaKey());
  const std::string ec_token = SignOrFail(PodClaims(), EcKey());
  CHECK(PublicPem(RsaKey()).starts_with("-----BEGIN PUBLIC KEY-----\n"));
  // The private key itself (PKCS#8 or PKCS#1) stands for its public half.
  CHECK(Accepted(Authenticate(Authenticator({RsaKey()}), token)));
  Key rsa = ReadKey(RsaKey());
  CHECK(Accepted(Authenticate(Authenticator({PrivatePem(rsa.get(), true)}), token)));
  // One string with several blocks, non-key blocks skipped; and a rubbish string.
  Key ec = ReadKey(EcKey());
  Bio params(BIO_new(BIO_s_mem()));
  REQUIRE(PEM_write_bio_Parameters(params.get(), ec.get()) == 1);
  const std::string bundle =
      BioText(params.get()) + PrivatePem(ec.get(), true) + PublicPem(RsaKey());
  CHECK(bundle.starts_with("-----BEGIN EC PARAMETERS-----"));
  auto both = Authenticator({"not a key", bundle});
  CHECK(Accepted(Authenticate(both, token)));
  CHECK(Accepted(Authenticate(both, ec_token)));
  // openssl ecparam -genkey's layout signs too.
  const std::string with_params = BioText(params.get()) + PrivatePem(ec.get(), true);
  CHECK(Accepted(Authenticate(both, SignOrFail(PodClaims(), with_params))));

  // A certificate stands for its public key.
  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_NAME_add_entry_by_txt(X509_get_subject_name(cert.get()), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("sa-signer"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()));
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
  X509_set_pubkey(cert.get(), rsa.get());
  REQUIRE(X509_sign(cert.get(), rsa.get(), EVP_sha256()) > 0);
  Bio cert_pem(BIO_new(BIO_s_mem()));
  REQUIRE(PEM_write_bio_X509(cert_pem.get(), cert.get()) == 1);
  CHECK(Accepted(Authenticate(Authenticator({BioText(cert_pem.get())}), token)));

  // A public key written with a compressed point still has upstream's key ID.
  Key compressed(EVP_PKEY_dup(ec.get()));
  REQUIRE(EVP_PKEY_set_utf8_string_param(compressed.get(), "point-format", "compressed") == 1);
  Bio pub(BIO_new(BIO_s_mem()));
  REQUIRE(PEM_write_bio_PUBKEY(pub.get(), compressed.get()) == 1);
  const std::string compressed_pem = BioText(pub.get());
  CHECK(compressed_pem != PublicPem(EcKey()));
  CHECK(Accepted(Authenticate(Authenticator({compressed_pem}), ec_token)));
}

TEST_CASE("service account token: signing errors", "[authn]") {
  CHECK_FALSE(authn::SignServiceAccountToken(PodClaims(), "garbage"));
  CHECK_FALSE(authn::SignServiceAccountToken(PodClaims(), PublicPem(RsaKey())));
  CHECK_FALSE(authn::PublicKeyOf("garbage"));
  Key ed(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  REQUIRE(ed);
  auto ed_token = authn::SignServiceAccountToken(PodClaims(), PrivatePem(ed.get()));
  REQUIRE_FALSE(ed_token);
  CHECK(ed_token.error() == "unknown private key type ED25519, must be RSA or ECDSA");
  authn::ServiceAccountClaims c = PodClaims();
  c.bound_kind = "Deployment";
  CHECK_FALSE(authn::SignServiceAccountToken(c, RsaKey()));
  c = PodClaims();
  c.name.clear();
  CHECK_FALSE(authn::SignServiceAccountToken(c, RsaKey()));
  // An encrypted key is refused, not prompted for.
  Key rsa = ReadKey(RsaKey());
  Bio enc(BIO_new(BIO_s_mem()));
  char pass[] = "secret";
  REQUIRE(PEM_write_bio_PKCS8PrivateKey(enc.get(), rsa.get(), EVP_aes_128_cbc(), pass, 6, nullptr,
                                        nullptr) == 1);
  CHECK_FALSE(authn::SignServiceAccountToken(PodClaims(), BioText(enc.get())));
}

TEST_CASE("service account token: claims of the wrong shape", "[authn]") {
  auto auth = Authenticator({PublicPem(RsaKey())});
  auto sign = [](const json& payload) { return SignRS256(RsaKey(), {{"alg", "RS256"}}, payload); };
  CHECK(Accepted(Authenticate(auth, sign(ValidPayload()))));

  for (const char* field : {"sub", "jti", "exp", "aud"}) {
    INFO(field);
    json payload = ValidPayload();
    payload[field] = json::object();
    CHECK_FALSE(Authenticate(auth, sign(payload)));
  }
  json payload = ValidPayload();
  payload["aud"] = {kAudience, 7};
  CHECK_FALSE(Authenticate(auth, sign(payload)));
  payload = ValidPayload();
  payload["exp"] = 1e300;
  CHECK_FALSE(Authenticate(auth, sign(payload)));
  payload = ValidPayload();
  payload["kubernetes.io"] = "default";
  CHECK_FALSE(Authenticate(auth, sign(payload)));
  payload = ValidPayload();
  payload["kubernetes.io"]["pod"] = {{"name", 5}};
  CHECK_FALSE(Authenticate(auth, sign(payload)));
  payload = ValidPayload();
  payload.erase("kubernetes.io");
  CHECK(Error(Authenticate(auth, sign(payload))) ==
        "service account token does not name its namespace and service account");

  // Single-string audience, fractional dates, nulls and unknown fields are all fine.
  payload = ValidPayload();
  payload["aud"] = kAudience;
  payload["exp"] = payload["exp"].get<double>() + 0.5;
  payload["jti"] = nullptr;
  payload["kubernetes.io"]["warnafter"] = payload["iat"];
  payload["kubernetes.io"]["pod"] = {{"name", "web-0"}};  // no uid: no pod extras
  payload["extra"] = {1, 2, 3};
  auto user = Authenticate(auth, sign(payload));
  REQUIRE(user);
  REQUIRE(*user);
  CHECK((*user)->extra.empty());
  // A pod-bound token carrying its node (what kubelet gets) has both.
  payload = ValidPayload();
  payload["jti"] = "j1";
  payload["kubernetes.io"]["pod"] = {{"name", "web-0"}, {"uid", "p1"}};
  payload["kubernetes.io"]["node"] = {{"name", "node-a"}};
  user = Authenticate(auth, sign(payload));
  REQUIRE(user);
  REQUIRE(*user);
  CHECK((*user)->extra == std::map<std::string, std::vector<std::string>>{
                              {"authentication.kubernetes.io/credential-id", {"JTI=j1"}},
                              {"authentication.kubernetes.io/node-name", {"node-a"}},
                              {"authentication.kubernetes.io/pod-name", {"web-0"}},
                              {"authentication.kubernetes.io/pod-uid", {"p1"}},
                          });
}

TEST_CASE("service account token: garbage and opaque tokens are not its business", "[authn]") {
  auto auth = Authenticator({PublicPem(RsaKey()), PublicPem(EcKey())});
  const std::string token = SignOrFail(PodClaims(), RsaKey());
  std::vector<std::string> parts = Parts(token);
  const std::string good_payload = parts[1];
  const std::vector<std::string> ignored = {
      "31ada4fd-adec-460c-809a-9e56ceb75269",  // a token-file token
      "abc",
      ".",
      "..",
      "...",
      "a.b.c",
      "a.b.c.d",
      "{\"payload\":\"x\"}",
      token + ".",
      "x." + token,
      parts[0] + "." + parts[1],
      parts[0] + "." + parts[1] + "=" + "." + parts[2],            // padded payload
      parts[0] + "." + parts[1] + "!" + "." + parts[2],            // not base64url
      "%%%." + good_payload + "." + parts[2],                      // header not base64url
      EncodePart("header") + "." + good_payload + "." + parts[2],  // header not an object
      util::Base64RawURLEncode("{") + "." + good_payload + "." + parts[2],
      EncodePart({{"alg", "RS256"}, {"kid", 5}}) + "." + good_payload + "." + parts[2],
      parts[0] + "." + good_payload + ".***",  // signature not base64url
      parts[0] + "." + util::Base64RawURLEncode("not json") + "." + parts[2],
      parts[0] + "." + EncodePart({1, 2}) + "." + parts[2],          // payload not an object
      parts[0] + "." + EncodePart({{"iss", 5}}) + "." + parts[2],    // iss not a string
      parts[0] + "." + EncodePart({{"sub", "x"}}) + "." + parts[2],  // no issuer
      parts[0] + "." + util::Base64RawURLEncode("\xff\xfe") + "." + parts[2],
  };
  for (const std::string& t : ignored) {
    INFO(t);
    CHECK(Ignored(Authenticate(auth, t)));
  }
  // No Authorization header, or another scheme.
  genericserver::Request r = genericserver::Request::FromTarget("GET", "/api");
  CHECK(Ignored(auth->Authenticate(r)));
  r.headers.Add("Authorization", "Basic " + token);
  CHECK(Ignored(auth->Authenticate(r)));

  // Random damage never crashes and never yields another user.
  std::mt19937 rng(12345);
  const std::string alphabet = "ABCxyz019-_.={}\"\\ \x01\xff";
  for (int i = 0; i < 2000; ++i) {
    std::string t = token;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0:
          t[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          t.erase(at, 1 + rng() % 8);
          break;
        default:
          t.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
      if (t.empty()) t = "x";
    }
    auto result = Authenticate(auth, t);
    if (result && *result) CHECK((*result)->name == "system:serviceaccount:default:robot");
  }
}

TEST_CASE("service account token: alongside a token file in a union", "[authn]") {
  auto file = authn::TokenFileAuthenticator::Parse("opaque-token,alice,uid-a\n", "tokens.csv");
  REQUIRE(file);
  auto chain = authn::NewUnionAuthenticator({Authenticator({PublicPem(RsaKey())}), *file}, false);
  auto alice = Authenticate(chain, "opaque-token");
  REQUIRE(alice);
  REQUIRE(*alice);
  CHECK((*alice)->name == "alice");
  auto robot = Authenticate(chain, SignOrFail(PodClaims(), RsaKey()));
  REQUIRE(robot);
  REQUIRE(*robot);
  CHECK((*robot)->name == "system:serviceaccount:default:robot");
  CHECK((*robot)->InGroup("system:authenticated"));
}
