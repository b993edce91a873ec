#include "pkg/genericserver/audit/log_backend.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>

#include "pkg/genericserver/audit/metrics.h"
#include "pkg/util/log.h"

namespace audit {
namespace {

namespace fs = std::filesystem;
using TimePoint = std::chrono::system_clock::time_point;

// "2006-01-02T15-04-05.000": the UTC time of a rotation in the backup's name, fixed width so
// that backups sort by name as by time.
constexpr size_t kStampLength = 23;

// The rotation time a backup's name holds, or std::nullopt when the name is not one of
// <stem>-<stamp><ext>.
std::optional<TimePoint> BackupTime(const std::string& name, const std::string& stem,
                                    const std::string& ext) {
  if (name.size() != stem.size() + 1 + kStampLength + ext.size() || !name.starts_with(stem + "-") ||
      !name.ends_with(ext)) {
    return std::nullopt;
  }
  std::tm utc{};
  int millis = 0;
  if (std::sscanf(name.c_str() + stem.size() + 1, "%4d-%2d-%2dT%2d-%2d-%2d.%3d", &utc.tm_year,
                  &utc.tm_mon, &utc.tm_mday, &utc.tm_hour, &utc.tm_min, &utc.tm_sec,
                  &millis) != 7) {
    return std::nullopt;
  }
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(timegm(&utc)) + std::chrono::milliseconds(millis);
}

// The file and its rotation; used by the backend's thread only.
class LogFile {
 public:
  explicit LogFile(LogOptions options) : options_(std::move(options)) {
    max_bytes_ = static_cast<uint64_t>(options_.max_size_mb > 0 ? options_.max_size_mb : 100) << 20;
  }
  ~LogFile() {
    if (fd_ > 1) ::close(fd_);
  }

  std::expected<void, std::string> Open() {
    if (options_.path == "-") {
      fd_ = 1;
      return {};
    }
    std::error_code ec;
    const fs::path dir = fs::path(options_.path).parent_path();
    if (!dir.empty()) fs::create_directories(dir, ec);
    if (ec) return std::unexpected("cannot create " + dir.string() + ": " + ec.message());
    fd_ = ::open(options_.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) return std::unexpected("cannot open " + options_.path + ": " + strerror(errno));
    size_ = static_cast<uint64_t>(::lseek(fd_, 0, SEEK_END));
    return {};
  }

  void Write(std::vector<EventPtr>& batch) {
    std::string text;
    for (const EventPtr& e : batch) {
      text += options_.legacy_format ? EncodeLegacy(*e) : EncodeJSON(*e);
      text += '\n';
    }
    if (fd_ != 1 && size_ > 0 && size_ + text.size() > max_bytes_) Rotate();
    std::string_view rest = text;
    while (!rest.empty()) {
      const ssize_t n = ::write(fd_, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        // What did not reach the file is lost; count it once per batch.
        CountErrors("log", batch.size());
        KLOG_ERROR << "Error in audit plugin 'log' affecting " << batch.size()
                   << " audit events: write " << options_.path << ": " << strerror(errno);
        return;
      }
      size_ += static_cast<uint64_t>(n);
      rest.remove_prefix(static_cast<size_t>(n));
    }
  }

 private:
  void Rotate() {
    const fs::path path(options_.path);
    const std::string stem = path.stem().string(), ext = path.extension().string();
    const auto now =
        std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char stamp[32];
    const size_t n = std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H-%M-%S", &utc);
    std::snprintf(stamp + n, sizeof stamp - n, ".%03d",
                  static_cast<int>(now.time_since_epoch().count() % 1000));
    const fs::path backup = path.parent_path() / (stem + "-" + std::string(stamp) + ext);
    ::close(fd_);
    std::error_code ec;
    fs::rename(path, backup, ec);
    if (ec) KLOG_ERROR << "audit log rotation: " << ec.message();
    fd_ = ::open(options_.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_ = 0;
    RemoveOldBackups(stem, ext);
  }

  void RemoveOldBackups(const std::string& stem, const std::string& ext) {
    if (options_.max_backups <= 0 && options_.max_age_days <= 0) return;
    const fs::path path(options_.path);
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    std::vector<std::pair<TimePoint, fs::path>> backups;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (auto at = BackupTime(entry.path().filename().string(), stem, ext)) {
        backups.emplace_back(*at, entry.path());
      }
    }
    std::ranges::sort(backups, std::greater<>());  // newest first
    const auto now = std::chrono::system_clock::now();
    for (size_t i = 0; i < backups.size(); ++i) {
      const bool remove =
          (options_.max_backups > 0 && i >= static_cast<size_t>(options_.max_backups)) ||
          (options_.max_age_days > 0 &&
           now - backups[i].first > std::chrono::hours(24) * options_.max_age_days);
      if (remove) fs::remove(backups[i].second, ec);
    }
  }

  const LogOptions options_;
  uint64_t max_bytes_ = 0;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace

std::expected<BackendPtr, std::string> NewLogBackend(const LogOptions& options) {
  auto file = std::make_shared<LogFile>(options);
  if (auto opened = file->Open(); !opened) return std::unexpected(opened.error());
  BufferOptions buffer;
  buffer.buffer_size = options.buffer_size;
  // The thread writes what gathered in 10 ms (or a full buffer), in one write: one wake-up
  // per batch, not per event.
  buffer.max_batch_size = options.buffer_size;
  buffer.max_batch_wait = std::chrono::milliseconds(10);
  return std::make_shared<BufferedBackend>(
      "log", buffer,
      [file](std::vector<EventPtr>& batch, const std::atomic<bool>&) { file->Write(batch); });
}

}  // namespace audit
