#pragma once
// OpenSSL handles owned by std::unique_ptr, memory BIOs, and error text, for the code that
// uses OpenSSL directly (certificates, service-account tokens). Header only: the users
// link OpenSSL themselves.

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <climits>
#include <memory>
#include <string>
#include <string_view>

namespace util::openssl {

template <class T, void (*F)(T*)>
struct Free {
  void operator()(T* p) const { F(p); }
};
using Bio = std::unique_ptr<BIO, Free<BIO, BIO_free_all>>;
using Pkey = std::unique_ptr<EVP_PKEY, Free<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Free<X509, X509_free>>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, Free<EVP_MD_CTX, EVP_MD_CTX_free>>;
using EcdsaSig = std::unique_ptr<ECDSA_SIG, Free<ECDSA_SIG, ECDSA_SIG_free>>;
using Bignum = std::unique_ptr<BIGNUM, Free<BIGNUM, BN_free>>;

// `what`, with OpenSSL's first queued reason when there is one. Empties the queue so a
// failure here does not surface later in an unrelated TLS call on this thread.
inline std::string Error(std::string_view what) {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return std::string(what);
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return std::string(what) + ": " + buf;
}

// A read-only BIO over data (null when data is too large for one).
inline Bio MemoryBio(std::string_view data) {
  if (data.size() > INT_MAX) return nullptr;
  return Bio(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

// What a memory BIO holds.
inline std::string BioString(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(len));
}

}  // namespace util::openssl
