#pragma once
// Shutdown signals shared by every server of the chain and by long-running handlers.
// Thread-safe.

#include <atomic>
#include <functional>
#include <map>
#include <mutex>

namespace genericserver {

class Lifecycle {
 public:
  // SIGTERM arrived: /readyz starts failing; serving goes on for --shutdown-delay-duration.
  void InitiateShutdown() { shutdown_initiated_ = true; }
  bool ShutdownInitiated() const { return shutdown_initiated_; }

  // Long-running handlers (watches) register a callback that ends their stream; it runs
  // once, on the shutdown thread, when the server stops serving.
  using StreamCloser = std::function<void()>;
  uint64_t OnCloseStreams(StreamCloser closer);
  void Unregister(uint64_t id);
  void CloseStreams();

 private:
  std::atomic<bool> shutdown_initiated_{false};
  std::mutex mu_;
  bool closing_ = false;
  uint64_t next_id_ = 0;
  std::map<uint64_t, StreamCloser> closers_;
};

}  // namespace genericserver
