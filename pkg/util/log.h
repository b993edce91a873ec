#pragma once
// klog-style logging to stderr: "I1130 10:20:00.123456   4242 file.cc:12] message".
// Thread-safe: each line is assembled first and written with one write(2).

#include <sstream>

namespace util::log {

// The -v level. Messages logged with KLOG_V(n) appear when n <= Verbosity().
void SetVerbosity(int level);
int Verbosity();

class Line {
 public:
  Line(char severity, const char* file, int line);
  ~Line();
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;
  std::ostream& stream() { return out_; }

 private:
  std::ostringstream out_;
};

// Turns a stream expression into void for the ?: in KLOG_V.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace util::log

#define KLOG_INFO ::util::log::Line('I', __FILE__, __LINE__).stream()
#define KLOG_WARNING ::util::log::Line('W', __FILE__, __LINE__).stream()
#define KLOG_ERROR ::util::log::Line('E', __FILE__, __LINE__).stream()
// Evaluates nothing after it unless the level is enabled; safe inside an unbraced if.
#define KLOG_V(level)                  \
  ((level) > ::util::log::Verbosity()) \
      ? (void)0                        \
      : ::util::log::Voidify() & ::util::log::Line('I', __FILE__, __LINE__).stream()
