#include "pkg/controller/bootstrap/detached_jws.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <climits>

#include <nlohmann/json.hpp>

#include "pkg/util/base64.h"
#include "pkg/util/openssl.h"

namespace controller::bootstrap {

std::expected<std::string, std::string> ComputeDetachedSignature(std::string_view content,
                                                                 std::string_view token_id,
                                                                 std::string_view token_secret) {
  // The protected header as go-jose writes it: its keys in sorted order, no spaces.
  const std::string header =
      "{\"alg\":\"HS256\",\"kid\":" + nlohmann::json(std::string(token_id)).dump() + "}";
  const std::string encoded_header = util::Base64RawURLEncode(header);
  const std::string signing_input = encoded_header + "." + util::Base64RawURLEncode(content);
  if (token_secret.size() > INT_MAX) return std::unexpected(std::string("token secret too long"));
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  // An empty key still needs a non-null pointer for OpenSSL.
  static const unsigned char kNoKey = 0;
  const unsigned char* key =
      token_secret.empty() ? &kNoKey : reinterpret_cast<const unsigned char*>(token_secret.data());
  if (!HMAC(EVP_sha256(), key, static_cast<int>(token_secret.size()),
            reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), mac,
            &mac_len)) {
    return std::unexpected(util::openssl::Error("can't HS256-sign the given token"));
  }
  const std::string signature(reinterpret_cast<const char*>(mac), mac_len);
  return encoded_header + ".." + util::Base64RawURLEncode(signature);
}

}  // namespace controller::bootstrap
