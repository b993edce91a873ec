#include "pkg/pki/sign_csr.h"

#include <arpa/inet.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <map>
#include <memory>
#include <optional>

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
using util::openssl::Free;
using util::openssl::MemoryBio;
using util::openssl::Pkey;
using Req = std::unique_ptr<X509_REQ, Free<X509_REQ, X509_REQ_free>>;
using Name = std::unique_ptr<X509_NAME, Free<X509_NAME, X509_NAME_free>>;

void FreeNames(GENERAL_NAMES* names) { GENERAL_NAMES_free(names); }
using Names = std::unique_ptr<GENERAL_NAMES, Free<GENERAL_NAMES, FreeNames>>;
void FreeExtensions(STACK_OF(X509_EXTENSION) * exts) {
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
}
using Extensions =
    std::unique_ptr<STACK_OF(X509_EXTENSION), Free<STACK_OF(X509_EXTENSION), FreeExtensions>>;

constexpr char kNotARequest[] = "PEM block type must be CERTIFICATE REQUEST";

// One PEM block: its type ("CERTIFICATE"), whether it has headers, its DER bytes.
struct PemBlock {
  std::string type;
  bool has_headers = false;
  std::string der;
};

// The next PEM block of `bio`, as Go's pem.Decode finds it (text before it is skipped);
// std::nullopt at the end of the data or at a block OpenSSL cannot read (its error
// cleared).
std::optional<PemBlock> ReadPemBlock(BIO* bio) {
  char* name = nullptr;
  char* header = nullptr;
  unsigned char* data = nullptr;
  long len = 0;
  if (!bio || PEM_read_bio(bio, &name, &header, &data, &len) != 1) {
    ERR_clear_error();
    return std::nullopt;
  }
  PemBlock block{name, header && header[0] != '\0',
                 std::string(reinterpret_cast<const char*>(data), static_cast<size_t>(len))};
  OPENSSL_free(name);
  OPENSSL_free(header);
  OPENSSL_free(data);
  return block;
}

// The DER bytes of `block` decoded with `d2i` (d2i_X509_REQ, d2i_X509); null when they do
// not decode; `trailing` set when bytes are left after the value.
template <class T, T* (*D2i)(T**, const unsigned char**, long)>
T* Decode(const PemBlock& block, bool& trailing) {
  const auto* start = reinterpret_cast<const unsigned char*>(block.der.data());
  const unsigned char* p = start;
  T* value = D2i(nullptr, &p, static_cast<long>(block.der.size()));
  trailing = value && p != start + block.der.size();
  return value;
}

// The first PEM block, decoded when it is a CERTIFICATE REQUEST.
std::expected<Req, std::string> ReadRequest(std::string_view pem) {
  Bio bio = MemoryBio(pem);
  std::optional<PemBlock> block = ReadPemBlock(bio.get());
  if (!block || block->type != "CERTIFICATE REQUEST") return std::unexpected(kNotARequest);
  bool trailing = false;
  Req req(Decode<X509_REQ, d2i_X509_REQ>(*block, trailing));
  if (!req) return std::unexpected(Error("x509: malformed certificate request"));
  if (trailing) return std::unexpected("x509: trailing data");
  return req;
}

std::string Utf8(const ASN1_STRING* s) {
  unsigned char* out = nullptr;
  int len = ASN1_STRING_to_UTF8(&out, s);
  if (len < 0) {
    ERR_clear_error();
    return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                       static_cast<size_t>(ASN1_STRING_length(s)));
  }
  std::string value(reinterpret_cast<char*>(out), static_cast<size_t>(len));
  OPENSSL_free(out);
  return value;
}

std::string Text(const ASN1_STRING* s) {
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     static_cast<size_t>(ASN1_STRING_length(s)));
}

// The subject alternative names a request asks for (its extensionRequest).
Names RequestedNames(X509_REQ* req) {
  Extensions exts(X509_REQ_get_extensions(req));
  if (!exts) return nullptr;
  Names names(static_cast<GENERAL_NAMES*>(
      X509V3_get_d2i(exts.get(), NID_subject_alt_name, nullptr, nullptr)));
  ERR_clear_error();
  return names;
}

// The IP address octets Go would write: IPv4-mapped IPv6 addresses as four bytes.
std::string IPBytes(const ASN1_OCTET_STRING* ip) {
  std::string raw = Text(ip);
  static const std::string kMapped("\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
  if (raw.size() == 16 && raw.compare(0, 12, kMapped) == 0) raw = raw.substr(12);
  return raw;
}

std::string IPText(const ASN1_OCTET_STRING* ip) {
  const std::string raw = IPBytes(ip);
  char out[INET6_ADDRSTRLEN];
  if (raw.size() == 4 && inet_ntop(AF_INET, raw.data(), out, sizeof out)) return out;
  if (raw.size() == 16 && inet_ntop(AF_INET6, raw.data(), out, sizeof out)) return out;
  return "";
}

std::string KeyType(EVP_PKEY* key) {
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
      return "RSA";
    case EVP_PKEY_EC:
      return "ECDSA";
    case EVP_PKEY_ED25519:
      return "Ed25519";
    default: {
      const char* name = EVP_PKEY_get0_type_name(key);
      return name ? name : "unknown";
    }
  }
}

// Go's pkix.Name attributes in the order ToRDNSequence writes them; CN and serialNumber keep
// only their last value, as FillFromRDNSequence reads them.
constexpr std::array<int, 9> kSubjectOrder = {
    NID_countryName, NID_stateOrProvinceName, NID_localityName,           NID_streetAddress,
    NID_postalCode,  NID_organizationName,    NID_organizationalUnitName, NID_commonName,
    NID_serialNumber};

bool Printable(const std::string& s) {
  for (unsigned char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    (c >= '\'' && c <= ')') || (c >= '+' && c <= '/') || c == ' ' || c == ':' ||
                    c == '=' || c == '?';
    if (!ok) return false;
  }
  return true;
}

// The request's subject re-encoded as Go's x509 would write it.
std::expected<Name, std::string> CopySubject(X509_NAME* requested) {
  std::map<int, std::vector<std::string>> values;
  for (int i = 0; i < X509_NAME_entry_count(requested); ++i) {
    X509_NAME_ENTRY* e = X509_NAME_get_entry(requested, i);
    const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
    std::string value = Utf8(X509_NAME_ENTRY_get_data(e));
    if (nid == NID_commonName || nid == NID_serialNumber) values[nid].clear();
    values[nid].push_back(std::move(value));
  }
  Name name(X509_NAME_new());
  for (int nid : kSubjectOrder) {
    auto it = values.find(nid);
    if (it == values.end()) continue;
    bool first = true;
    for (const std::string& v : it->second) {
      const int type = Printable(v) ? V_ASN1_PRINTABLESTRING : V_ASN1_UTF8STRING;
      if (X509_NAME_add_entry_by_NID(name.get(), nid, type,
                                     reinterpret_cast<const unsigned char*>(v.data()),
                                     static_cast<int>(v.size()), -1, first ? 0 : -1) != 1) {
        return std::unexpected(Error("copying the subject"));
      }
      first = false;
    }
  }
  return name;
}

struct Usages {
  std::vector<int> key_usage_bits;  // RFC 5280 KeyUsage bit numbers
  std::vector<int> ext_key_usages;  // NIDs, in Go's ExtKeyUsage order
};

// certificates.k8s.io's usage names: RFC 5280 KeyUsage bit numbers, and for extended key
// usages their position (Go's x509.ExtKeyUsage value, by which upstream sorts them) and NID.
const std::map<std::string, int, std::less<>>& KeyUsageBits() {
  static const std::map<std::string, int, std::less<>> table = {
      {"signing", 0},          {"digital signature", 0}, {"content commitment", 1},
      {"key encipherment", 2}, {"key agreement", 4},     {"data encipherment", 3},
      {"cert sign", 5},        {"crl sign", 6},          {"encipher only", 7},
      {"decipher only", 8}};
  return table;
}

const std::map<std::string, std::pair<int, int>, std::less<>>& ExtKeyUsages() {
  static const std::map<std::string, std::pair<int, int>, std::less<>> table = {
      {"any", {0, NID_anyExtendedKeyUsage}},
      {"server auth", {1, NID_server_auth}},
      {"client auth", {2, NID_client_auth}},
      {"code signing", {3, NID_code_sign}},
      {"email protection", {4, NID_email_protect}},
      {"s/mime", {4, NID_email_protect}},
      {"ipsec end system", {5, NID_ipsecEndSystem}},
      {"ipsec tunnel", {6, NID_ipsecTunnel}},
      {"ipsec user", {7, NID_ipsecUser}},
      {"timestamping", {8, NID_time_stamp}},
      {"ocsp signing", {9, NID_OCSP_sign}},
      {"microsoft sgc", {10, NID_ms_sgc}},
      {"netscape sgc", {11, NID_ns_sgc}}};
  return table;
}

std::expected<Usages, std::string> UsagesFromStrings(const std::vector<std::string>& usages) {
  const auto& kKeyUsage = KeyUsageBits();
  const auto& kExtKeyUsage = ExtKeyUsages();
  Usages out;
  std::map<int, int> ext;  // Go order -> NID
  std::vector<std::string> unrecognized;
  for (const std::string& u : usages) {
    if (auto k = kKeyUsage.find(u); k != kKeyUsage.end()) {
      out.key_usage_bits.push_back(k->second);
    } else if (auto e = kExtKeyUsage.find(u); e != kExtKeyUsage.end()) {
      ext[e->second.first] = e->second.second;
    } else {
      unrecognized.push_back(u);
    }
  }
  if (!unrecognized.empty()) {
    std::string list;
    for (const std::string& u : unrecognized) {
      if (!list.empty()) list += " ";
      list += "\"" + u + "\"";
    }
    return std::unexpected("unrecognized usage values: [" + list + "]");
  }
  for (const auto& [order, nid] : ext) out.ext_key_usages.push_back(nid);
  return out;
}

bool AddKeyUsage(X509* cert, const std::vector<int>& bits) {
  if (bits.empty()) return true;  // Go writes no extension for KeyUsage 0
  std::unique_ptr<ASN1_BIT_STRING, Free<ASN1_BIT_STRING, ASN1_BIT_STRING_free>> usage(
      ASN1_BIT_STRING_new());
  for (int bit : bits) {
    if (ASN1_BIT_STRING_set_bit(usage.get(), bit, 1) != 1) return false;
  }
  return X509_add1_ext_i2d(cert, NID_key_usage, usage.get(), 1, X509V3_ADD_DEFAULT) == 1;
}

bool AddExtKeyUsage(X509* cert, const std::vector<int>& nids) {
  if (nids.empty()) return true;
  EXTENDED_KEY_USAGE* eku = sk_ASN1_OBJECT_new_null();
  for (int nid : nids) sk_ASN1_OBJECT_push(eku, OBJ_nid2obj(nid));
  bool ok = X509_add1_ext_i2d(cert, NID_ext_key_usage, eku, 0, X509V3_ADD_DEFAULT) == 1;
  sk_ASN1_OBJECT_free(eku);  // the objects are OpenSSL's static ones
  return ok;
}

bool AddBasicConstraints(X509* cert) {
  BASIC_CONSTRAINTS* bc = BASIC_CONSTRAINTS_new();
  bc->ca = 0;
  bool ok = X509_add1_ext_i2d(cert, NID_basic_constraints, bc, 1, X509V3_ADD_DEFAULT) == 1;
  BASIC_CONSTRAINTS_free(bc);
  return ok;
}

bool AddAuthorityKeyId(X509* cert, X509* ca) {
  const ASN1_OCTET_STRING* skid = X509_get0_subject_key_id(ca);
  if (!skid) return true;
  AUTHORITY_KEYID* akid = AUTHORITY_KEYID_new();
  akid->keyid = ASN1_OCTET_STRING_dup(skid);
  bool ok = X509_add1_ext_i2d(cert, NID_authority_key_identifier, akid, 0, X509V3_ADD_DEFAULT) == 1;
  AUTHORITY_KEYID_free(akid);
  return ok;
}

// The DNS, email, IP and URI names of the request, in the order Go writes them; critical
// when the subject is empty (RFC 5280 4.2.1.6).
bool AddSubjectAltNames(X509* cert, X509_REQ* req, bool subject_empty) {
  Names requested = RequestedNames(req);
  if (!requested) return true;
  Names names(GENERAL_NAMES_new());
  for (int type : {GEN_DNS, GEN_EMAIL, GEN_IPADD, GEN_URI}) {
    for (int i = 0; i < sk_GENERAL_NAME_num(requested.get()); ++i) {
      const GENERAL_NAME* n = sk_GENERAL_NAME_value(requested.get(), i);
      if (n->type != type) continue;
      GENERAL_NAME* copy = nullptr;
      if (type == GEN_IPADD) {
        const std::string ip = IPBytes(n->d.iPAddress);
        copy = GENERAL_NAME_new();
        ASN1_OCTET_STRING* octets = ASN1_OCTET_STRING_new();
        ASN1_OCTET_STRING_set(octets, reinterpret_cast<const unsigned char*>(ip.data()),
                              static_cast<int>(ip.size()));
        GENERAL_NAME_set0_value(copy, GEN_IPADD, octets);
      } else {
        copy = GENERAL_NAME_dup(n);
      }
      if (!copy) return false;
      sk_GENERAL_NAME_push(names.get(), copy);
    }
  }
  if (sk_GENERAL_NAME_num(names.get()) == 0) return true;
  return X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), subject_empty ? 1 : 0,
                           X509V3_ADD_DEFAULT) == 1;
}

// The digest Go's x509 picks for the CA's key; null for Ed25519 (no separate digest).
const EVP_MD* DigestFor(EVP_PKEY* key) {
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519) return nullptr;
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC) {
    char group[64] = {0};
    size_t len = 0;
    if (EVP_PKEY_get_group_name(key, group, sizeof group, &len) == 1) {
      const std::string curve(group, len);
      if (curve == "secp384r1" || curve == "P-384") return EVP_sha384();
      if (curve == "secp521r1" || curve == "P-521") return EVP_sha512();
    }
  }
  return EVP_sha256();
}

bool SetTime(ASN1_TIME* field, std::chrono::system_clock::time_point t) {
  const std::time_t seconds =
      std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(t));
  return ASN1_TIME_set(field, seconds) != nullptr;
}

std::expected<void, std::string> VerifyRequest(X509_REQ* req) {
  EVP_PKEY* key = X509_REQ_get0_pubkey(req);
  if (!key) return std::unexpected(Error("x509: cannot read the public key"));
  if (X509_REQ_verify(req, key) == 1) return {};
  ERR_clear_error();
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
      return std::unexpected("crypto/rsa: verification error");
    case EVP_PKEY_EC:
      return std::unexpected("x509: ECDSA verification failure");
    case EVP_PKEY_ED25519:
      return std::unexpected("x509: Ed25519 verification failure");
    default:
      return std::unexpected("x509: signature verification failure");
  }
}

}  // namespace

std::expected<CertificateRequestInfo, std::string> ParseCertificateRequest(std::string_view pem) {
  auto req = ReadRequest(pem);
  if (!req) return std::unexpected(req.error());
  CertificateRequestInfo info;
  X509_NAME* subject = X509_REQ_get_subject_name(req->get());
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* e = X509_NAME_get_entry(subject, i);
    const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
    if (nid == NID_commonName) info.common_name = Utf8(X509_NAME_ENTRY_get_data(e));
    if (nid == NID_organizationName) {
      info.organizations.push_back(Utf8(X509_NAME_ENTRY_get_data(e)));
    }
  }
  if (Names names = RequestedNames(req->get())) {
    for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
      const GENERAL_NAME* n = sk_GENERAL_NAME_value(names.get(), i);
      switch (n->type) {
        case GEN_DNS:
          info.dns_names.push_back(Text(n->d.dNSName));
          break;
        case GEN_EMAIL:
          info.email_addresses.push_back(Text(n->d.rfc822Name));
          break;
        case GEN_IPADD:
          info.ip_addresses.push_back(IPText(n->d.iPAddress));
          break;
        case GEN_URI:
          info.uris.push_back(Text(n->d.uniformResourceIdentifier));
          break;
        default:
          break;
      }
    }
  }
  EVP_PKEY* key = X509_REQ_get0_pubkey(req->get());
  info.key_type = key ? KeyType(key) : "unknown";
  ERR_clear_error();
  return info;
}

std::expected<void, std::string> CheckRequestSignature(std::string_view pem) {
  auto req = ReadRequest(pem);
  if (!req) return std::unexpected(req.error());
  return VerifyRequest(req->get());
}

std::vector<std::string> KnownUsages() {
  std::vector<std::string> names;
  for (const auto& [name, bit] : KeyUsageBits()) names.push_back(name);
  for (const auto& [name, value] : ExtKeyUsages()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::expected<void, std::string> ValidateCertificateBlocks(std::string_view pem) {
  if (pem.empty()) return {};
  Bio bio = MemoryBio(pem);
  int blocks = 0;
  ERR_clear_error();
  while (std::optional<PemBlock> block = ReadPemBlock(bio.get())) {
    if (block->type != "CERTIFICATE") {
      return std::unexpected("only CERTIFICATE PEM blocks are allowed, found \"" + block->type +
                             "\"");
    }
    if (block->has_headers) return std::unexpected("no PEM block headers are permitted");
    ++blocks;
    bool trailing = false;
    Cert cert(Decode<X509, d2i_X509>(*block, trailing));
    if (!cert || trailing) {
      ERR_clear_error();
      return std::unexpected("x509: malformed certificate");
    }
  }
  if (blocks == 0) return std::unexpected("must contain at least one CERTIFICATE PEM block");
  return {};
}

std::expected<std::chrono::system_clock::time_point, std::string> LoadSigningCA(const KeyPair& ca) {
  Cert cert = ReadCert(ca.cert_pem);
  if (!cert) return std::unexpected(Error("reading the CA certificate"));
  Pkey key = ReadKey(ca.key_pem);
  if (!key) return std::unexpected(Error("reading the CA private key"));
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return std::unexpected("tls: private key does not match public key");
  }
  return NotAfter(cert.get());
}

std::expected<std::string, std::string> SignCertificateRequest(const KeyPair& ca,
                                                               std::string_view request_pem,
                                                               const SigningPolicy& policy) {
  auto req = ReadRequest(request_pem);
  if (!req) return std::unexpected("unable to parse certificate request: " + req.error());
  if (auto ok = VerifyRequest(req->get()); !ok) {
    return std::unexpected("unable to verify certificate request signature: " + ok.error());
  }
  auto usages = UsagesFromStrings(policy.usages);
  if (!usages) return std::unexpected(usages.error());
  Cert ca_cert = ReadCert(ca.cert_pem);
  Pkey ca_key = ReadKey(ca.key_pem);
  if (!ca_cert || !ca_key) return std::unexpected(Error("reading the CA certificate and key"));

  Cert cert(X509_new());
  X509_set_version(cert.get(), X509_VERSION_3);
  if (!internal::SetRandomSerial(cert.get())) {
    return std::unexpected(Error("unable to generate a serial number"));
  }
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  if (!SetTime(X509_getm_notBefore(cert.get()), policy.not_before) ||
      !SetTime(X509_getm_notAfter(cert.get()), policy.not_after)) {
    return std::unexpected(Error("setting the validity"));
  }
  auto subject = CopySubject(X509_REQ_get_subject_name(req->get()));
  if (!subject) return std::unexpected(subject.error());
  X509_set_subject_name(cert.get(), subject->get());
  X509_set_pubkey(cert.get(), X509_REQ_get0_pubkey(req->get()));

  const bool ok =
      AddKeyUsage(cert.get(), usages->key_usage_bits) &&
      AddExtKeyUsage(cert.get(), usages->ext_key_usages) && AddBasicConstraints(cert.get()) &&
      AddAuthorityKeyId(cert.get(), ca_cert.get()) &&
      AddSubjectAltNames(cert.get(), req->get(), X509_NAME_entry_count(subject->get()) == 0);
  if (!ok) return std::unexpected(Error("adding certificate extensions"));
  if (X509_sign(cert.get(), ca_key.get(), DigestFor(ca_key.get())) == 0) {
    return std::unexpected(Error("failed to sign certificate"));
  }
  Bio out(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(out.get(), cert.get()) != 1) return std::unexpected(Error("encoding PEM"));
  return BioString(out.get());
}

}  // namespace pki
