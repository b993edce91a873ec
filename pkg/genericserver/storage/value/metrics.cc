#include "pkg/genericserver/storage/value/metrics.h"

#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

namespace storage::value {
namespace {

struct Counters {
  std::mutex mu;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t, std::less<>> counts;
};

Counters& Get() {
  static Counters counters;
  return counters;
}

}  // namespace

void CountTransformation(std::string_view type, std::string_view prefix, bool ok) {
  Counters& c = Get();
  // upstream's status label is the gRPC code of the error: "Unknown" for a local failure.
  std::tuple<std::string, std::string, std::string> key{ok ? "OK" : "Unknown", type, prefix};
  std::lock_guard lock(c.mu);
  ++c.counts[std::move(key)];
}

std::string RenderMetrics() {
  Counters& c = Get();
  std::lock_guard lock(c.mu);
  if (c.counts.empty()) return "";
  std::ostringstream out;
  out << "# HELP apiserver_storage_transformation_operations_total Stored values read or "
         "written through an encryption provider, by outcome (OK when it worked).\n"
         "# TYPE apiserver_storage_transformation_operations_total counter\n";
  for (const auto& [key, n] : c.counts) {
    const auto& [status, type, prefix] = key;
    out << "apiserver_storage_transformation_operations_total{status=\"" << status
        << "\",transformation_type=\"" << type << "\",transformer_prefix=\"" << prefix << "\"} "
        << n << "\n";
  }
  return out.str();
}

}  // namespace storage::value
