#include "pkg/genericserver/authn/jws.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <climits>
#include <cstdint>

#include "pkg/util/base64.h"

namespace authn::jws {
namespace {

using util::openssl::Bignum;
using util::openssl::Bio;
using util::openssl::Cert;
using util::openssl::EcdsaSig;
using util::openssl::MdCtx;
using util::openssl::MemoryBio;
constexpr auto OpenSSLError = util::openssl::Error;

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// Encrypted PEM keys are not supported: answer OpenSSL's passphrase prompt with a refusal
// instead of letting it read the terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

bool IsRSA(EVP_PKEY* key) { return EVP_PKEY_is_a(key, "RSA") == 1; }
bool IsEC(EVP_PKEY* key) { return EVP_PKEY_is_a(key, "EC") == 1; }

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

std::expected<std::string, std::string> SignWith(EVP_PKEY* key, const Algorithm& alg,
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

}  // namespace

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

std::expected<std::string, std::string> PublicKeyPEM(EVP_PKEY* key) {
  Bio out(BIO_new(BIO_s_mem()));
  if (!out || PEM_write_bio_PUBKEY(out.get(), key) != 1) {
    return std::unexpected(OpenSSLError("writing the public key"));
  }
  return util::openssl::BioString(out.get());
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

std::expected<PublicJWK, std::string> JWKOf(EVP_PKEY* key) {
  auto bignum = [key](const char* name) -> std::optional<std::string> {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) return std::nullopt;
    Bignum owned(bn);
    std::string bytes(static_cast<size_t>(BN_num_bytes(bn)), '\0');
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(bytes.data()));
    return util::Base64RawURLEncode(bytes);
  };
  PublicJWK jwk;
  if (IsRSA(key)) {
    auto n = bignum(OSSL_PKEY_PARAM_RSA_N), e = bignum(OSSL_PKEY_PARAM_RSA_E);
    if (!n || !e) return std::unexpected(OpenSSLError("reading the RSA public key"));
    jwk.kty = "RSA";
    jwk.n = std::move(*n);
    jwk.e = std::move(*e);
    return jwk;
  }
  auto alg = SigningAlgorithm(key);
  if (!alg) return std::unexpected(alg.error());
  const size_t size = *alg == "ES256" ? 32 : *alg == "ES384" ? 48 : 66;
  jwk.kty = "EC";
  jwk.crv = *alg == "ES256" ? "P-256" : *alg == "ES384" ? "P-384" : "P-521";
  for (auto [name, out] :
       {std::pair{OSSL_PKEY_PARAM_EC_PUB_X, &jwk.x}, std::pair{OSSL_PKEY_PARAM_EC_PUB_Y, &jwk.y}}) {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) {
      return std::unexpected(OpenSSLError("reading the EC public key"));
    }
    Bignum owned(bn);
    std::string bytes(size, '\0');
    if (BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(size)) <
        0) {
      return std::unexpected(OpenSSLError("reading the EC public key"));
    }
    *out = util::Base64RawURLEncode(bytes);
  }
  return jwk;
}

std::expected<Pkey, std::string> PublicKeyOf(const PublicJWK& jwk) {
  using ParamBld =
      std::unique_ptr<OSSL_PARAM_BLD, util::openssl::Free<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
  using Params = std::unique_ptr<OSSL_PARAM, util::openssl::Free<OSSL_PARAM, OSSL_PARAM_free>>;
  using PkeyCtx =
      std::unique_ptr<EVP_PKEY_CTX, util::openssl::Free<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
  ParamBld bld(OSSL_PARAM_BLD_new());
  std::vector<Bignum> numbers;  // alive until the params are built
  auto number = [&](const char* name, const std::string& b64) {
    std::optional<std::string> bytes = util::Base64Decode(b64);
    if (!bytes || bytes->empty()) return false;
    numbers.emplace_back(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes->data()),
                                   static_cast<int>(bytes->size()), nullptr));
    return numbers.back() && OSSL_PARAM_BLD_push_BN(bld.get(), name, numbers.back().get()) == 1;
  };
  const char* type = nullptr;
  std::string point;  // EC: 0x04 || x || y
  if (jwk.kty == "RSA") {
    type = "RSA";
    if (!number(OSSL_PKEY_PARAM_RSA_N, jwk.n) || !number(OSSL_PKEY_PARAM_RSA_E, jwk.e)) {
      return std::unexpected("invalid RSA key: n and e must be base64url numbers");
    }
  } else if (jwk.kty == "EC") {
    type = "EC";
    const char* group = jwk.crv == "P-256"   ? SN_X9_62_prime256v1
                        : jwk.crv == "P-384" ? SN_secp384r1
                        : jwk.crv == "P-521" ? SN_secp521r1
                                             : nullptr;
    const size_t size = jwk.crv == "P-256" ? 32 : jwk.crv == "P-384" ? 48 : 66;
    std::optional<std::string> x = util::Base64Decode(jwk.x), y = util::Base64Decode(jwk.y);
    if (!group) return std::unexpected("unsupported elliptic curve \"" + jwk.crv + "\"");
    if (!x || !y || x->size() != size || y->size() != size) {
      return std::unexpected("invalid EC key: x and y must be " + std::to_string(size) + " bytes");
    }
    point = '\x04' + *x + *y;
    if (OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                         point.size()) != 1) {
      return std::unexpected(OpenSSLError("building the EC key"));
    }
  } else {
    return std::unexpected("unsupported key type \"" + jwk.kty + "\"");
  }
  Params params(OSSL_PARAM_BLD_to_param(bld.get()));
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return std::unexpected(OpenSSLError("reading the key"));
  }
  Pkey owned(key);
  // fromdata does not check that an EC point lies on its curve.
  PkeyCtx check(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) {
    return std::unexpected(OpenSSLError("invalid public key"));
  }
  return owned;
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

std::expected<std::string, std::string> Sign(EVP_PKEY* key, std::string_view alg,
                                             std::string_view input) {
  std::optional<Algorithm> parsed = ParseAlgorithm(alg);
  if (!parsed) return std::unexpected("unsupported algorithm " + std::string(alg));
  return SignWith(key, *parsed, input);
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

std::optional<Parts> Split(std::string_view token) {
  const size_t dot1 = token.find('.');
  if (dot1 == std::string_view::npos) return std::nullopt;
  const size_t dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  auto header = DecodePaddedSegment(token.substr(0, dot1));
  auto payload = DecodeSegment(token.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = DecodePaddedSegment(token.substr(dot2 + 1));
  if (!header || !payload || !signature) return std::nullopt;
  return Parts{token.substr(0, dot2), std::move(*header), std::move(*payload),
               std::move(*signature)};
}

}  // namespace authn::jws
