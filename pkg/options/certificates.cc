#include "pkg/options/certificates.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "pkg/pki/pki.h"
#include "pkg/util/file.h"
#include "pkg/util/log.h"

namespace options {
namespace {

namespace fs = std::filesystem;
constexpr auto kCAValidity = std::chrono::hours(24 * 365 * 10);
constexpr auto kLeafValidity = std::chrono::hours(24 * 365);
constexpr auto kRenewBefore = std::chrono::hours(24 * 30);

std::expected<void, std::string> Write(const std::string& cert_path, const std::string& key_path,
                                       const pki::KeyPair& pair) {
  // Key first: a certificate on disk always has its key.
  if (auto r = util::WriteFileAtomic(key_path, pair.key_pem, 0600); !r) return r;
  return util::WriteFileAtomic(cert_path, pair.cert_pem, 0644);
}

// The pair on disk, or the reason it must be made again.
std::expected<pki::KeyPair, std::string> LoadLeaf(const std::string& cert_path,
                                                  const std::string& key_path,
                                                  const pki::KeyPair& ca) {
  auto cert = util::ReadFile(cert_path);
  auto key = util::ReadFile(key_path);
  if (!cert || !key) return std::unexpected("missing");
  if (!pki::KeyMatches(*cert, *key)) return std::unexpected("its key does not match");
  if (!pki::IssuedBy(*cert, ca.cert_pem)) return std::unexpected("not signed by the current CA");
  auto info = pki::ParseCertificate(*cert);
  if (!info) return std::unexpected(info.error());
  if (info->not_after < std::chrono::system_clock::now() + kRenewBefore) {
    return std::unexpected("it expires within 30 days");
  }
  return pki::KeyPair{*cert, *key};
}

// name: what the log says and the CN prefix of a new CA.
std::expected<pki::KeyPair, std::string> EnsureCA(const std::string& name,
                                                  const std::string& cert_path,
                                                  const std::string& key_path) {
  const bool have_cert = fs::exists(cert_path), have_key = fs::exists(key_path);
  if (have_cert != have_key) {
    return std::unexpected("found only one of " + cert_path + " and " + key_path +
                           "; restore the other or remove both to generate a new CA");
  }
  if (!have_cert) {
    KLOG_INFO << "generating the " << name << " in " << cert_path;
    auto ca = pki::GenerateCA(name + "@" + std::to_string(std::time(nullptr)), kCAValidity);
    if (!ca) return std::unexpected(ca.error());
    if (auto r = Write(cert_path, key_path, *ca); !r) return std::unexpected(r.error());
    return ca;
  }
  auto cert = util::ReadFile(cert_path);
  auto key = util::ReadFile(key_path);
  if (!cert) return std::unexpected(cert.error());
  if (!key) return std::unexpected(key.error());
  auto info = pki::ParseCertificate(*cert);
  if (!info || !info->is_ca || !pki::KeyMatches(*cert, *key)) {
    return std::unexpected(cert_path + " and " + key_path + " are not a CA and its key");
  }
  if (info->not_after < std::chrono::system_clock::now()) {
    return std::unexpected("the CA " + cert_path + " has expired; remove " + cert_path + " and " +
                           key_path + " to generate a new one");
  }
  return pki::KeyPair{*cert, *key};
}

bool Covers(const pki::CertInfo& info, const PKIRequest& request) {
  for (const std::string& d : request.dns_names) {
    if (std::ranges::find(info.dns_names, d) == info.dns_names.end()) return false;
  }
  for (const std::string& ip : request.ips) {
    if (std::ranges::find(info.ip_addresses, pki::CanonicalIP(ip)) == info.ip_addresses.end()) {
      return false;
    }
  }
  return true;
}

std::expected<void, std::string> EnsureLeaf(const std::string& what, const std::string& cert_path,
                                            const std::string& key_path, const pki::KeyPair& ca,
                                            const pki::CertRequest& request,
                                            const PKIRequest* must_cover) {
  auto existing = LoadLeaf(cert_path, key_path, ca);
  std::string reason = existing ? "" : existing.error();
  if (existing && must_cover) {
    auto info = pki::ParseCertificate(existing->cert_pem);
    if (!info || !Covers(*info, *must_cover)) reason = "a host name or address is not covered";
  }
  if (reason.empty()) return {};
  KLOG_INFO << "generating the " << what << " certificate " << cert_path << " (" << reason << ")";
  auto pair = pki::GenerateSigned(ca, request);
  if (!pair) return std::unexpected(pair.error());
  return Write(cert_path, key_path, *pair);
}

}  // namespace

std::expected<PKIFiles, std::string> EnsurePKI(const PKIRequest& request) {
  std::error_code ec;
  fs::create_directories(request.cert_dir, ec);
  if (ec) return std::unexpected("creating " + request.cert_dir + ": " + ec.message());
  ::chmod(request.cert_dir.c_str(), 0700);

  PKIFiles files;
  const std::string dir = (fs::path(request.cert_dir) / "").string();
  files.ca_cert = dir + "ca.crt";
  files.ca_key = dir + "ca.key";
  auto ca = EnsureCA("kube-apiserver-ca", files.ca_cert, files.ca_key);
  if (!ca) return std::unexpected(ca.error());

  if (request.generate_serving) {
    files.serving_cert = dir + "apiserver.crt";
    files.serving_key = dir + "apiserver.key";
    pki::CertRequest serving;
    serving.common_name = "kube-apiserver";
    serving.dns_names = request.dns_names;
    serving.ip_addresses = request.ips;
    serving.server_auth = true;
    serving.validity = kLeafValidity;
    if (auto r =
            EnsureLeaf("serving", files.serving_cert, files.serving_key, *ca, serving, &request);
        !r) {
      return std::unexpected(r.error());
    }
  }

  // The service-account signing key: made once, never rotated here (tokens it signed stay
  // valid until they expire).
  files.service_account_key = dir + "sa.key";
  if (!fs::exists(files.service_account_key)) {
    KLOG_INFO << "generating the service-account signing key " << files.service_account_key;
    auto key = pki::GeneratePrivateKey();
    if (!key) return std::unexpected(key.error());
    if (auto r = util::WriteFileAtomic(files.service_account_key, *key, 0600); !r) {
      return std::unexpected(r.error());
    }
  }

  files.admin_cert = dir + "admin.crt";
  files.admin_key = dir + "admin.key";
  pki::CertRequest admin;
  admin.common_name = "admin";
  admin.organizations = {"system:masters"};
  admin.client_auth = true;
  admin.validity = kLeafValidity;
  if (auto r = EnsureLeaf("admin client", files.admin_cert, files.admin_key, *ca, admin, nullptr);
      !r) {
    return std::unexpected(r.error());
  }

  files.controller_manager_cert = dir + "controller-manager.crt";
  files.controller_manager_key = dir + "controller-manager.key";
  pki::CertRequest controller_manager;
  controller_manager.common_name = kControllerManagerUser;
  controller_manager.client_auth = true;
  controller_manager.validity = kLeafValidity;
  if (auto r = EnsureLeaf("controller-manager client", files.controller_manager_cert,
                          files.controller_manager_key, *ca, controller_manager, nullptr);
      !r) {
    return std::unexpected(r.error());
  }

  // The front proxy: its own CA, so that a certificate trusted for request headers is never
  // an ordinary client identity, and the client certificate the aggregator presents.
  if (request.generate_front_proxy) {
    files.front_proxy_ca_cert = dir + "front-proxy-ca.crt";
    files.front_proxy_ca_key = dir + "front-proxy-ca.key";
    auto front_proxy_ca =
        EnsureCA("front-proxy-ca", files.front_proxy_ca_cert, files.front_proxy_ca_key);
    if (!front_proxy_ca) return std::unexpected(front_proxy_ca.error());
    files.front_proxy_client_cert = dir + "front-proxy-client.crt";
    files.front_proxy_client_key = dir + "front-proxy-client.key";
    pki::CertRequest client;
    client.common_name = kFrontProxyClientName;
    client.client_auth = true;
    client.validity = kLeafValidity;
    if (auto r = EnsureLeaf("front-proxy client", files.front_proxy_client_cert,
                            files.front_proxy_client_key, *front_proxy_ca, client, nullptr);
        !r) {
      return std::unexpected(r.error());
    }
  }
  return files;
}

}  // namespace options
