#include "pkg/controllermanager/start_controllers.h"

#include <random>
#include <set>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/controllermanager/controller_names.h"
#include "pkg/controllermanager/controllers_flag.h"
#include "pkg/util/log.h"

namespace controllermanager {

namespace net = boost::asio;

namespace {

util::Duration Jitter(util::Duration d, double factor) {
  thread_local std::mt19937 rng{std::random_device{}()};
  const double r = std::uniform_real_distribution<double>(0, 1)(rng);
  return d + std::chrono::duration_cast<util::Duration>(d * (r * factor));
}

std::string Quoted(std::string_view name) { return "controller=\"" + std::string(name) + "\""; }

}  // namespace

Awaitable<std::expected<StartedControllers, std::string>> StartControllers(
    controller::ControllerContext& ctx, const std::vector<std::string>& controllers_flag,
    util::Duration start_interval,
    const std::map<std::string, controller::InitFunc>& initializers) {
  const std::vector<std::string> canonical = CanonicalControllers(controllers_flag);
  const std::vector<std::string> off_by_default = ControllersDisabledByDefault();
  const std::set<std::string> disabled_by_default(off_by_default.begin(), off_by_default.end());
  StartedControllers out;

  // The token controller first, then the rest in registration order.
  std::vector<const ControllerName*> order;
  for (const ControllerName& c : ControllerNames()) {
    if (c.special_handling) order.insert(order.begin(), &c);
  }
  for (const ControllerName& c : ControllerNames()) {
    if (!c.special_handling) order.push_back(&c);
  }

  for (const ControllerName* c : order) {
    const std::string name(c->name);
    if (c->cloud_provider) {
      KLOG_INFO << "\"Skipping a cloud provider controller\" " << Quoted(name);
      out.skipped.push_back(name);
      continue;
    }
    if (!IsControllerEnabled(name, disabled_by_default, canonical)) {
      KLOG_INFO << "\"Warning: controller is disabled\" " << Quoted(name);
      out.disabled.push_back(name);
      continue;
    }
    if (start_interval.count() > 0) {
      net::steady_timer timer(co_await net::this_coro::executor, Jitter(start_interval, 1.0));
      co_await timer.async_wait(net::use_awaitable);
    }
    KLOG_INFO << "\"Starting controller\" " << Quoted(name);
    auto init = initializers.find(name);
    if (init == initializers.end()) {
      KLOG_INFO << "\"Warning: skipping controller\" " << Quoted(name)
                << " reason=\"not implemented by this controller manager\"";
      out.skipped.push_back(name);
      continue;
    }
    std::expected<controller::InitResult, std::string> result = init->second(ctx);
    if (!result) {
      KLOG_ERROR << "\"Error starting controller\" " << Quoted(name) << " err=\"" << result.error()
                 << "\"";
      co_return std::unexpected("error starting controller " + name + ": " + result.error());
    }
    if (!result->started) {
      KLOG_INFO << "\"Warning: skipping controller\" " << Quoted(name)
                << (result->skip_reason.empty() ? "" : " reason=\"" + result->skip_reason + "\"");
      out.skipped.push_back(name);
      continue;
    }
    if (result->checks.empty()) {
      out.checks.push_back({name, [] { return std::expected<void, std::string>(); }});
    } else {
      for (genericserver::HealthCheck& check : result->checks) {
        check.name = name;
        out.checks.push_back(std::move(check));
      }
    }
    KLOG_INFO << "\"Started controller\" " << Quoted(name);
    out.started.push_back(name);
  }
  co_return out;
}

}  // namespace controllermanager
