#include "pkg/genericserver/authn/service_account_token.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "pkg/genericserver/authn/token_file.h"
#include "pkg/util/base64.h"
#include "pkg/util/log.h"
#include "pkg/util/openssl.h"
#include "pkg/util/strings.h"

namespace authn {
namespace {

using nlohmann::json;

// Names and extra keys of service-account users (k8s.io/apiserver's serviceaccount package).
constexpr char kUsernamePrefix[] = "system:serviceaccount:";
constexpr char kAllServiceAccountsGroup[] = "system:serviceaccounts";
constexpr char kNamespaceGroupPrefix[] = "system:serviceaccounts:";
constexpr char kCredentialIDKey[] = "authentication.kubernetes.io/credential-id";
constexpr char kPodNameKey[] = "authentication.kubernetes.io/pod-name";
constexpr char kPodUIDKey[] = "authentication.kubernetes.io/pod-uid";
constexpr char kNodeNameKey[] = "authentication.kubernetes.io/node-name";
constexpr char kNodeUIDKey[] = "authentication.kubernetes.io/node-uid";

// The clock skew tolerated on exp, nbf and iat (go-jose's jwt.DefaultLeeway, which
// upstream's validator uses).
constexpr int64_t kLeewaySeconds = 60;
// NumericDates beyond this many seconds are refused rather than overflowing.
constexpr double kMaxNumericDate = 4611686018427387904.0;  // 2^62

// Upstream verifies with go-jose, which reports every failed verification (bad signature,
// an algorithm the key cannot do, a malformed signature) as this one error.
constexpr char kCryptoFailure[] = "go-jose/go-jose: error in cryptographic primitive";

// ---- OpenSSL plumbing ----

using util::openssl::Bignum;
using util::openssl::Bio;
using util::openssl::Cert;
using util::openssl::EcdsaSig;
using util::openssl::MdCtx;
using util::openssl::MemoryBio;
using util::openssl::Pkey;
constexpr auto OpenSSLError = util::openssl::Error;

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// Encrypted PEM keys are not supported: answer OpenSSL's passphrase prompt with a refusal
// instead of letting it read the terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

bool IsRSA(EVP_PKEY* key) { return EVP_PKEY_is_a(key, "RSA") == 1; }
bool IsEC(EVP_PKEY* key) { return EVP_PKEY_is_a(key, "EC") == 1; }

// The first private key in PEM data, which must be RSA or EC (what upstream can sign with).
std::expected<Pkey, std::string> ReadPrivateKey(std::string_view pem) {
  Bio bio = MemoryBio(pem);
  if (!bio) return std::unexpected(OpenSSLError("reading the private key"));
  Pkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!key) return std::unexpected(OpenSSLError("data does not contain a valid RSA or ECDSA key"));
  if (!IsRSA(key.get()) && !IsEC(key.get())) {
    return std::unexpected(std::string("unknown private key type ") +
                           EVP_PKEY_get0_type_name(key.get()) + ", must be RSA or ECDSA");
  }
  return key;
}

// The key ID upstream puts in "kid": the unpadded base64url SHA-256 of the DER
// SubjectPublicKeyInfo (what Go's x509.MarshalPKIXPublicKey writes).
std::expected<std::string, std::string> KeyID(EVP_PKEY* key) {
  // Go always writes EC points uncompressed; so must the DER hashed here.
  if (IsEC(key)) {
    EVP_PKEY_set_utf8_string_param(key, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT,
                                   OSSL_PKEY_EC_POINT_CONVERSION_FORMAT_UNCOMPRESSED);
    ERR_clear_error();
  }
  int len = i2d_PUBKEY(key, nullptr);
  if (len <= 0)
    return std::unexpected(OpenSSLError("failed to serialize public key to DER format"));
  std::string der(static_cast<size_t>(len), '\0');
  unsigned char* out = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_PUBKEY(key, &out) != len) {
    return std::unexpected(OpenSSLError("failed to serialize public key to DER format"));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(der.data(), der.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    return std::unexpected(OpenSSLError("hashing the public key"));
  }
  return util::Base64RawURLEncode(std::string_view(reinterpret_cast<char*>(digest), size));
}

// ---- JWS algorithms ----

struct Algorithm {
  enum Family { kPKCS1, kPSS, kECDSA } family;
  const EVP_MD* digest;
  size_t ec_size;  // bytes of each of r and s in an ECDSA signature
};

// The JWS algorithms go-jose verifies with RSA and EC keys.
std::optional<Algorithm> ParseAlgorithm(std::string_view alg) {
  if (alg.size() != 5) return std::nullopt;
  std::string_view family = alg.substr(0, 2), bits = alg.substr(2);
  const EVP_MD* digest = bits == "256"   ? EVP_sha256()
                         : bits == "384" ? EVP_sha384()
                         : bits == "512" ? EVP_sha512()
                                         : nullptr;
  if (!digest) return std::nullopt;
  if (family == "RS") return Algorithm{Algorithm::kPKCS1, digest, 0};
  if (family == "PS") return Algorithm{Algorithm::kPSS, digest, 0};
  if (family == "ES") {
    size_t size = bits == "256" ? 32 : bits == "384" ? 48 : 66;
    return Algorithm{Algorithm::kECDSA, digest, size};
  }
  return std::nullopt;
}

// What upstream signs with: RS256 for any RSA key, ESxxx by the curve of an EC key.
std::expected<std::string, std::string> SigningAlgorithm(EVP_PKEY* key) {
  if (IsRSA(key)) return "RS256";
  char group[80] = {};
  size_t len = 0;
  if (EVP_PKEY_get_group_name(key, group, sizeof group, &len) == 1) {
    int nid = OBJ_sn2nid(group);
    if (nid == NID_undef) nid = EC_curve_nist2nid(group);
    if (nid == NID_X9_62_prime256v1) return "ES256";
    if (nid == NID_secp384r1) return "ES384";
    if (nid == NID_secp521r1) return "ES512";
  }
  ERR_clear_error();
  return std::unexpected("unknown private key curve, must be 256, 384, or 521");
}

// JOSE writes an ECDSA signature as r and s, big-endian and zero-padded to the curve
// size, back to back; OpenSSL reads and writes the DER SEQUENCE of two INTEGERs.
std::optional<std::string> DerToJose(std::string_view der, size_t size) {
  const unsigned char* p = Bytes(der);
  EcdsaSig sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
  if (!sig) return std::nullopt;
  const BIGNUM *r = nullptr, *s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  std::string out(2 * size, '\0');
  unsigned char* o = reinterpret_cast<unsigned char*>(out.data());
  if (BN_bn2binpad(r, o, static_cast<int>(size)) < 0 ||
      BN_bn2binpad(s, o + size, static_cast<int>(size)) < 0) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> JoseToDer(std::string_view raw) {
  size_t size = raw.size() / 2;
  Bignum r(BN_bin2bn(Bytes(raw), static_cast<int>(size), nullptr));
  Bignum s(BN_bin2bn(Bytes(raw) + size, static_cast<int>(size), nullptr));
  EcdsaSig sig(ECDSA_SIG_new());
  if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return std::nullopt;
  r.release();  // owned by sig now
  s.release();
  int len = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (len <= 0) return std::nullopt;
  std::string der(static_cast<size_t>(len), '\0');
  unsigned char* out = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_ECDSA_SIG(sig.get(), &out) != len) return std::nullopt;
  return der;
}

std::expected<std::string, std::string> Sign(EVP_PKEY* key, const Algorithm& alg,
                                             std::string_view input) {
  MdCtx ctx(EVP_MD_CTX_new());
  size_t len = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, alg.digest, nullptr, key) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, Bytes(input), input.size()) != 1) {
    return std::unexpected(OpenSSLError("signing the token"));
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, Bytes(input),
                     input.size()) != 1) {
    return std::unexpected(OpenSSLError("signing the token"));
  }
  sig.resize(len);
  if (alg.family != Algorithm::kECDSA) return sig;
  std::optional<std::string> raw = DerToJose(sig, alg.ec_size);
  if (!raw) return std::unexpected(OpenSSLError("encoding the ECDSA signature"));
  return *raw;
}

// Whether `sig` is a valid `alg_name` signature of `input` by `key`. An algorithm the key
// cannot verify (HS256 or "none" with any key, ES256 with an RSA key) is simply invalid.
bool Verify(EVP_PKEY* key, std::string_view alg_name, std::string_view input,
            std::string_view sig) {
  std::optional<Algorithm> alg = ParseAlgorithm(alg_name);
  if (!alg) return false;
  bool ec = alg->family == Algorithm::kECDSA;
  if (ec ? !IsEC(key) : !IsRSA(key)) return false;
  std::string der;
  if (ec) {
    if (sig.size() != 2 * alg->ec_size) return false;
    std::optional<std::string> converted = JoseToDer(sig);
    if (!converted) {
      ERR_clear_error();
      return false;
    }
    der = std::move(*converted);
    sig = der;
  }
  MdCtx ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  bool ok = ctx && EVP_DigestVerifyInit(ctx.get(), &pctx, alg->digest, nullptr, key) == 1;
  if (ok && alg->family == Algorithm::kPSS) {
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) == 1;
  }
  ok = ok && EVP_DigestVerify(ctx.get(), Bytes(sig), sig.size(), Bytes(input), input.size()) == 1;
  ERR_clear_error();
  return ok;
}

// ---- Compact serialization ----

// Base64url without padding, as Go's base64.RawURLEncoding decodes it.
std::optional<std::string> DecodeSegment(std::string_view s) {
  if (s.size() % 4 == 1) return std::nullopt;
  for (char c : s) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_';
    if (!ok) return std::nullopt;
  }
  return util::Base64Decode(s);
}

// go-jose tolerates '=' padding on the header and signature segments.
std::optional<std::string> DecodePaddedSegment(std::string_view s) {
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  return DecodeSegment(s);
}

std::string Serialize(const json& j) {
  // Invalid UTF-8 becomes U+FFFD, as Go's encoder writes it, instead of throwing.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A compact JWS with the parts the authenticator needs, not yet verified.
struct ParsedToken {
  std::string_view signing_input;  // "<header>.<payload>" as sent
  std::string alg, kid;
  bool critical = false;  // a "crit" header: go-jose supports no critical extension
  json claims;            // the payload, an object
  std::string signature;
};

// Reads a token the way upstream's authenticator first looks at it: std::nullopt unless it
// is three base64url parts whose payload is a JSON object with an "iss" string in
// `issuers` and whose header is a JSON object.
std::optional<ParsedToken> ParseToken(std::string_view token,
                                      const std::set<std::string>& issuers) {
  if (util::TrimSpace(token).starts_with('{')) return std::nullopt;  // JSON serialization
  size_t dot1 = token.find('.');
  if (dot1 == std::string_view::npos) return std::nullopt;
  size_t dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  ParsedToken parsed;
  parsed.signing_input = token.substr(0, dot2);

  std::optional<std::string> payload = DecodeSegment(token.substr(dot1 + 1, dot2 - dot1 - 1));
  if (!payload) return std::nullopt;
  parsed.claims = json::parse(*payload, nullptr, false);
  if (!parsed.claims.is_object()) return std::nullopt;
  std::string iss;
  if (auto it = parsed.claims.find("iss"); it != parsed.claims.end() && !it->is_null()) {
    if (!it->is_string()) return std::nullopt;
    iss = it->get<std::string>();
  }
  if (!issuers.contains(iss)) return std::nullopt;

  std::optional<std::string> header = DecodePaddedSegment(token.substr(0, dot1));
  if (!header) return std::nullopt;
  json h = json::parse(*header, nullptr, false);
  if (!h.is_object()) return std::nullopt;
  if (auto it = h.find("alg"); it != h.end() && it->is_string())
    parsed.alg = it->get<std::string>();
  if (auto it = h.find("kid"); it != h.end() && !it->is_null()) {
    if (!it->is_string()) return std::nullopt;
    parsed.kid = it->get<std::string>();
  }
  if (auto it = h.find("crit"); it != h.end() && !it->is_null()) {
    if (!it->is_array()) return std::nullopt;
    parsed.critical = !it->empty();
  }

  std::optional<std::string> signature = DecodePaddedSegment(token.substr(dot2 + 1));
  if (!signature) return std::nullopt;
  parsed.signature = std::move(*signature);
  return parsed;
}

// ---- Claims ----

struct ObjectRef {
  std::string name, uid;
};

// The verified payload, as upstream's jwt.Claims and privateClaims hold it.
struct DecodedClaims {
  std::string iss, sub, jti;
  std::vector<std::string> aud;
  std::optional<int64_t> exp, nbf, iat;
  std::string ns;
  ObjectRef service_account;
  std::optional<ObjectRef> pod, secret, node;
};

// Field readers: an absent or null field leaves the target as it is (Go's encoding/json
// does the same); a field of the wrong type is an error.
std::string TypeError(std::string_view field, std::string_view want) {
  return "service account token claim " + util::Quote(field) + " is not " + std::string(want);
}

std::optional<std::string> ReadString(const json& obj, const char* key, std::string_view field,
                                      std::string& out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) return TypeError(field, "a string");
  out = it->get<std::string>();
  return std::nullopt;
}

std::optional<std::string> ReadDate(const json& obj, const char* key, std::optional<int64_t>& out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) return TypeError(key, "a NumericDate");
  double value = it->get<double>();
  if (!(value < kMaxNumericDate && value > -kMaxNumericDate)) {
    return TypeError(key, "a NumericDate in range");
  }
  // Fractions are dropped (toward zero), as go-jose converts the float it parses.
  out = it->is_number_float() ? static_cast<int64_t>(value) : it->get<int64_t>();
  return std::nullopt;
}

std::optional<std::string> ReadRef(const json& obj, const char* key, std::string_view prefix,
                                   std::optional<ObjectRef>& out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  std::string field = std::string(prefix) + key;
  if (!it->is_object()) return TypeError(field, "an object");
  ObjectRef ref;
  if (auto err = ReadString(*it, "name", field + ".name", ref.name)) return err;
  if (auto err = ReadString(*it, "uid", field + ".uid", ref.uid)) return err;
  out = std::move(ref);
  return std::nullopt;
}

std::expected<DecodedClaims, std::string> DecodeClaims(const json& claims) {
  DecodedClaims c;
  if (auto err = ReadString(claims, "iss", "iss", c.iss)) return std::unexpected(*err);
  if (auto err = ReadString(claims, "sub", "sub", c.sub)) return std::unexpected(*err);
  if (auto err = ReadString(claims, "jti", "jti", c.jti)) return std::unexpected(*err);
  // "aud" is a string or an array of strings (RFC 7519 section 4.1.3).
  if (auto it = claims.find("aud"); it != claims.end() && !it->is_null()) {
    if (it->is_string()) {
      c.aud = {it->get<std::string>()};
    } else if (it->is_array()) {
      for (const json& a : *it) {
        if (!a.is_string())
          return std::unexpected(TypeError("aud", "a string or array of strings"));
        c.aud.push_back(a.get<std::string>());
      }
    } else {
      return std::unexpected(TypeError("aud", "a string or array of strings"));
    }
  }
  if (auto err = ReadDate(claims, "exp", c.exp)) return std::unexpected(*err);
  if (auto err = ReadDate(claims, "nbf", c.nbf)) return std::unexpected(*err);
  if (auto err = ReadDate(claims, "iat", c.iat)) return std::unexpected(*err);

  auto k8s = claims.find("kubernetes.io");
  if (k8s == claims.end() || k8s->is_null()) return c;
  if (!k8s->is_object()) return std::unexpected(TypeError("kubernetes.io", "an object"));
  if (auto err = ReadString(*k8s, "namespace", "kubernetes.io.namespace", c.ns)) {
    return std::unexpected(*err);
  }
  std::optional<ObjectRef> sa;
  if (auto err = ReadRef(*k8s, "serviceaccount", "kubernetes.io.", sa))
    return std::unexpected(*err);
  if (sa) c.service_account = std::move(*sa);
  if (auto err = ReadRef(*k8s, "pod", "kubernetes.io.", c.pod)) return std::unexpected(*err);
  if (auto err = ReadRef(*k8s, "secret", "kubernetes.io.", c.secret)) return std::unexpected(*err);
  if (auto err = ReadRef(*k8s, "node", "kubernetes.io.", c.node)) return std::unexpected(*err);
  return c;
}

// Compares a claim of whole seconds with now + offset_seconds at the clock's precision:
// negative when the claim is earlier, zero when equal, positive when later.
int CompareWithNow(int64_t claim, int64_t offset_seconds,
                   std::chrono::system_clock::time_point now) {
  auto since_epoch = now.time_since_epoch();
  auto whole = std::chrono::floor<std::chrono::seconds>(since_epoch);
  bool fraction = whole != since_epoch;
  int64_t target = whole.count() + offset_seconds;
  if (claim != target) return claim < target ? -1 : 1;
  return fraction ? -1 : 0;
}

// The time checks of go-jose's Claims.Validate with the default leeway, in its order, and
// upstream's messages for them.
std::optional<std::string> CheckTimes(const DecodedClaims& c,
                                      std::chrono::system_clock::time_point now) {
  if (c.nbf && CompareWithNow(*c.nbf, kLeewaySeconds, now) > 0) {
    return "service account token is not valid yet";
  }
  if (c.exp && CompareWithNow(*c.exp, -kLeewaySeconds, now) < 0) {
    return "service account token has expired";
  }
  if (c.iat && CompareWithNow(*c.iat, kLeewaySeconds, now) > 0) {
    return "service account token is issued in the future";
  }
  return std::nullopt;
}

// A list as Go's %q prints a []string: ["a" "b"].
std::string QuoteList(const std::vector<std::string>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out += ' ';
    out += util::Quote(list[i]);
  }
  return out + "]";
}

int64_t UnixSeconds(std::chrono::system_clock::time_point t) {
  return std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
}

json RefJSON(const std::string& name, const std::string& uid) {
  json ref = json::object();
  if (!name.empty()) ref["name"] = name;
  if (!uid.empty()) ref["uid"] = uid;
  return ref;
}

// The payload upstream's token generator writes: the registered claims and the
// "kubernetes.io" private claims, fields left out when empty (Go's omitempty), keys in
// sorted order.
std::expected<json, std::string> ClaimsJSON(const ServiceAccountClaims& c) {
  if (c.ns.empty() || c.name.empty()) {
    return std::unexpected("a service account token needs the namespace and name of the account");
  }
  json k8s = json::object();
  k8s["namespace"] = c.ns;
  k8s["serviceaccount"] = RefJSON(c.name, c.uid);
  if (c.bound_kind == "Pod") {
    k8s["pod"] = RefJSON(c.bound_name, c.bound_uid);
  } else if (c.bound_kind == "Secret") {
    k8s["secret"] = RefJSON(c.bound_name, c.bound_uid);
  } else if (c.bound_kind == "Node") {
    k8s["node"] = RefJSON(c.bound_name, c.bound_uid);
  } else if (!c.bound_kind.empty()) {
    return std::unexpected("cannot bind a service account token to a " + c.bound_kind +
                           ": only Pod, Secret and Node are supported");
  }
  json payload = json::object();
  if (!c.audiences.empty()) payload["aud"] = c.audiences;  // always an array, as go-jose v2
  payload["exp"] = UnixSeconds(c.expires_at);
  payload["iat"] = UnixSeconds(c.issued_at);
  if (!c.issuer.empty()) payload["iss"] = c.issuer;
  if (!c.jti.empty()) payload["jti"] = c.jti;
  payload["kubernetes.io"] = std::move(k8s);
  payload["nbf"] = UnixSeconds(c.issued_at);
  payload["sub"] = kUsernamePrefix + c.ns + ":" + c.name;
  return payload;
}

// The user upstream's ServiceAccountInfo.UserInfo() makes of validated claims (all the
// 1.32 default-on features: JTI credential IDs, node binding, node info in pod tokens).
UserInfo UserOf(const DecodedClaims& c) {
  UserInfo user;
  user.name = kUsernamePrefix + c.ns + ":" + c.service_account.name;
  user.uid = c.service_account.uid;
  user.groups = {kAllServiceAccountsGroup, kNamespaceGroupPrefix + c.ns};
  if (c.pod && !c.pod->name.empty() && !c.pod->uid.empty()) {
    user.extra[kPodNameKey] = {c.pod->name};
    user.extra[kPodUIDKey] = {c.pod->uid};
  }
  if (!c.jti.empty()) user.extra[kCredentialIDKey] = {"JTI=" + c.jti};
  if (c.node && !c.node->name.empty()) {
    user.extra[kNodeNameKey] = {c.node->name};
    if (!c.node->uid.empty()) user.extra[kNodeUIDKey] = {c.node->uid};
  }
  return user;
}

// Every RSA or EC public key in PEM data, tried the way upstream's keyutil reads a
// --service-account-key-file: each block as a private key, a public key or a certificate,
// whatever its label says; blocks that are none of these (EC PARAMETERS) are skipped.
std::vector<Pkey> ReadPublicKeys(std::string_view pem) {
  std::vector<Pkey> keys;
  Bio bio = MemoryBio(pem);
  if (!bio) return keys;
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &len) != 1) break;
    std::string der(reinterpret_cast<char*>(data), static_cast<size_t>(len));
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
    const unsigned char* p = Bytes(der);
    Pkey key(d2i_AutoPrivateKey(nullptr, &p, static_cast<long>(der.size())));
    if (!key) {
      p = Bytes(der);
      key.reset(d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size())));
    }
    if (!key) {
      p = Bytes(der);
      Cert cert(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
      if (cert) key.reset(X509_get_pubkey(cert.get()));
    }
    if (key && (IsRSA(key.get()) || IsEC(key.get()))) keys.push_back(std::move(key));
  }
  ERR_clear_error();  // the end of the data is reported as an error
  return keys;
}

// ---- The authenticator ----

struct VerificationKey {
  std::string kid;
  Pkey key;
};

class ServiceAccountTokenAuthenticator final : public Authenticator {
 public:
  ServiceAccountTokenAuthenticator(std::vector<VerificationKey> keys,
                                   std::vector<std::string> issuers,
                                   std::vector<std::string> api_audiences)
      : keys_(std::move(keys)),
        issuers_(issuers.begin(), issuers.end()),
        audiences_(std::move(api_audiences)) {}

  AuthenticateResult Authenticate(const genericserver::Request& request) const override {
    std::string_view token = BearerToken(request);
    if (token.empty()) return std::nullopt;
    try {
      return AuthenticateToken(token);
    } catch (const std::exception& e) {
      // Nothing above is expected to throw; a token must never take the server down.
      return std::unexpected(std::string("service account token could not be validated: ") +
                             e.what());
    }
  }

 private:
  AuthenticateResult AuthenticateToken(std::string_view token) const {
    std::optional<ParsedToken> parsed = ParseToken(token, issuers_);
    if (!parsed) return std::nullopt;

    // Only the keys whose ID the token names, or all of them when it names none; the
    // first that verifies the signature wins.
    size_t tried = 0;
    bool verified = false;
    for (const VerificationKey& k : keys_) {
      if (!parsed->kid.empty() && k.kid != parsed->kid) continue;
      ++tried;
      if (!parsed->critical &&
          Verify(k.key.get(), parsed->alg, parsed->signing_input, parsed->signature)) {
        verified = true;
        break;
      }
    }
    if (tried == 0) return std::unexpected("invalid signature, no keys found");
    if (!verified) return std::unexpected(kCryptoFailure);

    std::expected<DecodedClaims, std::string> claims = DecodeClaims(parsed->claims);
    if (!claims) return std::unexpected(claims.error());
    if (!issuers_.contains(claims->iss)) {
      return std::unexpected("token issuer " + util::Quote(claims->iss) + " is invalid");
    }

    // A token without audiences predates bound tokens and is taken to be for this server.
    const std::vector<std::string>& token_audiences =
        claims->aud.empty() ? audiences_ : claims->aud;
    bool intersects = false;
    for (const std::string& a : token_audiences) {
      if (std::ranges::find(audiences_, a) != audiences_.end()) intersects = true;
    }
    if (!intersects && !audiences_.empty()) {
      return std::unexpected("token audiences " + QuoteList(token_audiences) +
                             " is invalid for the target audiences " + QuoteList(audiences_));
    }

    if (auto err = CheckTimes(*claims, std::chrono::system_clock::now())) {
      return std::unexpected(*err);
    }
    // Upstream looks the account up by these and fails when it is missing; without a
    // lookup, a token naming no account is refused here.
    if (claims->ns.empty() || claims->service_account.name.empty()) {
      return std::unexpected(
          "service account token does not name its namespace and service account");
    }
    return UserOf(*claims);
  }

  std::vector<VerificationKey> keys_;
  std::set<std::string> issuers_;
  std::vector<std::string> audiences_;
};

}  // namespace

std::expected<std::string, std::string> SignServiceAccountToken(const ServiceAccountClaims& claims,
                                                                std::string_view private_key_pem) {
  try {
    std::expected<Pkey, std::string> key = ReadPrivateKey(private_key_pem);
    if (!key) return std::unexpected(key.error());
    std::expected<std::string, std::string> alg_name = SigningAlgorithm(key->get());
    if (!alg_name) return std::unexpected(alg_name.error());
    std::expected<std::string, std::string> kid = KeyID(key->get());
    if (!kid) return std::unexpected("failed to derive keyID: " + kid.error());
    std::expected<json, std::string> payload = ClaimsJSON(claims);
    if (!payload) return std::unexpected(payload.error());

    json header = {{"alg", *alg_name}, {"kid", *kid}};
    std::string input = util::Base64RawURLEncode(Serialize(header)) + "." +
                        util::Base64RawURLEncode(Serialize(*payload));
    std::expected<std::string, std::string> sig =
        Sign(key->get(), *ParseAlgorithm(*alg_name), input);
    if (!sig) return std::unexpected(sig.error());
    return input + "." + util::Base64RawURLEncode(*sig);
  } catch (const std::exception& e) {
    return std::unexpected(std::string("signing the service account token: ") + e.what());
  }
}

std::expected<std::string, std::string> PublicKeyOf(std::string_view private_key_pem) {
  std::expected<Pkey, std::string> key = ReadPrivateKey(private_key_pem);
  if (!key) return std::unexpected(key.error());
  Bio out(BIO_new(BIO_s_mem()));
  if (!out || PEM_write_bio_PUBKEY(out.get(), key->get()) != 1) {
    return std::unexpected(OpenSSLError("writing the public key"));
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

AuthenticatorPtr NewServiceAccountTokenAuthenticator(std::vector<std::string> public_keys_pem,
                                                     std::vector<std::string> issuers,
                                                     std::vector<std::string> api_audiences) {
  std::vector<VerificationKey> keys;
  for (size_t i = 0; i < public_keys_pem.size(); ++i) {
    std::vector<Pkey> found = ReadPublicKeys(public_keys_pem[i]);
    if (found.empty()) {
      KLOG_WARNING << "service account key " << i
                   << ": data does not contain any valid RSA or ECDSA public keys";
    }
    for (Pkey& key : found) {
      std::expected<std::string, std::string> kid = KeyID(key.get());
      if (!kid) {
        KLOG_WARNING << "service account key " << i << ": " << kid.error();
        continue;
      }
      keys.push_back(VerificationKey{.kid = std::move(*kid), .key = std::move(key)});
    }
  }
  return std::make_shared<ServiceAccountTokenAuthenticator>(std::move(keys), std::move(issuers),
                                                            std::move(api_audiences));
}

}  // namespace authn
