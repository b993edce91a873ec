#pragma once
// What this folder's certificate code (pki.cc, sign_csr.cc) needs of OpenSSL beyond
// util/openssl.h's handles: a PEM certificate or private key read, a random serial number
// set, a certificate's NotAfter read. Internal to pkg/pki (it includes OpenSSL). Pure;
// thread-safe.

#include <chrono>
#include <string_view>

#include "pkg/util/openssl.h"

namespace pki::internal {

// The first PEM certificate or private key in `pem`; null when there is none.
util::openssl::Cert ReadCert(std::string_view pem);
util::openssl::Pkey ReadKey(std::string_view pem);

// Gives `cert` a random 128-bit serial number; false when the random generator fails.
bool SetRandomSerial(X509* cert);

// The end of the certificate's validity.
std::chrono::system_clock::time_point NotAfter(const X509* cert);

}  // namespace pki::internal
