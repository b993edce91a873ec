#include "test/unit/storage/etcd_fixture.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pkg/genericserver/storage/store.h"
#include "pkg/pki/pki.h"
#include "pkg/util/file.h"

namespace storagetest {
namespace {

constexpr const char* kEtcdBinary = "/usr/bin/etcd";

// A fresh directory, in memory when /dev/shm is there (etcd fsyncs every write).
std::string MakeDataDir() {
  for (const char* base : {"/dev/shm", "/tmp"}) {
    std::string tmpl = std::string(base) + "/kas-etcd-XXXXXX";
    if (::mkdtemp(tmpl.data())) return tmpl;
  }
  throw std::runtime_error("cannot make a directory for etcd");
}

class EtcdProcess {
 public:
  EtcdProcess() {
    std::string last_error;
    for (int attempt = 0; attempt < 3; ++attempt) {  // another process may take a port
      if (Start(last_error)) return;
      Stop();
    }
    throw std::runtime_error("cannot start " + std::string(kEtcdBinary) + ": " + last_error);
  }
  ~EtcdProcess() { Stop(); }

  const std::string& endpoint() const { return endpoint_; }
  const std::string& tls_endpoint() const { return tls_endpoint_; }
  storage::etcd3::TlsConfig tls_files() const {
    return {dir_ + "/ca.crt", dir_ + "/client.crt", dir_ + "/client.key"};
  }

 private:
  // A CA, etcd's serving certificate (also for client use: its gateway dials its own gRPC
  // server with it) and a client certificate, under dir_.
  bool WriteCertificates(std::string& error) {
    auto ca = pki::GenerateCA("etcd-test-ca", std::chrono::hours(24));
    if (!ca) return (error = ca.error(), false);
    pki::CertRequest server_request;
    server_request.common_name = "etcd";
    server_request.dns_names = {"localhost"};
    server_request.ip_addresses = {"127.0.0.1"};
    server_request.server_auth = true;
    server_request.client_auth = true;
    auto server = pki::GenerateSigned(*ca, server_request);
    pki::CertRequest client_request;
    client_request.common_name = "kube-apiserver";
    client_request.client_auth = true;
    auto client = pki::GenerateSigned(*ca, client_request);
    if (!server || !client) return (error = "cannot make etcd's certificates", false);
    for (const auto& [name, content] : {std::pair<std::string, std::string>{"ca.crt", ca->cert_pem},
                                        {"server.crt", server->cert_pem},
                                        {"server.key", server->key_pem},
                                        {"client.crt", client->cert_pem},
                                        {"client.key", client->key_pem}}) {
      if (auto r = util::WriteFileAtomic(dir_ + "/" + name, content, 0600); !r) {
        return (error = r.error(), false);
      }
    }
    return true;
  }

  bool Start(std::string& error) {
    dir_ = MakeDataDir();
    if (!WriteCertificates(error)) return false;
    const int client_port = FreePort();
    int peer_port = FreePort();
    while (peer_port == client_port) peer_port = FreePort();
    int tls_port = FreePort();
    while (tls_port == client_port || tls_port == peer_port) tls_port = FreePort();
    endpoint_ = "http://127.0.0.1:" + std::to_string(client_port);
    tls_endpoint_ = "https://127.0.0.1:" + std::to_string(tls_port);
    const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port);
    std::vector<std::string> args = {
        kEtcdBinary,
        "--name=test",
        "--data-dir=" + dir_ + "/data",
        "--listen-client-urls=" + endpoint_ + "," + tls_endpoint_,
        "--advertise-client-urls=" + endpoint_,
        "--listen-peer-urls=" + peer,
        "--initial-advertise-peer-urls=" + peer,
        "--initial-cluster=test=" + peer,
        "--cert-file=" + dir_ + "/server.crt",
        "--key-file=" + dir_ + "/server.key",
        "--trusted-ca-file=" + dir_ + "/ca.crt",
        "--client-cert-auth=true",
        "--experimental-watch-progress-notify-interval=1s",
        "--log-level=warn",
    };
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = dir_ + "/etcd.log";
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) {
      error = "fork failed";
      return false;
    }
    if (pid_ == 0) {
      // Only async-signal-safe calls from here on. Die with the test binary.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::execv(kEtcdBinary, argv.data());
      ::_exit(127);
    }
    // Up when /v3/maintenance/status answers.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        error = "etcd exited at start (see its log in " + log + ")";
        return false;
      }
      storage::EtcdOptions options;
      options.endpoints = {endpoint_};
      options.request_timeout = std::chrono::seconds(2);
      auto kv = storage::EtcdKV::Open(options);
      if (kv) return true;
      error = kv.error();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  void Stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      // The last member of a cluster may take long to stop on TERM.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      bool reaped = false;
      while (!reaped && std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        reaped = ::waitpid(pid_, &status, WNOHANG) == pid_;
        if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (!reaped) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
      }
      pid_ = -1;
    }
    if (!dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
      dir_.clear();
    }
  }

  pid_t pid_ = -1;
  std::string dir_;
  std::string endpoint_;
  std::string tls_endpoint_;
};

std::mutex etcd_mu;
std::unique_ptr<EtcdProcess> etcd;  // destroyed at exit, which stops the process

}  // namespace

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

const std::string& EtcdEndpoint() {
  std::lock_guard lock(etcd_mu);
  if (!etcd) etcd = std::make_unique<EtcdProcess>();
  return etcd->endpoint();
}

const std::string& EtcdTlsEndpoint() {
  EtcdEndpoint();
  return etcd->tls_endpoint();
}

storage::etcd3::TlsConfig EtcdTlsFiles() {
  EtcdEndpoint();
  return etcd->tls_files();
}

std::shared_ptr<storage::EtcdKV> OpenEtcdKV(storage::EtcdOptions options) {
  auto kv = storage::EtcdKV::Open(std::move(options));
  if (!kv) throw std::runtime_error(kv.error());
  return *kv;
}

std::shared_ptr<storage::EtcdKV> OpenEtcdKV() {
  storage::EtcdOptions options;
  options.endpoints = {EtcdEndpoint()};
  return OpenEtcdKV(options);
}

std::string UniqueEtcdPrefix() {
  static std::atomic<int> counter{0};
  return "/registry-" + std::to_string(++counter);
}

std::shared_ptr<storage::Interface> EtcdStore() {
  return std::make_shared<storage::Store>(OpenEtcdKV(), UniqueEtcdPrefix());
}

}  // namespace storagetest
