// core/v1 componentstatuses (deprecated upstream since 1.19, still served): the health of
// the storage (etcd-0) and of the scheduler and controller manager on their default local
// ports, computed on each read; nothing is stored.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/storage/errors.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

constexpr char kPrefix[] = "/componentstatuses/";

// Whether something accepts connections on 127.0.0.1:port; else the reason, as Go's
// dialer words a refusal.
std::optional<std::string> DialError(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string(std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int err = 0;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, 1000) == 1) {
        socklen_t len = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      } else {
        err = ETIMEDOUT;
      }
    }
  }
  ::close(fd);
  if (err == 0) return std::nullopt;
  return err == ECONNREFUSED ? std::string("connect: connection refused")
                             : "connect: " + std::string(std::strerror(err));
}

json Status(const std::string& name, const std::optional<std::string>& error) {
  json condition = {{"type", "Healthy"},
                    {"status", error ? "False" : "True"},
                    {"message", error ? *error : "ok"}};
  return {{"apiVersion", "v1"},
          {"kind", "ComponentStatus"},
          {"metadata", {{"name", name}, {"creationTimestamp", nullptr}}},
          {"conditions", json::array({condition})}};
}

json Probe(const std::string& name, const std::function<std::optional<std::string>()>& storage) {
  if (name == "etcd-0") return Status(name, storage());
  const int port = name == "scheduler" ? 10259 : 10257;
  auto dial = DialError(port);
  if (!dial) return Status(name, std::nullopt);
  const std::string url = "https://127.0.0.1:" + std::to_string(port) + "/healthz";
  return Status(name,
                "Get \"" + url + "\": dial tcp 127.0.0.1:" + std::to_string(port) + ": " + *dial);
}

storage::ObjectPtr AsObject(const json& status) {
  auto o = std::make_shared<storage::Object>();
  o->key = kPrefix + status["metadata"]["name"].get<std::string>();
  o->json = std::make_shared<const std::string>(status.dump());
  return o;
}

class ComponentStatusStorage final : public storage::Interface {
 public:
  explicit ComponentStatusStorage(std::function<std::optional<std::string>()> storage)
      : storage_(std::move(storage)) {}

  Awaitable<storage::Result<storage::ObjectPtr>> Create(std::string key, std::string) override {
    co_return std::unexpected(storage::InternalError("componentstatuses are read-only: " + key));
  }
  Awaitable<storage::Result<storage::ObjectPtr>> Delete(std::string key, storage::Preconditions,
                                                        storage::ValidateDeletion,
                                                        storage::ObjectPtr) override {
    co_return std::unexpected(storage::InternalError("componentstatuses are read-only: " + key));
  }
  Awaitable<storage::Result<storage::ObjectPtr>> Get(std::string key,
                                                     storage::GetOptions) override {
    const std::string name = key.substr(key.rfind('/') + 1);
    if (name != "controller-manager" && name != "etcd-0" && name != "scheduler") {
      co_return std::unexpected(storage::NotFoundError(key));
    }
    co_return AsObject(Probe(name, storage_));
  }
  Awaitable<storage::Result<storage::ListResult>> GetList(std::string,
                                                          storage::ListOptions options) override {
    storage::ListResult out;
    for (const char* name : {"controller-manager", "etcd-0", "scheduler"}) {
      storage::ObjectPtr o = AsObject(Probe(name, storage_));
      if (options.predicate.Matches(*o)) out.items.push_back(std::move(o));
    }
    co_return out;
  }
  Awaitable<storage::Result<storage::ObjectPtr>> GuaranteedUpdate(std::string key,
                                                                  storage::Preconditions, bool,
                                                                  storage::UpdateFunc,
                                                                  storage::ObjectPtr) override {
    co_return std::unexpected(storage::InternalError("componentstatuses are read-only: " + key));
  }
  Awaitable<storage::Result<storage::WatcherPtr>> Watch(std::string key,
                                                        storage::WatchOptions) override {
    co_return std::unexpected(
        storage::InternalError("componentstatuses cannot be watched: " + key));
  }
  Awaitable<storage::Result<int64_t>> CurrentRevision() override { co_return int64_t{0}; }
  Awaitable<storage::Result<void>> Compact(int64_t) override { co_return storage::Result<void>(); }
  Awaitable<storage::Result<storage::Stats>> GetStats(std::string) override {
    co_return storage::Stats{};
  }

 private:
  std::function<std::optional<std::string>()> storage_;
};

}  // namespace

std::shared_ptr<storage::Interface> NewComponentStatusStorage(
    std::function<std::optional<std::string>()> storage_health) {
  return std::make_shared<ComponentStatusStorage>(std::move(storage_health));
}

registry::ResourceSpecPtr ComponentStatuses() {
  auto spec = Builtin("v1", "componentstatuses");
  spec->short_names = {"cs"};
  spec->deprecation_warning = "v1 ComponentStatus is deprecated in v1.19+";
  spec->columns = {
      registry::NameColumn(),
      {"Status", "string", "", "Healthy or Unhealthy.", 0},
      {"Message", "string", "", "What the health check said.", 0},
      {"Error", "string", "", "Why the health check could not be made.", 0},
  };
  spec->row = [](const json& cs, std::chrono::system_clock::time_point) {
    std::string status = "Unknown";
    std::string message;
    std::string error;
    for (const json& c : List(cs, "conditions")) {
      if (Str(c, "type") != "Healthy") continue;
      status = Str(c, "status") == "True" ? "Healthy" : "Unhealthy";
      message = Str(c, "message");
      error = Str(c, "error");
    }
    return std::vector<json>{registry::MetaString(cs, "name"), status, message, error};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
