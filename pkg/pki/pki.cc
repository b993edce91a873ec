#include "pkg/pki/pki.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "pkg/pki/openssl_helpers.h"
#include "pkg/util/openssl.h"

namespace pki {
namespace {

using internal::NotAfter;
using internal::ReadCert;
using internal::ReadKey;
using util::openssl::Bio;
using util::openssl::BioString;
using util::openssl::Cert;
using util::openssl::Error;
using util::openssl::MemoryBio;
using util::openssl::Pkey;

std::expected<Pkey, std::string> NewKey() {
  Pkey key(EVP_EC_gen("P-256"));
  if (!key) return std::unexpected(Error("generating an EC key"));
  return key;
}

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A certificate for key, with subject from request, signed by signer_key (as issuer,
// or self-signed when issuer is null).
std::expected<Cert, std::string> MakeCert(EVP_PKEY* key, const CertRequest& request, bool is_ca,
                                          X509* issuer, EVP_PKEY* signer_key) {
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  if (!internal::SetRandomSerial(cert.get())) {
    return std::unexpected(Error("generating a serial number"));
  }
  // Backdated an hour for clocks that disagree a little.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()),
                  static_cast<long>(std::chrono::seconds(request.validity).count()));
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const std::string& o : request.organizations) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  }
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(request.common_name.c_str()),
                             -1, -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));

  bool ok = true;
  ok &= AddExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (is_ca) {
    ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    ok &= AddExtension(cert.get(), signer, NID_key_usage,
                       "critical,digitalSignature,keyCertSign,cRLSign");
  } else {
    ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    ok &= AddExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
    std::string eku;
    if (request.server_auth) eku = "serverAuth";
    if (request.client_auth) eku += eku.empty() ? "clientAuth" : ",clientAuth";
    if (!eku.empty()) ok &= AddExtension(cert.get(), signer, NID_ext_key_usage, eku);
    ok &= AddExtension(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  }
  std::string san;
  for (const std::string& d : request.dns_names) san += (san.empty() ? "DNS:" : ",DNS:") + d;
  for (const std::string& ip : request.ip_addresses) san += (san.empty() ? "IP:" : ",IP:") + ip;
  if (!san.empty()) ok &= AddExtension(cert.get(), signer, NID_subject_alt_name, san);
  if (!ok) return std::unexpected(Error("adding certificate extensions"));
  if (X509_sign(cert.get(), signer_key, EVP_sha256()) == 0) {
    return std::unexpected(Error("signing the certificate"));
  }
  return cert;
}

std::expected<KeyPair, std::string> Encode(X509* cert, EVP_PKEY* key) {
  Bio cert_bio(BIO_new(BIO_s_mem())), key_bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(cert_bio.get(), cert) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return std::unexpected(Error("encoding PEM"));
  }
  return KeyPair{BioString(cert_bio.get()), BioString(key_bio.get())};
}

}  // namespace

std::expected<std::string, std::string> GeneratePrivateKey() {
  auto key = NewKey();
  if (!key) return std::unexpected(key.error());
  Bio bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PrivateKey(bio.get(), key->get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return std::unexpected(Error("encoding PEM"));
  }
  return BioString(bio.get());
}

std::expected<KeyPair, std::string> GenerateCA(std::string_view common_name,
                                               std::chrono::hours validity) {
  auto key = NewKey();
  if (!key) return std::unexpected(key.error());
  CertRequest request;
  request.common_name = std::string(common_name);
  request.validity = validity;
  auto cert = MakeCert(key->get(), request, true, nullptr, key->get());
  if (!cert) return std::unexpected(cert.error());
  return Encode(cert->get(), key->get());
}

std::expected<KeyPair, std::string> GenerateSigned(const KeyPair& ca, const CertRequest& request) {
  Cert ca_cert = ReadCert(ca.cert_pem);
  Pkey ca_key = ReadKey(ca.key_pem);
  if (!ca_cert || !ca_key) return std::unexpected(Error("reading the CA certificate and key"));
  auto key = NewKey();
  if (!key) return std::unexpected(key.error());
  auto cert = MakeCert(key->get(), request, false, ca_cert.get(), ca_key.get());
  if (!cert) return std::unexpected(cert.error());
  return Encode(cert->get(), key->get());
}

std::string CanonicalIP(std::string_view s) {
  std::string text(s);
  unsigned char buf[16];
  char out[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) {
    return inet_ntop(AF_INET, buf, out, sizeof out);
  }
  if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
    return inet_ntop(AF_INET6, buf, out, sizeof out);
  }
  return "";
}

std::expected<CertInfo, std::string> ParseCertificate(std::string_view pem) {
  Cert cert = ReadCert(pem);
  if (!cert) return std::unexpected(Error("no PEM certificate found"));
  CertInfo info;
  X509_NAME* subject = X509_get_subject_name(cert.get());
  for (int nid : {NID_commonName, NID_organizationName}) {
    for (int i = X509_NAME_get_index_by_NID(subject, nid, -1); i >= 0;
         i = X509_NAME_get_index_by_NID(subject, nid, i)) {
      ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
      std::string value(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                        static_cast<size_t>(ASN1_STRING_length(data)));
      if (nid == NID_commonName) {
        info.common_name = value;
      } else {
        info.organizations.push_back(value);
      }
    }
  }
  auto* names = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS) {
      info.dns_names.emplace_back(
          reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.dNSName)),
          static_cast<size_t>(ASN1_STRING_length(n->d.dNSName)));
    } else if (n->type == GEN_IPADD) {
      const unsigned char* b = ASN1_STRING_get0_data(n->d.iPAddress);
      int len = ASN1_STRING_length(n->d.iPAddress);
      char out[INET6_ADDRSTRLEN];
      if (len == 4 && inet_ntop(AF_INET, b, out, sizeof out)) info.ip_addresses.push_back(out);
      if (len == 16 && inet_ntop(AF_INET6, b, out, sizeof out)) info.ip_addresses.push_back(out);
    }
  }
  GENERAL_NAMES_free(names);
  info.not_after = NotAfter(cert.get());
  info.is_ca = X509_check_ca(cert.get()) != 0;
  return info;
}

bool IssuedBy(std::string_view cert_pem, std::string_view ca_pem) {
  Cert cert = ReadCert(cert_pem), ca = ReadCert(ca_pem);
  if (!cert || !ca) return false;
  EVP_PKEY* ca_key = X509_get0_pubkey(ca.get());
  bool ok = ca_key && X509_verify(cert.get(), ca_key) == 1;
  ERR_clear_error();
  return ok;
}

bool KeyMatches(std::string_view cert_pem, std::string_view key_pem) {
  Cert cert = ReadCert(cert_pem);
  Pkey key = ReadKey(key_pem);
  bool ok = cert && key && X509_check_private_key(cert.get(), key.get()) == 1;
  ERR_clear_error();
  return ok;
}

std::expected<void, std::string> ValidateBundle(std::string_view pem) {
  Bio bio = MemoryBio(pem);
  int count = 0;
  while (Cert cert{PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)}) ++count;
  ERR_clear_error();
  if (count == 0)
    return std::unexpected("data does not contain any valid RSA or ECDSA certificates");
  return {};
}

std::expected<std::vector<BundleCertificate>, std::string> SplitBundle(std::string_view pem) {
  std::vector<BundleCertificate> out;
  Bio bio = MemoryBio(pem);
  ERR_clear_error();
  while (Cert cert{PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)}) {
    Bio encoded(BIO_new(BIO_s_mem()));
    if (PEM_write_bio_X509(encoded.get(), cert.get()) != 1) {
      return std::unexpected(Error("encoding PEM"));
    }
    out.push_back({BioString(encoded.get()), NotAfter(cert.get())});
  }
  // The loop ends at the end of the data (no further PEM start line) or at a bad block.
  const unsigned long code = ERR_peek_last_error();
  if (code != 0 &&
      !(ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE)) {
    return std::unexpected(Error("reading a PEM certificate"));
  }
  ERR_clear_error();
  return out;
}

}  // namespace pki
