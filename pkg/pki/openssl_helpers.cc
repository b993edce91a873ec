#include "pkg/pki/openssl_helpers.h"

#include <openssl/pem.h>
#include <openssl/rand.h>

#include <ctime>

namespace pki::internal {

using util::openssl::Bignum;
using util::openssl::Bio;
using util::openssl::Cert;
using util::openssl::MemoryBio;
using util::openssl::Pkey;

Cert ReadCert(std::string_view pem) {
  Bio bio = MemoryBio(pem);
  return Cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

Pkey ReadKey(std::string_view pem) {
  Bio bio = MemoryBio(pem);
  return Pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

bool SetRandomSerial(X509* cert) {
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return false;
  Bignum bn(BN_bin2bn(serial, sizeof serial, nullptr));
  return bn && BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) != nullptr;
}

std::chrono::system_clock::time_point NotAfter(const X509* cert) {
  std::tm tm{};
  ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm);
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace pki::internal
