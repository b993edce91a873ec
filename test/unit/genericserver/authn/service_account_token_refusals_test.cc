// Service-account tokens refused or ignored: bad signatures and keys, signing errors, claims
// of the wrong shape, garbage and opaque tokens; and the authenticator in a union.
#include <catch2/catch.hpp>

#include <random>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/service_account_token.h"
#include "pkg/genericserver/authn/token_file.h"
#include "pkg/genericserver/authn/union.h"
#include "test/unit/genericserver/authn/service_account_token_support.h"

using namespace testing::sa_tokens;

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
      util::openssl::BioString(params.get()) + PrivatePem(ec.get(), true) + PublicPem(RsaKey());
  CHECK(bundle.starts_with("-----BEGIN EC PARAMETERS-----"));
  auto both = Authenticator({"not a key", bundle});
  CHECK(Accepted(Authenticate(both, token)));
  CHECK(Accepted(Authenticate(both, ec_token)));
  // openssl ecparam -genkey's layout signs too.
  const std::string with_params =
      util::openssl::BioString(params.get()) + PrivatePem(ec.get(), true);
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
  CHECK(Accepted(Authenticate(Authenticator({util::openssl::BioString(cert_pem.get())}), token)));

  // A public key written with a compressed point still has upstream's key ID.
  Key compressed(EVP_PKEY_dup(ec.get()));
  REQUIRE(EVP_PKEY_set_utf8_string_param(compressed.get(), "point-format", "compressed") == 1);
  Bio pub(BIO_new(BIO_s_mem()));
  REQUIRE(PEM_write_bio_PUBKEY(pub.get(), compressed.get()) == 1);
  const std::string compressed_pem = util::openssl::BioString(pub.get());
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
  CHECK_FALSE(authn::SignServiceAccountToken(PodClaims(), util::openssl::BioString(enc.get())));
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
