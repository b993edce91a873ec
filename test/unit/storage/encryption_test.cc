// Encryption at rest: the providers' formats (checked against other implementations'
// output), key rotation by order, identity before and after, the validation messages of
// EncryptionConfiguration, and the transforming KV under a Store.

#include <catch2/catch.hpp>

#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/store.h"
#include "pkg/genericserver/storage/transforming_kv.h"
#include "pkg/genericserver/storage/value/encryption_config.h"
#include "pkg/genericserver/storage/value/transformer.h"
#include "pkg/util/base64.h"
#include "test/unit/storage/harness.h"

namespace {

using storage::value::EncryptionConfig;
using storage::value::ParseEncryptionConfig;
using storage::value::TransformerPtr;

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

constexpr char kAAD[] = "/registry/secrets/default/s1";

// Base64 of 16 and 32 bytes.
const std::string kKey16 = util::Base64Encode("0123456789abcdef");
const std::string kKey32 = util::Base64Encode("0123456789abcdef0123456789abcdef");
const std::string kOther32 = util::Base64Encode("fedcba9876543210fedcba9876543210");

std::string Config(const std::string& providers, const std::string& resources = "[secrets]") {
  return "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"
         "resources:\n- resources: " +
         resources + "\n  providers:\n" + providers;
}

std::string Keyed(const std::string& type, const std::string& name, const std::string& secret) {
  return "  - " + type + ":\n      keys:\n      - name: " + name + "\n        secret: " + secret +
         "\n";
}

TransformerPtr SecretsTransformer(const std::string& text) {
  auto config = ParseEncryptionConfig(text);
  REQUIRE(config.has_value());
  auto t = config->ForResource("", "secrets");
  REQUIRE(t);
  return t;
}

}  // namespace

TEST_CASE("encryption: aescbc reads what openssl enc wrote, with upstream's prefixes") {
  auto t = SecretsTransformer(Config(Keyed("aescbc", "key1", kKey16)));
  // openssl enc -aes-128-cbc -K <"0123456789abcdef"> -iv <"fedcba9876543210">
  std::string stored = "k8s:enc:aescbc:v1:key1:fedcba9876543210" +
                       FromHex("8160843d97bd93aaee19c1c22b385990d77eb22814cf297701ee21f2be2740e0");
  auto plain = t->FromStorage(stored, kAAD);
  REQUIRE(plain.has_value());
  CHECK(plain->data == "hello, kubernetes");
  CHECK_FALSE(plain->stale);

  auto written = t->ToStorage("hello, kubernetes", kAAD);
  REQUIRE(written.has_value());
  CHECK(written->starts_with("k8s:enc:aescbc:v1:key1:"));
  // IV (16) and two blocks of padded ciphertext.
  CHECK(written->size() == std::string("k8s:enc:aescbc:v1:key1:").size() + 16 + 32);
  CHECK(*written != *t->ToStorage("hello, kubernetes", kAAD));  // a fresh IV each time
  CHECK(t->FromStorage(*written, kAAD)->data == "hello, kubernetes");
  // A corrupted last block fails its padding check.
  std::string broken = *written;
  broken.back() ^= 0x5a;
  CHECK_FALSE(t->FromStorage(broken, kAAD).has_value());
}

TEST_CASE("encryption: aesgcm reads what another implementation sealed, bound to the key") {
  auto t = SecretsTransformer(Config(Keyed("aesgcm", "k", kKey32)));
  // Python cryptography's AESGCM(key).encrypt(nonce, plaintext, aad), nonce in front.
  std::string stored =
      "k8s:enc:aesgcm:v1:k:" +
      FromHex(
          "6e6f6e63652d313262797465e5f0548ec3c34de7ef8259cede935b5e7a0e6df95c2fed1edfd30b0bdf"
          "fbfe7fec");
  auto plain = t->FromStorage(stored, kAAD);
  REQUIRE(plain.has_value());
  CHECK(plain->data == "hello, kubernetes");
  // The same bytes under another key do not open.
  auto moved = t->FromStorage(stored, "/registry/secrets/default/other");
  REQUIRE_FALSE(moved.has_value());
  CHECK(moved.error() == "cipher: message authentication failed");

  auto written = t->ToStorage("{}", kAAD);
  REQUIRE(written.has_value());
  CHECK(written->starts_with("k8s:enc:aesgcm:v1:k:"));
  CHECK(t->FromStorage(*written, kAAD)->data == "{}");
}

TEST_CASE("encryption: secretbox round trip, tampering detected") {
  auto t = SecretsTransformer(Config(Keyed("secretbox", "box", kKey32)));
  auto written = t->ToStorage("payload", kAAD);
  REQUIRE(written.has_value());
  CHECK(written->starts_with("k8s:enc:secretbox:v1:box:"));
  // nonce (24) + tag (16) + data
  CHECK(written->size() == std::string("k8s:enc:secretbox:v1:box:").size() + 24 + 16 + 7);
  CHECK(t->FromStorage(*written, kAAD)->data == "payload");
  std::string tampered = *written;
  tampered[tampered.size() - 3] ^= 1;
  CHECK_FALSE(t->FromStorage(tampered, kAAD).has_value());
}

TEST_CASE("encryption: key rotation by order, and identity on either side") {
  auto old_only = SecretsTransformer(Config(Keyed("aescbc", "key1", kKey32)));
  std::string by_key1 = *old_only->ToStorage("v", kAAD);

  // New key first, old second: old values read, as stale; new ones are written with key2.
  auto rotated = SecretsTransformer(
      Config(Keyed("aescbc", "key2", kOther32) + Keyed("aescbc", "key1", kKey32)));
  auto read = rotated->FromStorage(by_key1, kAAD);
  REQUIRE(read.has_value());
  CHECK(read->data == "v");
  CHECK(read->stale);
  std::string by_key2 = *rotated->ToStorage("v", kAAD);
  CHECK(by_key2.starts_with("k8s:enc:aescbc:v1:key2:"));
  CHECK_FALSE(rotated->FromStorage(by_key2, kAAD)->stale);

  // The old key gone: its values no longer read.
  auto new_only = SecretsTransformer(Config(Keyed("aescbc", "key2", kOther32)));
  auto lost = new_only->FromStorage(by_key1, kAAD);
  REQUIRE_FALSE(lost.has_value());
  CHECK(lost.error() == "no matching key was found for the provided AES transformer");

  // Decrypting away: identity first writes plain text and still reads encrypted values.
  auto away = SecretsTransformer(Config("  - identity: {}\n" + Keyed("aescbc", "key1", kKey32)));
  CHECK(*away->ToStorage("{\"a\":1}", kAAD) == "{\"a\":1}");
  read = away->FromStorage(by_key1, kAAD);
  REQUIRE(read.has_value());
  CHECK(read->data == "v");
  CHECK(read->stale);
  CHECK_FALSE(away->FromStorage("{\"a\":1}", kAAD)->stale);

  // Encrypting: identity last reads the plain values written before, as stale.
  auto toward = SecretsTransformer(Config(Keyed("aescbc", "key1", kKey32) + "  - identity: {}\n"));
  read = toward->FromStorage("{\"a\":1}", kAAD);
  REQUIRE(read.has_value());
  CHECK(read->stale);

  // Without identity, a plain value has no provider.
  auto plainless = old_only->FromStorage("{\"a\":1}", kAAD);
  REQUIRE_FALSE(plainless.has_value());
  CHECK(plainless.error() == "no matching prefix found");

  // Identity alone refuses what some provider encrypted (and, as upstream's, says only that
  // no provider matched); so does the bare identity reader.
  auto identity = SecretsTransformer(Config("  - identity: {}\n"));
  auto refused = identity->FromStorage(by_key1, kAAD);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error() == "no matching prefix found");
  refused = storage::value::NewIdentityTransformer()->FromStorage(by_key1, kAAD);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error() == "identity transformer tried to read encrypted data");
}

TEST_CASE("encryption: which resources a configuration covers") {
  std::string text =
      "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
      "- resources: [secrets, deployments.apps]\n  providers:\n" +
      Keyed("aesgcm", "a", kKey32) +
      "- resources: ['*.apps', 'widgets.example.com']\n  providers:\n" +
      Keyed("secretbox", "b", kKey32) + "- resources: ['*.*']\n  providers:\n" +
      Keyed("aescbc", "c", kKey32);
  auto config = ParseEncryptionConfig(text);
  REQUIRE(config.has_value());
  auto prefix_of = [&](std::string group, std::string resource) {
    auto t = config->ForResource(group, resource);
    REQUIRE(t);
    return t->ToStorage("x", "k")->substr(0, 18);
  };
  CHECK(prefix_of("", "secrets") == "k8s:enc:aesgcm:v1:");
  CHECK(prefix_of("apps", "deployments") == "k8s:enc:aesgcm:v1:");
  CHECK(prefix_of("apps", "statefulsets") == "k8s:enc:secretbox:");
  CHECK(prefix_of("example.com", "widgets") == "k8s:enc:secretbox:");
  CHECK(prefix_of("", "configmaps") == "k8s:enc:aescbc:v1:");
  CHECK(prefix_of("batch", "jobs") == "k8s:enc:aescbc:v1:");

  auto core_only = ParseEncryptionConfig(Config(Keyed("aescbc", "c", kKey32), "['*.']"));
  REQUIRE(core_only.has_value());
  CHECK(core_only->ForResource("", "configmaps"));
  CHECK_FALSE(core_only->ForResource("apps", "deployments"));
}

TEST_CASE("encryption: configurations refused with upstream's field errors") {
  auto error_of = [](const std::string& text) {
    auto config = ParseEncryptionConfig(text);
    REQUIRE_FALSE(config.has_value());
    return config.error();
  };
  CHECK(error_of(Config(Keyed("aescbc", "k", util::Base64Encode("short")))) ==
        "resources[0].providers[0].aescbc.keys[0].secret: Invalid value: \"REDACTED\": secret "
        "is not of the expected length, got 5, expected one of [16 24 32]");
  CHECK(error_of(Config(Keyed("secretbox", "k", kKey16))) ==
        "resources[0].providers[0].secretbox.keys[0].secret: Invalid value: \"REDACTED\": "
        "secret is not of the expected length, got 16, expected one of [32]");
  CHECK(error_of(Config(Keyed("aesgcm", "k", "not*base64"))) ==
        "resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secrets "
        "must be base64 encoded");
  CHECK(error_of(Config(Keyed("aesgcm", "\"\"", kKey32))) ==
        "resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory "
        "field for a key");
  CHECK(error_of(Config("  - {}\n")) ==
        "resources[0].providers[0]: Invalid value: {}: provider does not contain any of the "
        "expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity");
  CHECK(error_of(Config("  - identity: {}\n    aescbc: {keys: []}\n"))
            .find("more than one provider specified in a single element") != std::string::npos);
  CHECK(error_of(Config("  - identity: {}\n", "['*']")) ==
        "resources[0].resources[0]: Invalid value: \"*\": use '*.' to encrypt all the resources "
        "from core API group or *.* to encrypt all resources");
  CHECK(error_of(Config("  - identity: {}\n", "[Secrets]"))
            .find("resource name should not contain capital letters") != std::string::npos);
  CHECK(error_of(Config("  - identity: {}\n", "['secrets.*']"))
            .find("encrypting the same resource across groups is not supported") !=
        std::string::npos);
  CHECK(error_of(Config("  - identity: {}\n", "[events.events.k8s.io]"))
            .find("Use 'events' instead in the config file") != std::string::npos);
  CHECK(error_of(Config("  - identity: {}\n", "[secrets, '*.']")) ==
        "resources[0].resources: Invalid value: []string{\"secrets\", \"*.\"}: using overlapping "
        "resources such as 'secrets' and '*.' in the same resource list is not allowed as they "
        "will be masked");
  CHECK(error_of(Config("  - identity: {}\n", "[secrets, secrets]"))
            .find("the same resource cannot be specified multiple times") != std::string::npos);
  CHECK(error_of("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n") ==
        "resources: Required value: at least one resources is required");
  CHECK(error_of("apiVersion: v1\nkind: ConfigMap\n").find("no kind \"ConfigMap\"") == 0);
  // Several errors at once, in brackets.
  std::string two = error_of(Config("  - identity: {}\n", "[Secrets, '*']"));
  CHECK(two.front() == '[');
  CHECK(two.find("capital letters") != std::string::npos);
  CHECK(two.find("use '*.'") != std::string::npos);
}

TEST_CASE("encryption: a Store over the transforming KV keeps only ciphertext in the backend") {
  auto memory = storage::MemoryKV::New();
  auto kv = std::make_shared<storage::TransformingKV>(memory, "/registry");
  kv->SetTransformer("/configmaps/", SecretsTransformer(Config(Keyed("aesgcm", "k", kKey32))));
  storage::Store store(kv, "/registry");
  auto created =
      storagetest::Run(store.Create("/configmaps/ns/a", storagetest::ConfigMap("a", "hush")));
  REQUIRE(created.has_value());
  auto raw = storagetest::Run(memory->Range("/registry/configmaps/ns/a", {}));
  REQUIRE(raw.has_value());
  REQUIRE(raw->kvs.size() == 1);
  CHECK(raw->kvs[0].value->starts_with("k8s:enc:aesgcm:v1:k:"));
  CHECK(raw->kvs[0].value->find("hush") == std::string::npos);
  auto got = storagetest::Run(store.Get("/configmaps/ns/a", {}));
  REQUIRE(got.has_value());
  CHECK(storagetest::Parse(*got)["data"]["value"] == "hush");

  // Rotated: an update that changes nothing still writes, with the new key.
  kv->SetTransformer("/configmaps/", SecretsTransformer(Config(Keyed("aesgcm", "k2", kOther32) +
                                                               Keyed("aesgcm", "k", kKey32))));
  storage::UpdateFunc same =
      [](const storage::ObjectPtr& existing) -> Awaitable<storage::Result<std::string>> {
    co_return *existing->json;
  };
  auto updated = storagetest::Run(store.GuaranteedUpdate("/configmaps/ns/a", {}, false, same, {}));
  REQUIRE(updated.has_value());
  CHECK(storagetest::RV(*updated) != storagetest::RV(*created));
  raw = storagetest::Run(memory->Range("/registry/configmaps/ns/a", {}));
  CHECK(raw->kvs[0].value->starts_with("k8s:enc:aesgcm:v1:k2:"));
  // Now current: the same no-op writes nothing.
  auto again = storagetest::Run(store.GuaranteedUpdate("/configmaps/ns/a", {}, false, same, {}));
  REQUIRE(again.has_value());
  CHECK(storagetest::RV(*again) == storagetest::RV(*updated));

  // A value the configuration cannot read is an internal error naming the key.
  kv->SetTransformer("/configmaps/", SecretsTransformer(Config(Keyed("aesgcm", "k3", kKey32))));
  auto unreadable = storagetest::Run(store.Get("/configmaps/ns/a", {}));
  REQUIRE_FALSE(unreadable.has_value());
  CHECK(unreadable.error().code == storage::ErrorCode::kInternal);
  CHECK(unreadable.error().message ==
        "unable to transform key \"/registry/configmaps/ns/a\": no matching key was found for "
        "the provided AES transformer");
}
