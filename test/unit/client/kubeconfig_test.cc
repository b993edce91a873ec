// Loading kubeconfig files (pkg/client/kubeconfig): contexts, clusters and users as
// clientcmd resolves them, files relative to the kubeconfig, overrides, and every
// configuration error reported at once.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pkg/client/kubeconfig.h"
#include "pkg/util/base64.h"

namespace fs = std::filesystem;

namespace {

const char kCA[] = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const char kCert[] = "-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n";
const char kKey[] = "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n";

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/kubeconfig-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) const {
    const std::string file = (fs::path(path) / name).string();
    std::ofstream(file) << text;
    return file;
  }
  std::string path;
};

std::string TwoContexts() {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: local\n"
         "  cluster:\n"
         "    server: https://127.0.0.1:6443\n"
         "    certificate-authority-data: " +
         util::Base64Encode(kCA) +
         "\n"
         "- name: other\n"
         "  cluster:\n"
         "    server: https://10.0.0.1:443\n"
         "    insecure-skip-tls-verify: true\n"
         "    tls-server-name: api.example.com\n"
         "users:\n"
         "- name: admin\n"
         "  user:\n"
         "    client-certificate-data: " +
         util::Base64Encode(kCert) + "\n    client-key-data: " + util::Base64Encode(kKey) +
         "\n"
         "- name: robot\n"
         "  user:\n"
         "    token: abc.def\n"
         "contexts:\n"
         "- name: admin@local\n"
         "  context: {cluster: local, user: admin}\n"
         "- name: robot@other\n"
         "  context: {cluster: other, user: robot, namespace: tools}\n"
         "current-context: admin@local\n";
}

}  // namespace

TEST_CASE("kubeconfig: the current context's cluster and user", "[client][kubeconfig]") {
  auto config = client::ParseKubeconfig(TwoContexts(), "");
  REQUIRE(config);
  CHECK(config->host == "https://127.0.0.1:6443");
  CHECK(config->ca_pem == kCA);
  CHECK(config->cert_pem == kCert);
  CHECK(config->key_pem == kKey);
  CHECK(config->bearer_token.empty());
  CHECK_FALSE(config->insecure_skip_tls_verify);
  CHECK(config->namespace_name == "default");
}

TEST_CASE("kubeconfig: a chosen context, and --master over the cluster's server",
          "[client][kubeconfig]") {
  auto config = client::ParseKubeconfig(TwoContexts(), "", {.context = "robot@other"});
  REQUIRE(config);
  CHECK(config->host == "https://10.0.0.1:443");
  CHECK(config->insecure_skip_tls_verify);
  CHECK(config->tls_server_name == "api.example.com");
  CHECK(config->bearer_token == "abc.def");
  CHECK(config->cert_pem.empty());
  CHECK(config->namespace_name == "tools");

  auto mastered = client::ParseKubeconfig(TwoContexts(), "", {.master = "https://1.2.3.4:6443"});
  REQUIRE(mastered);
  CHECK(mastered->host == "https://1.2.3.4:6443");
  CHECK(mastered->cert_pem == kCert);
}

TEST_CASE("kubeconfig: file paths are relative to the kubeconfig's directory",
          "[client][kubeconfig]") {
  TempDir dir;
  dir.Write("ca.crt", kCA);
  fs::create_directory(fs::path(dir.path) / "pki");
  dir.Write("pki/client.crt", kCert);
  dir.Write("pki/client.key", kKey);
  dir.Write("token", "  tok-123\n");
  const std::string path = dir.Write("config",
                                     "clusters:\n"
                                     "- name: c\n"
                                     "  cluster:\n"
                                     "    server: https://127.0.0.1:1\n"
                                     "    certificate-authority: ca.crt\n"
                                     "users:\n"
                                     "- name: u\n"
                                     "  user:\n"
                                     "    client-certificate: pki/client.crt\n"
                                     "    client-key: " +
                                         dir.path + "/pki/client.key\n" +
                                         "- name: t\n"
                                         "  user:\n"
                                         "    tokenFile: token\n"
                                         "contexts:\n"
                                         "- name: cert\n"
                                         "  context: {cluster: c, user: u}\n"
                                         "- name: token\n"
                                         "  context: {cluster: c, user: t}\n"
                                         "current-context: cert\n");
  auto config = client::LoadKubeconfig(path);
  REQUIRE(config);
  CHECK(config->ca_pem == kCA);
  CHECK(config->cert_pem == kCert);
  CHECK(config->key_pem == kKey);
  auto token = client::LoadKubeconfig(path, {.context = "token"});
  REQUIRE(token);
  CHECK(token->bearer_token == "tok-123");
}

TEST_CASE("kubeconfig: errors as clientcmd words them, all at once", "[client][kubeconfig]") {
  auto missing = client::LoadKubeconfig("/nonexistent/kubeconfig");
  REQUIRE_FALSE(missing);
  CHECK(missing.error() == "open /nonexistent/kubeconfig: No such file or directory");

  auto empty = client::ParseKubeconfig("", "");
  REQUIRE_FALSE(empty);
  CHECK(empty.error() ==
        "invalid configuration: no configuration has been provided, try setting "
        "KUBERNETES_MASTER environment variable");

  auto no_context = client::ParseKubeconfig(TwoContexts(), "", {.context = "nope"});
  REQUIRE_FALSE(no_context);
  CHECK(no_context.error() ==
        "invalid configuration: [context was not found for specified context: nope, cluster "
        "has no server defined]");

  auto broken = client::ParseKubeconfig(
      "clusters:\n"
      "- name: c\n"
      "  cluster:\n"
      "    server: https://127.0.0.1:1\n"
      "    insecure-skip-tls-verify: true\n"
      "    certificate-authority-data: " +
          util::Base64Encode(kCA) +
          "\n"
          "users:\n"
          "- name: u\n"
          "  user:\n"
          "    client-certificate-data: " +
          util::Base64Encode(kCert) +
          "\n"
          "contexts:\n"
          "- name: x\n"
          "  context: {cluster: c, user: u}\n"
          "current-context: x\n",
      "");
  REQUIRE_FALSE(broken);
  CHECK(broken.error() ==
        "invalid configuration: [specifying a root certificates file with the insecure flag "
        "is not allowed, client-certificate-data or client-certificate is specified for \"u\" "
        "but client-key-data or client-key is not]");

  auto bad_yaml = client::ParseKubeconfig("clusters: [\n", "");
  REQUIRE_FALSE(bad_yaml);
  CHECK(bad_yaml.error().starts_with("error loading config: yaml: "));
}
