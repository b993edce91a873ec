#include "pkg/genericserver/server/healthz.h"

#include <algorithm>
#include <set>

#include "pkg/genericserver/server/responses.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace genericserver {
namespace {

class HealthHandler final : public Handler {
 public:
  HealthHandler(std::string endpoint, std::vector<HealthCheck> checks)
      : endpoint_(std::move(endpoint)), checks_(std::move(checks)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    const std::string base = "/" + endpoint_;
    std::string_view path = ctx.request.path;
    if (path.size() > base.size() + 1) {
      co_await ServeOne(path.substr(base.size() + 1), out);
      co_return;
    }
    co_await ServeAll(ctx, out);
  }

 private:
  Awaitable<void> ServeOne(std::string_view name, ResponseWriter& out) {
    auto it = std::ranges::find_if(checks_, [&](const HealthCheck& c) { return c.name == name; });
    if (it == checks_.end()) {
      co_await WriteStatus(out, apimachinery::NewPathNotFound());
      co_return;
    }
    auto result = it->check();
    if (result) {
      co_await WriteText(out, 200, "ok");
    } else {
      co_await WriteText(out, 500, "internal server error: " + result.error() + "\n");
    }
  }

  Awaitable<void> ServeAll(RequestContext& ctx, ResponseWriter& out) {
    // One name per parameter, as upstream reads them (no splitting on commas).
    std::set<std::string> excluded;
    for (const std::string& v : ctx.request.query.Values("exclude")) excluded.insert(v);
    const bool verbose = ctx.request.query.Has("verbose");
    std::string lines;
    bool failed = false;
    std::vector<std::string> failed_names;
    for (const HealthCheck& c : checks_) {
      if (excluded.erase(c.name)) {
        lines += "[+]" + c.name + " excluded: ok\n";
        continue;
      }
      auto result = c.check();
      if (result) {
        lines += "[+]" + c.name + " ok\n";
      } else {
        failed = true;
        failed_names.push_back(c.name);
        lines += "[-]" + c.name + " failed: reason withheld\n";
        KLOG_V(2) << endpoint_ << " check " << c.name << " failed: " << result.error();
      }
    }
    if (!excluded.empty()) {
      std::vector<std::string> quoted;
      for (const std::string& name : excluded) quoted.push_back(util::Quote(name));
      lines += "warn: some health checks cannot be excluded: no matches for " +
               util::Join(quoted, ",") + "\n";
    }
    if (failed) {
      KLOG_INFO << endpoint_ << " check failed: " << util::Join(failed_names, ",");
      co_await WriteText(out, 500, lines + endpoint_ + " check failed\n");
    } else if (verbose) {
      co_await WriteText(out, 200, lines + endpoint_ + " check passed\n");
    } else {
      co_await WriteText(out, 200, "ok");
    }
  }

  std::string endpoint_;
  std::vector<HealthCheck> checks_;
};

}  // namespace

HandlerPtr NewHealthHandler(std::string endpoint, std::vector<HealthCheck> checks) {
  return std::make_unique<HealthHandler>(std::move(endpoint), std::move(checks));
}

}  // namespace genericserver
