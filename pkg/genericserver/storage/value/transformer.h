#pragma once
// Transformers of stored values, as upstream's storage/value package: what storage writes
// for an object's bytes and how it reads them back. Encryption at rest is a list of
// prefixed transformers per resource (--encryption-provider-config): writes use the
// first, reads the one whose prefix ("k8s:enc:aescbc:v1:<key name>:") the value has.
//
// Thread-safety: transformers are immutable once made; any thread may use them at once.

#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace storage::value {

struct Plain {
  std::string data;
  // Read by another transformer than the one writes use (a rotated key, a provider being
  // migrated away from): the value should be written again even when it did not change.
  bool stale = false;
};

class Transformer {
 public:
  virtual ~Transformer() = default;
  // authenticated_data: bytes the ciphertext is bound to (the value's storage key), so a
  // value copied under another key does not read; providers without it ignore it.
  virtual std::expected<Plain, std::string> FromStorage(
      std::string_view stored, std::string_view authenticated_data) const = 0;
  virtual std::expected<std::string, std::string> ToStorage(
      std::string_view plain, std::string_view authenticated_data) const = 0;
};
using TransformerPtr = std::shared_ptr<const Transformer>;

struct PrefixTransformer {
  std::string prefix;  // "" for identity: it claims every value
  TransformerPtr transformer;
  std::string metric_prefix;  // the transformer_prefix label of the metrics; "" for none
};

// Writes with the first of list, prefix in front. Reads with each transformer in turn
// whose prefix the value has, until one succeeds (two entries may share a prefix, e.g.
// the same provider with the new and the old key); a read by any but the first is stale.
// No match: no_match_error, or the errors of the ones that tried, joined.
TransformerPtr NewPrefixTransformers(std::vector<PrefixTransformer> list,
                                     std::string no_match_error);

// Passes values through, but refuses to read one that starts with "k8s:enc:": it was
// encrypted by a provider this configuration does not have.
TransformerPtr NewIdentityTransformer();

// The three below return nullptr for a key of the wrong size (AES: 16, 24 or 32 bytes;
// secretbox: 32).
// AES in CBC mode with PKCS#7 padding, a random IV in front (no authentication).
TransformerPtr NewAESCBCTransformer(std::string key);
// AES-GCM with a random 12-byte nonce in front and the tag after, bound to the
// authenticated data.
TransformerPtr NewAESGCMTransformer(std::string key);
// NaCl secretbox (XSalsa20 and Poly1305) with a random 24-byte nonce in front.
TransformerPtr NewSecretboxTransformer(std::string key);

inline constexpr std::string_view kEncryptedPrefix = "k8s:enc:";

}  // namespace storage::value
