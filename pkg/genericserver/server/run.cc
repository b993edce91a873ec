// GenericAPIServer::Run: the serving loop and the graceful shutdown sequence.
#include <utility>  // before Asio, see awaitable.h

#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "pkg/genericserver/server/generic_apiserver.h"
#include "pkg/util/log.h"

namespace genericserver {
namespace {

// Wakes the main thread for shutdown: on a signal, or when a post-start hook failed.
class StopLatch {
 public:
  void Stop(std::string error = "") {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    error_ = std::move(error);
    cv_.notify_all();
  }
  std::string Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return stopped_; });
    return error_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  std::string error_;
};

}  // namespace

std::expected<void, std::string> GenericAPIServer::Run() {
  const Config& c = GetConfig();
  int threads = c.io_threads > 0
                    ? c.io_threads
                    : std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
  boost::asio::io_context& io = *c.io;

  auto server = SecureServer::Create(io, c.secure_serving, FilteredHandler());
  if (!server) return std::unexpected(server.error());
  (*server)->Start();
  KLOG_INFO << "Serving securely on " << c.secure_serving.bind_address << ":" << (*server)->Port();

  StopLatch latch;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int signo) {
        if (ec) return;
        if (c.lifecycle->ShutdownInitiated()) {
          KLOG_WARNING << "received a second signal (" << signo << "), exiting now";
          ::_exit(1);
        }
        KLOG_INFO << "received signal " << signo << ", shutting down";
        latch.Stop();
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);

  // Every hook of the chain, also those a delegate added after this server was built.
  for (const PostStartHookPtr& hook : PostStartHooks()) {
    boost::asio::co_spawn(
        io, hook->Run(),
        [&latch, hook](std::exception_ptr e, std::expected<void, std::string> result) {
          std::string error;
          if (e) {
            try {
              std::rethrow_exception(e);
            } catch (const std::exception& ex) {
              error = ex.what();
            }
          } else if (!result) {
            error = result.error();
          }
          if (error.empty()) {
            KLOG_V(2) << "post-start hook " << hook->Name() << " finished";
            return;
          }
          latch.Stop("PostStartHook \"" + hook->Name() + "\" failed: " + error);
        });
  }

  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back([&io] { io.run(); });

  std::string error = latch.Wait();
  if (!error.empty()) KLOG_ERROR << error;

  // 1. Not ready any more; keep serving while load balancers notice.
  c.lifecycle->InitiateShutdown();
  if (c.shutdown_delay.count() > 0) {
    KLOG_INFO << "waiting " << util::FormatDuration(c.shutdown_delay)
              << " before closing the listener";
    std::this_thread::sleep_for(c.shutdown_delay);
  }
  // 2. No new connections; idle ones close, busy ones after their response.
  (*server)->StopAccepting();
  (*server)->Drain();
  // 3. Watches and other streams end; requests in flight get up to --request-timeout.
  c.lifecycle->CloseStreams();
  if (!(*server)->WaitIdle(std::chrono::steady_clock::now() + c.request_timeout)) {
    KLOG_WARNING << "requests still in flight after " << util::FormatDuration(c.request_timeout)
                 << ", closing their connections";
  }
  (*server)->CloseAllConnections();
  io.stop();
  for (std::thread& t : pool) t.join();
  KLOG_INFO << "server stopped";
  if (!error.empty()) return std::unexpected(error);
  return {};
}

}  // namespace genericserver
