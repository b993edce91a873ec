#include "pkg/genericserver/storage/value/transformer.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sodium.h>

#include "pkg/genericserver/storage/value/metrics.h"
#include "pkg/util/strings.h"

namespace storage::value {
namespace {

using Bytes = unsigned char*;
using ConstBytes = const unsigned char*;

ConstBytes In(std::string_view s) { return reinterpret_cast<ConstBytes>(s.data()); }
Bytes Out(std::string& s, size_t at) { return reinterpret_cast<Bytes>(s.data() + at); }

std::unexpected<std::string> Failure(std::string message) {
  return std::unexpected(std::move(message));
}

class PrefixTransformers final : public Transformer {
 public:
  PrefixTransformers(std::vector<PrefixTransformer> list, std::string no_match_error)
      : list_(std::move(list)), no_match_error_(std::move(no_match_error)) {}

  std::expected<Plain, std::string> FromStorage(std::string_view stored,
                                                std::string_view aad) const override {
    std::vector<std::string> errors;
    for (size_t i = 0; i < list_.size(); ++i) {
      const PrefixTransformer& t = list_[i];
      if (!stored.starts_with(t.prefix)) continue;
      auto plain = t.transformer->FromStorage(stored.substr(t.prefix.size()), aad);
      // An identity entry before an encrypting one (migrating away from encryption)
      // refuses encrypted values; the next entries still get to try them.
      if (t.prefix.empty() && !plain) continue;
      if (!t.metric_prefix.empty()) {
        CountTransformation("from_storage", t.metric_prefix, plain.has_value());
      }
      if (!plain) {
        errors.push_back(std::move(plain.error()));
        continue;
      }
      plain->stale = plain->stale || i != 0;
      return plain;
    }
    if (!errors.empty()) return Failure(util::Join(errors, ", "));
    return Failure(no_match_error_);
  }

  std::expected<std::string, std::string> ToStorage(std::string_view plain,
                                                    std::string_view aad) const override {
    const PrefixTransformer& first = list_.front();
    auto stored = first.transformer->ToStorage(plain, aad);
    if (!first.metric_prefix.empty()) {
      CountTransformation("to_storage", first.metric_prefix, stored.has_value());
    }
    if (!stored) return stored;
    return first.prefix + *stored;
  }

 private:
  std::vector<PrefixTransformer> list_;
  std::string no_match_error_;
};

class Identity final : public Transformer {
 public:
  std::expected<Plain, std::string> FromStorage(std::string_view stored,
                                                std::string_view) const override {
    if (stored.starts_with(kEncryptedPrefix)) {
      return Failure("identity transformer tried to read encrypted data");
    }
    return Plain{std::string(stored), false};
  }
  std::expected<std::string, std::string> ToStorage(std::string_view plain,
                                                    std::string_view) const override {
    return std::string(plain);
  }
};

struct CipherContext {
  CipherContext() : ctx(EVP_CIPHER_CTX_new()) {}
  ~CipherContext() { EVP_CIPHER_CTX_free(ctx); }
  CipherContext(const CipherContext&) = delete;
  CipherContext& operator=(const CipherContext&) = delete;
  EVP_CIPHER_CTX* ctx;
};

const EVP_CIPHER* AESCipher(size_t key_size, bool gcm) {
  switch (key_size) {
    case 16:
      return gcm ? EVP_aes_128_gcm() : EVP_aes_128_cbc();
    case 24:
      return gcm ? EVP_aes_192_gcm() : EVP_aes_192_cbc();
    case 32:
      return gcm ? EVP_aes_256_gcm() : EVP_aes_256_cbc();
    default:
      return nullptr;
  }
}

constexpr size_t kBlockSize = 16;
constexpr size_t kGCMNonceSize = 12;
constexpr size_t kGCMTagSize = 16;
constexpr char kShort[] = "the stored data was shorter than the required size";

class AESCBC final : public Transformer {
 public:
  explicit AESCBC(std::string key) : key_(std::move(key)), cipher_(AESCipher(key_.size(), false)) {}

  std::expected<Plain, std::string> FromStorage(std::string_view stored,
                                                std::string_view) const override {
    if (stored.size() < kBlockSize) return Failure(kShort);
    if (stored.size() % kBlockSize != 0) {
      return Failure("the stored data is not a multiple of the block size");
    }
    std::string_view body = stored.substr(kBlockSize);
    Plain plain;
    plain.data.resize(body.size() + kBlockSize);
    CipherContext c;
    int n = 0, last = 0;
    if (EVP_DecryptInit_ex(c.ctx, cipher_, nullptr, In(key_), In(stored)) != 1 ||
        EVP_DecryptUpdate(c.ctx, Out(plain.data, 0), &n, In(body), static_cast<int>(body.size())) !=
            1 ||
        EVP_DecryptFinal_ex(c.ctx, Out(plain.data, n), &last) != 1) {
      return Failure("invalid padding on input");
    }
    plain.data.resize(static_cast<size_t>(n + last));
    return plain;
  }

  std::expected<std::string, std::string> ToStorage(std::string_view plain,
                                                    std::string_view) const override {
    std::string out(kBlockSize + plain.size() + kBlockSize, '\0');
    if (RAND_bytes(Out(out, 0), kBlockSize) != 1)
      return Failure("unable to read sufficient random bytes");
    CipherContext c;
    int n = 0, last = 0;
    if (EVP_EncryptInit_ex(c.ctx, cipher_, nullptr, In(key_), Out(out, 0)) != 1 ||
        EVP_EncryptUpdate(c.ctx, Out(out, kBlockSize), &n, In(plain),
                          static_cast<int>(plain.size())) != 1 ||
        EVP_EncryptFinal_ex(c.ctx, Out(out, kBlockSize + n), &last) != 1) {
      return Failure("aes-cbc encryption failed");
    }
    out.resize(kBlockSize + static_cast<size_t>(n + last));
    return out;
  }

 private:
  std::string key_;
  const EVP_CIPHER* cipher_;
};

class AESGCM final : public Transformer {
 public:
  explicit AESGCM(std::string key) : key_(std::move(key)), cipher_(AESCipher(key_.size(), true)) {}

  std::expected<Plain, std::string> FromStorage(std::string_view stored,
                                                std::string_view aad) const override {
    if (stored.size() < kGCMNonceSize + kGCMTagSize) return Failure(kShort);
    std::string_view body =
        stored.substr(kGCMNonceSize, stored.size() - kGCMNonceSize - kGCMTagSize);
    std::string tag(stored.substr(stored.size() - kGCMTagSize));
    Plain plain;
    plain.data.resize(body.size() + kBlockSize);
    CipherContext c;
    int n = 0, ignored = 0, last = 0;
    if (EVP_DecryptInit_ex(c.ctx, cipher_, nullptr, In(key_), In(stored)) != 1 ||
        EVP_DecryptUpdate(c.ctx, nullptr, &ignored, In(aad), static_cast<int>(aad.size())) != 1 ||
        EVP_DecryptUpdate(c.ctx, Out(plain.data, 0), &n, In(body), static_cast<int>(body.size())) !=
            1 ||
        EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_GCM_SET_TAG, kGCMTagSize, tag.data()) != 1 ||
        EVP_DecryptFinal_ex(c.ctx, Out(plain.data, n), &last) != 1) {
      return Failure("cipher: message authentication failed");
    }
    plain.data.resize(static_cast<size_t>(n + last));
    return plain;
  }

  std::expected<std::string, std::string> ToStorage(std::string_view plain,
                                                    std::string_view aad) const override {
    std::string out(kGCMNonceSize + plain.size() + kBlockSize + kGCMTagSize, '\0');
    if (RAND_bytes(Out(out, 0), kGCMNonceSize) != 1)
      return Failure("unable to read sufficient random bytes");
    CipherContext c;
    int n = 0, ignored = 0, last = 0;
    if (EVP_EncryptInit_ex(c.ctx, cipher_, nullptr, In(key_), Out(out, 0)) != 1 ||
        EVP_EncryptUpdate(c.ctx, nullptr, &ignored, In(aad), static_cast<int>(aad.size())) != 1 ||
        EVP_EncryptUpdate(c.ctx, Out(out, kGCMNonceSize), &n, In(plain),
                          static_cast<int>(plain.size())) != 1 ||
        EVP_EncryptFinal_ex(c.ctx, Out(out, kGCMNonceSize + n), &last) != 1) {
      return Failure("aes-gcm encryption failed");
    }
    size_t end = kGCMNonceSize + static_cast<size_t>(n + last);
    if (EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_GCM_GET_TAG, kGCMTagSize, Out(out, end)) != 1) {
      return Failure("aes-gcm encryption failed");
    }
    out.resize(end + kGCMTagSize);
    return out;
  }

 private:
  std::string key_;
  const EVP_CIPHER* cipher_;
};

class Secretbox final : public Transformer {
 public:
  explicit Secretbox(std::string key) : key_(std::move(key)) {}

  std::expected<Plain, std::string> FromStorage(std::string_view stored,
                                                std::string_view) const override {
    if (stored.size() < crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES) {
      return Failure(kShort);
    }
    std::string_view box = stored.substr(crypto_secretbox_NONCEBYTES);
    Plain plain;
    plain.data.resize(box.size() - crypto_secretbox_MACBYTES);
    if (crypto_secretbox_open_easy(Out(plain.data, 0), In(box), box.size(), In(stored), In(key_)) !=
        0) {
      return Failure("secretbox: message authentication failed");
    }
    return plain;
  }

  std::expected<std::string, std::string> ToStorage(std::string_view plain,
                                                    std::string_view) const override {
    std::string out(crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + plain.size(), '\0');
    if (RAND_bytes(Out(out, 0), crypto_secretbox_NONCEBYTES) != 1) {
      return Failure("unable to read sufficient random bytes");
    }
    crypto_secretbox_easy(Out(out, crypto_secretbox_NONCEBYTES), In(plain), plain.size(),
                          Out(out, 0), In(key_));
    return out;
  }

 private:
  std::string key_;
};

}  // namespace

TransformerPtr NewPrefixTransformers(std::vector<PrefixTransformer> list,
                                     std::string no_match_error) {
  return std::make_shared<PrefixTransformers>(std::move(list), std::move(no_match_error));
}

TransformerPtr NewIdentityTransformer() { return std::make_shared<Identity>(); }

TransformerPtr NewAESCBCTransformer(std::string key) {
  if (!AESCipher(key.size(), false)) return nullptr;
  return std::make_shared<AESCBC>(std::move(key));
}

TransformerPtr NewAESGCMTransformer(std::string key) {
  if (!AESCipher(key.size(), true)) return nullptr;
  return std::make_shared<AESGCM>(std::move(key));
}

TransformerPtr NewSecretboxTransformer(std::string key) {
  if (key.size() != crypto_secretbox_KEYBYTES || sodium_init() < 0) return nullptr;
  return std::make_shared<Secretbox>(std::move(key));
}

}  // namespace storage::value
