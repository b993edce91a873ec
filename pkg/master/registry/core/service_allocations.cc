#include "pkg/master/registry/core/service_allocations.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/master/registry/fields.h"
#include "pkg/util/log.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr char kIPPrefix[] = "/ranges/serviceips/";
constexpr char kPortPrefix[] = "/ranges/servicenodeports/";

struct Address {
  std::array<unsigned char, 16> bytes{};
  bool v6 = false;
};

std::optional<Address> ParseIP(const std::string& text) {
  Address a;
  if (inet_pton(AF_INET, text.c_str(), a.bytes.data()) == 1) return a;
  if (inet_pton(AF_INET6, text.c_str(), a.bytes.data()) == 1) {
    a.v6 = true;
    return a;
  }
  return std::nullopt;
}

std::string FormatIP(const Address& a) {
  char out[INET6_ADDRSTRLEN];
  inet_ntop(a.v6 ? AF_INET6 : AF_INET, a.bytes.data(), out, sizeof out);
  return out;
}

// A range of numbered values: the usable addresses of a CIDR, or node ports.
struct Pool {
  std::string prefix;                        // storage key prefix
  int64_t first = 0;                         // the lowest usable offset
  int64_t last = 0;                          // the highest usable offset
  int64_t dynamic_from = 0;                  // random picks start at or above this offset
  std::function<std::string(int64_t)> name;  // offset -> "10.0.0.5" / "30080"
};

Pool IPPool(const std::string& cidr) {
  const size_t slash = cidr.find('/');
  Address base = ParseIP(cidr.substr(0, slash)).value_or(Address{});
  const int prefix = std::stoi(cidr.substr(slash + 1));
  const int host_bits = (base.v6 ? 128 : 32) - prefix;
  const int64_t size = int64_t{1} << std::min(host_bits, 62);
  Pool pool;
  pool.prefix = kIPPrefix;
  pool.first = size > 2 ? 1 : 0;
  // IPv4 keeps the broadcast address out; IPv6 has none.
  pool.last = base.v6 || size <= 2 ? size - 1 : size - 2;
  pool.dynamic_from = std::clamp<int64_t>(size / 16, 16, 256);
  if (pool.dynamic_from > pool.last) pool.dynamic_from = pool.first;
  pool.name = [base](int64_t offset) {
    Address a = base;
    const int len = a.v6 ? 16 : 4;
    uint64_t carry = static_cast<uint64_t>(offset);
    for (int i = len - 1; i >= 0 && carry > 0; --i) {
      const uint64_t sum = a.bytes[i] + (carry & 0xff);
      a.bytes[i] = static_cast<unsigned char>(sum & 0xff);
      carry = (carry >> 8) + (sum >> 8);
    }
    return FormatIP(a);
  };
  return pool;
}

Pool PortPool(int first, int last) {
  Pool pool;
  pool.prefix = kPortPrefix;
  pool.first = first;
  pool.last = last;
  pool.dynamic_from = first + std::clamp<int64_t>((last - first + 1) / 32, 16, 128);
  if (pool.dynamic_from > last) pool.dynamic_from = first;
  pool.name = [](int64_t port) { return std::to_string(port); };
  return pool;
}

// The offset of an address in a CIDR, or std::nullopt when outside it.
std::optional<int64_t> OffsetIn(const std::string& cidr, const std::string& ip) {
  const size_t slash = cidr.find('/');
  auto base = ParseIP(cidr.substr(0, slash));
  auto addr = ParseIP(ip);
  if (!base || !addr || base->v6 != addr->v6) return std::nullopt;
  const int prefix = std::stoi(cidr.substr(slash + 1));
  const int len = base->v6 ? 16 : 4;
  for (int bit = 0; bit < prefix; ++bit) {
    const unsigned char mask = static_cast<unsigned char>(0x80 >> (bit % 8));
    if ((base->bytes[bit / 8] & mask) != (addr->bytes[bit / 8] & mask)) return std::nullopt;
  }
  int64_t offset = 0;
  for (int i = std::max(0, len - 8); i < len; ++i) offset = (offset << 8) | addr->bytes[i];
  const int host_bits = len * 8 - prefix;
  if (host_bits < 63) offset &= (int64_t{1} << host_bits) - 1;
  return offset;
}

std::string OwnerUID(const storage::Object& o) {
  json parsed = json::parse(*o.json, nullptr, false);
  return Str(Sub(Sub(parsed, "spec"), "owner"), "uid");
}

// The IPs a service holds (not "None"), and its node ports (service and health check).
std::set<std::string> HeldIPs(const json& svc) {
  std::set<std::string> out;
  for (const json& ip : List(Sub(svc, "spec"), "clusterIPs")) {
    if (ip.is_string() && ip != "None" && ip != "") out.insert(ip.get<std::string>());
  }
  return out;
}

std::set<int64_t> HeldPorts(const json& svc) {
  std::set<int64_t> out;
  const json& spec = Sub(svc, "spec");
  for (const json& port : List(spec, "ports")) {
    if (Int(port, "nodePort") > 0) out.insert(Int(port, "nodePort"));
  }
  if (Int(spec, "healthCheckNodePort") > 0) out.insert(Int(spec, "healthCheckNodePort"));
  return out;
}

class ServiceAllocations final : public registry::Allocations {
 public:
  ServiceAllocations(std::shared_ptr<storage::Interface> storage, ServiceRanges ranges)
      : storage_(std::move(storage)),
        ranges_(std::move(ranges)),
        ips_(IPPool(ranges_.cluster_ip_range)),
        ports_(PortPool(ranges_.node_port_first, ranges_.node_port_last)) {}

  Awaitable<std::optional<apimachinery::Status>> Reserve(json& svc, const json* old,
                                                         bool dry_run) const override {
    json& spec = svc["spec"];
    const std::string type = Str(spec, "type");
    if (type == "ExternalName") co_return std::nullopt;
    const std::string name = registry::MetaString(svc, "name");
    const std::set<std::string> old_ips = old ? HeldIPs(*old) : std::set<std::string>{};
    const std::set<int64_t> old_ports = old ? HeldPorts(*old) : std::set<int64_t>{};
    registry::FieldErrors errors;

    std::string ip = Str(spec, "clusterIP");
    if (ip.empty()) {
      auto picked = co_await Pick(ips_, svc, dry_run);
      if (!picked) co_return Internal("failed to allocate a serviceIP: range is full");
      ip = ips_.name(*picked);
    } else if (ip != "None" && !old_ips.contains(ip)) {
      auto offset = OffsetIn(ranges_.cluster_ip_range, ip);
      if (!offset || *offset < ips_.first || *offset > ips_.last) {
        errors.push_back(
            v::FieldInvalid("spec.clusterIPs[0]", ip,
                            "failed to allocate IP " + ip + ": the provided IP (" + ip +
                                ") is not in the valid range. The range of valid IPs is " +
                                ranges_.cluster_ip_range));
      } else if (!co_await Take(ips_, *offset, svc, dry_run)) {
        errors.push_back(
            v::FieldInvalid("spec.clusterIPs[0]", ip,
                            "failed to allocate IP " + ip + ": provided IP is already allocated"));
      }
    }
    spec["clusterIP"] = ip;
    if (!spec.contains("clusterIPs") || List(spec, "clusterIPs").empty()) spec["clusterIPs"] = {ip};

    if (type == "NodePort" ||
        (type == "LoadBalancer" && spec.value("allocateLoadBalancerNodePorts", true) != false)) {
      json& ports = spec["ports"];
      for (size_t i = 0; ports.is_array() && i < ports.size(); ++i) {
        json& port = ports[i];
        if (!port.is_object()) continue;
        const int64_t wanted = Int(port, "nodePort");
        const std::string at = "spec.ports[" + std::to_string(i) + "].nodePort";
        if (wanted == 0) {
          auto picked = co_await Pick(ports_, svc, dry_run);
          if (!picked) co_return Internal("failed to allocate a nodePort: range is full");
          port["nodePort"] = *picked;
        } else if (!old_ports.contains(wanted)) {
          if (wanted < ports_.first || wanted > ports_.last) {
            errors.push_back(v::FieldInvalid(
                at, std::to_string(wanted),
                "provided port is not in the valid range. The range of valid ports is " +
                    std::to_string(ports_.first) + "-" + std::to_string(ports_.last)));
            errors.back().value_form = v::ValueForm::kVerbatim;
          } else if (!co_await Take(ports_, wanted, svc, dry_run)) {
            errors.push_back(
                v::FieldInvalid(at, std::to_string(wanted), "provided port is already allocated"));
            errors.back().value_form = v::ValueForm::kVerbatim;
          }
        }
      }
    }
    if (!errors.empty()) {
      if (!dry_run) co_await Free(svc, old);
      co_return v::NewInvalid("", "Service", name, errors);
    }
    co_return std::nullopt;
  }

  Awaitable<void> Free(const json& released, const json* kept) const override {
    const std::string uid = registry::MetaString(released, "uid");
    const std::set<std::string> kept_ips = kept ? HeldIPs(*kept) : std::set<std::string>{};
    const std::set<int64_t> kept_ports = kept ? HeldPorts(*kept) : std::set<int64_t>{};
    for (const std::string& ip : HeldIPs(released)) {
      if (!kept_ips.contains(ip)) co_await Release(kIPPrefix + ip, uid);
    }
    for (int64_t port : HeldPorts(released)) {
      if (!kept_ports.contains(port)) co_await Release(kPortPrefix + std::to_string(port), uid);
    }
  }

 private:
  static apimachinery::Status Internal(std::string message) {
    return apimachinery::NewInternalError(std::move(message));
  }

  // Takes one value for the service: true when it is now the service's (or was already).
  Awaitable<bool> Take(const Pool& pool, int64_t offset, const json& svc, bool dry_run) const {
    const storage::GetOptions newest;
    const std::string key = pool.prefix + pool.name(offset);
    const std::string uid = registry::MetaString(svc, "uid");
    auto existing = co_await storage_->Get(key, newest);
    if (existing) co_return OwnerUID(**existing) == uid;
    if (existing.error().code != storage::ErrorCode::kNotFound) co_return false;
    if (dry_run) co_return true;
    json holder = {{"apiVersion", "v1"},
                   {"kind", "Reservation"},
                   {"metadata", {{"name", pool.name(offset)}}},
                   {"spec",
                    {{"owner",
                      {{"resource", "services"},
                       {"namespace", registry::MetaString(svc, "namespace")},
                       {"name", registry::MetaString(svc, "name")},
                       {"uid", uid}}}}}};
    auto created = co_await storage_->Create(key, holder.dump());
    if (created) co_return true;
    if (created.error().code != storage::ErrorCode::kAlreadyExists) co_return false;
    auto raced = co_await storage_->Get(key, newest);
    co_return raced&& OwnerUID(**raced) == uid;
  }

  // Some free value of the pool, taken for the service: a random one from the dynamic
  // part first, then any.
  Awaitable<std::optional<int64_t>> Pick(const Pool& pool, const json& svc, bool dry_run) const {
    const storage::ListOptions all;
    std::set<std::string> used;
    auto listed = co_await storage_->GetList(pool.prefix, all);
    if (listed) {
      for (const auto& item : listed->items) used.insert(item->key.substr(pool.prefix.size()));
    }
    const int64_t span = pool.last - pool.dynamic_from + 1;
    thread_local std::mt19937_64 rng{std::random_device{}()};
    const int64_t start = pool.dynamic_from + static_cast<int64_t>(rng() % span);
    const int64_t total = pool.last - pool.first + 1;
    // From the random start up to the top, then the rest of the range from the bottom.
    for (int64_t step = 0; step < total; ++step) {
      int64_t offset = start + step;
      if (offset > pool.last) offset = pool.first + (offset - pool.last - 1);
      if (used.contains(pool.name(offset))) continue;
      if (co_await Take(pool, offset, svc, dry_run)) co_return offset;
    }
    co_return std::nullopt;
  }

  Awaitable<void> Release(const std::string& key, const std::string& uid) const {
    const storage::GetOptions newest;
    auto existing = co_await storage_->Get(key, newest);
    if (!existing || OwnerUID(**existing) != uid) co_return;
    storage::Preconditions same;
    same.resource_version = std::to_string((*existing)->revision);
    auto deleted = co_await storage_->Delete(key, same, nullptr, *existing);
    if (!deleted && deleted.error().code != storage::ErrorCode::kNotFound) {
      KLOG_WARNING << "releasing " << key << ": " << deleted.error().message;
    }
  }

  std::shared_ptr<storage::Interface> storage_;
  ServiceRanges ranges_;
  Pool ips_;
  Pool ports_;
};

}  // namespace

std::string IPFamily(const std::string& cidr_or_ip) {
  return cidr_or_ip.find(':') != std::string::npos ? "IPv6" : "IPv4";
}

std::string FirstIP(const std::string& cidr) {
  Pool pool = IPPool(cidr);
  return pool.name(pool.first);
}

std::shared_ptr<registry::Allocations> NewServiceAllocations(
    std::shared_ptr<storage::Interface> storage, ServiceRanges ranges) {
  return std::make_shared<ServiceAllocations>(std::move(storage), std::move(ranges));
}

}  // namespace master::resources
