#include "pkg/genericserver/server/metrics.h"

#include <cstdio>
#include <sstream>

#include "pkg/genericserver/audit/metrics.h"
#include "pkg/genericserver/storage/value/metrics.h"

namespace genericserver {
namespace {

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// Label pairs in alphabetical order, as Prometheus client libraries print them.
std::string Labels(const RequestLabels& l, const std::string& extra_name = "",
                   const std::string& extra_value = "", bool with_dry_run = true) {
  std::map<std::string, std::string> m = {{"component", l.component},     {"group", l.group},
                                          {"resource", l.resource},       {"scope", l.scope},
                                          {"subresource", l.subresource}, {"verb", l.verb},
                                          {"version", l.version}};
  if (with_dry_run) m["dry_run"] = l.dry_run;
  if (!extra_name.empty()) m[extra_name] = extra_value;
  std::string out;
  for (const auto& [k, v] : m) {
    out += out.empty() ? "" : ",";
    out += k + "=\"" + Escape(v) + "\"";
  }
  return out;
}

std::string FormatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

void Metrics::ObserveRequest(const RequestLabels& labels, int code, double seconds) {
  std::lock_guard lock(mu_);
  ++requests_[{labels, code}];
  Histogram& h = durations_[labels];
  for (size_t i = 0; i < kDurationBuckets.size(); ++i) {
    if (seconds <= kDurationBuckets[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::AddInFlight(bool mutating, int delta) {
  (mutating ? inflight_mutating_ : inflight_read_only_).fetch_add(delta);
}

void Metrics::AddLongRunning(const RequestLabels& labels, int delta) {
  RequestLabels key = labels;
  key.dry_run.clear();
  std::lock_guard lock(mu_);
  long_running_[key] += delta;
}

std::string Metrics::Render() const {
  std::ostringstream out;
  out << "# HELP apiserver_current_inflight_requests Requests being served now that count "
         "against the in-flight limits, by kind.\n"
         "# TYPE apiserver_current_inflight_requests gauge\n"
      << "apiserver_current_inflight_requests{request_kind=\"mutating\"} "
      << inflight_mutating_.load() << "\n"
      << "apiserver_current_inflight_requests{request_kind=\"readOnly\"} "
      << inflight_read_only_.load() << "\n";

  std::lock_guard lock(mu_);
  out << "# HELP apiserver_longrunning_requests Long-running requests (watches, "
         "connections) being served now.\n"
         "# TYPE apiserver_longrunning_requests gauge\n";
  for (const auto& [labels, n] : long_running_) {
    out << "apiserver_longrunning_requests{" << Labels(labels, "", "", false) << "} " << n << "\n";
  }
  out << "# HELP apiserver_request_duration_seconds Time to answer a request, in seconds.\n"
         "# TYPE apiserver_request_duration_seconds histogram\n";
  for (const auto& [labels, h] : durations_) {
    for (size_t i = 0; i < kDurationBuckets.size(); ++i) {
      out << "apiserver_request_duration_seconds_bucket{"
          << Labels(labels, "le", FormatDouble(kDurationBuckets[i])) << "} " << h.buckets[i]
          << "\n";
    }
    out << "apiserver_request_duration_seconds_bucket{" << Labels(labels, "le", "+Inf") << "} "
        << h.count << "\n";
    out << "apiserver_request_duration_seconds_sum{" << Labels(labels) << "} "
        << FormatDouble(h.sum) << "\n";
    out << "apiserver_request_duration_seconds_count{" << Labels(labels) << "} " << h.count << "\n";
  }
  out << "# HELP apiserver_request_total Requests answered, by HTTP code.\n"
         "# TYPE apiserver_request_total counter\n";
  for (const auto& [key, n] : requests_) {
    out << "apiserver_request_total{" << Labels(key.first, "code", std::to_string(key.second))
        << "} " << n << "\n";
  }
  out << audit::RenderMetrics();
  out << storage::value::RenderMetrics();
  return out.str();
}

}  // namespace genericserver
