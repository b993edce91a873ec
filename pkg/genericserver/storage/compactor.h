#pragma once
// Drops old history on a schedule, for every backend: every `interval` it compacts to
// the newest revision that is both older than `window` and at least `min_revisions`
// behind the current one. Watches and continue tokens older than that get 410 Expired.

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>

#include "pkg/genericserver/storage/interface.h"
#include "pkg/util/duration.h"

namespace boost::asio {
class io_context;
}

namespace storage {

struct CompactorOptions {
  util::Duration interval = std::chrono::seconds(60);
  util::Duration window = std::chrono::minutes(5);
  int64_t min_revisions = 1000;
};

class Compactor {
 public:
  Compactor(std::shared_ptr<Interface> storage, CompactorOptions options,
            boost::asio::io_context& io);
  ~Compactor();
  void Start();
  void Stop();
  // The revision compacted to last (0: none yet).
  int64_t Compacted() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// The compaction target given samples of (time, revision), oldest first: the newest
// sampled revision taken at or before now - window, capped at current - min_revisions.
int64_t CompactionTarget(
    const std::deque<std::pair<std::chrono::steady_clock::time_point, int64_t>>& samples,
    std::chrono::steady_clock::time_point now, int64_t current, const CompactorOptions& options);

}  // namespace storage
