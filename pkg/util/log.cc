#include "pkg/util/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iomanip>

namespace util::log {
namespace {
std::atomic<int> verbosity{0};
}  // namespace

void SetVerbosity(int level) { verbosity.store(level, std::memory_order_relaxed); }
int Verbosity() { return verbosity.load(std::memory_order_relaxed); }

Line::Line(char severity, const char* file, int line) {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  std::tm tm{};
  localtime_r(&tv.tv_sec, &tm);
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  char head[64];
  std::snprintf(head, sizeof head, "%c%02d%02d %02d:%02d:%02d.%06ld %7d ", severity, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long>(tv.tv_usec),
                static_cast<int>(getpid()));
  out_ << head << base << ':' << line << "] ";
}

Line::~Line() {
  out_ << '\n';
  const std::string s = out_.str();
  // One write so that lines from several threads never interleave.
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, s.data(), s.size());
}

}  // namespace util::log
