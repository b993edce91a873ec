#pragma once
// PKCS#10 certificate requests: what one asks for, whether its self-signature holds, and the
// certificate a CA issues for it, as the kube-controller-manager's CSR signer does
// (upstream's authority.CertificateAuthority.Sign with the PermissiveSigningPolicy):
//  - the subject is the request's (the attributes Go's pkix.Name knows, in its order: C, ST,
//    L, street, postalCode, O, OU, CN, serialNumber; the values of one attribute form one
//    RDN), and so are the DNS, email, IP and URI subject alternative names;
//  - every other extension the request carries is dropped;
//  - key usage (critical) and extended key usage come from the certificates.k8s.io usages
//    ("digital signature", "client auth", ...), basic constraints are critical CA:FALSE, the
//    authority key identifier is the CA's subject key identifier;
//  - a random 128-bit serial, the validity the caller chose, the CA as issuer, SHA-256
//    (SHA-384/512 for P-384/P-521 CA keys, none for Ed25519).
// Pure functions; thread-safe.

#include <chrono>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/pki/pki.h"

namespace pki {

// What a certificate request asks for.
struct CertificateRequestInfo {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_names;
  std::vector<std::string> email_addresses;
  std::vector<std::string> ip_addresses;  // canonical text form
  std::vector<std::string> uris;
  std::string key_type;  // "RSA", "ECDSA", "Ed25519", or what OpenSSL calls it
};

// The first PEM block of `pem` decoded as a certificate request (upstream's ParseCSR): an
// error "PEM block type must be CERTIFICATE REQUEST" when there is no PEM block or it is of
// another type, or why the DER does not parse.
std::expected<CertificateRequestInfo, std::string> ParseCertificateRequest(std::string_view pem);

// Whether the request's signature verifies with its own public key (Go's CheckSignature):
// the error names the failure ("x509: ECDSA verification failure").
std::expected<void, std::string> CheckRequestSignature(std::string_view pem);

// certificates.k8s.io's usage names (key usages and extended key usages), sorted.
std::vector<std::string> KnownUsages();

struct SigningPolicy {
  std::vector<std::string> usages;  // certificates.k8s.io usage names
  std::chrono::system_clock::time_point not_before;
  std::chrono::system_clock::time_point not_after;
};

// The certificate (one PEM block) `ca` issues for the request under `policy`. Fails when the
// request does not parse or its signature does not verify ("unable to verify certificate
// request signature: ..."), a usage is unknown, or the CA pair does not load.
std::expected<std::string, std::string> SignCertificateRequest(const KeyPair& ca,
                                                               std::string_view request_pem,
                                                               const SigningPolicy& policy);

// status.certificate as the API server accepts it (upstream's validateCertificate): empty, or
// PEM blocks of type CERTIFICATE only, without headers, each a certificate, at least one.
std::expected<void, std::string> ValidateCertificateBlocks(std::string_view pem);

// The CA pair loads and its key matches its certificate (what the signer checks when it
// starts): the CA certificate's expiry, or why not.
std::expected<std::chrono::system_clock::time_point, std::string> LoadSigningCA(const KeyPair& ca);

}  // namespace pki
