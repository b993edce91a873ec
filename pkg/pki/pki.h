#pragma once
// Certificates for first start: a CA, serving and client certificates signed by it
// (ECDSA P-256, PKCS#8 keys, PEM), and what a restart needs to know about existing ones.

#include <chrono>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace pki {

struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

struct CertRequest {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
  bool server_auth = false;
  bool client_auth = false;
  std::chrono::hours validity{24 * 365};
};

struct CertInfo {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  // canonical text form ("127.0.0.1", "::1")
  std::chrono::system_clock::time_point not_after;
  bool is_ca = false;
};

std::expected<KeyPair, std::string> GenerateCA(std::string_view common_name,
                                               std::chrono::hours validity);
std::expected<KeyPair, std::string> GenerateSigned(const KeyPair& ca, const CertRequest& request);
// The first certificate of a PEM bundle.
std::expected<CertInfo, std::string> ParseCertificate(std::string_view pem);
// Whether cert_pem's signature verifies with ca_pem's key and the key pair matches.
bool IssuedBy(std::string_view cert_pem, std::string_view ca_pem);
bool KeyMatches(std::string_view cert_pem, std::string_view key_pem);
// Every certificate in a PEM bundle parses (and there is at least one).
std::expected<void, std::string> ValidateBundle(std::string_view pem);

// The certificates of a PEM bundle, each encoded again on its own (one PEM block, as Go's
// pem.Encode writes it), with its expiry. Text between blocks is dropped; a block that
// does not parse is an error.
struct BundleCertificate {
  std::string pem;
  std::chrono::system_clock::time_point not_after;
};
std::expected<std::vector<BundleCertificate>, std::string> SplitBundle(std::string_view pem);

// A new private key (ECDSA P-256), PKCS#8 PEM: what signs service-account tokens.
std::expected<std::string, std::string> GeneratePrivateKey();

// Canonical text of an IP address, or empty if s is not one.
std::string CanonicalIP(std::string_view s);

}  // namespace pki
