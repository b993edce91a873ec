#pragma once
// --audit-log-path: events (written every 10 ms, in one write) as lines of JSON (or the legacy text
// form) appended to a file, or to stdout for "-". The file is rotated as upstream's (lumberjack)
// rotates it: when a write would take it past max_size_mb (0: 100 MB) it is renamed to <name>-<UTC
// time as 2006-01-02T15-04-05.000><ext> and a new one started; then backups past max_backups (0:
// all kept) and those rotated more than max_age_days ago (0: any age, by the time in the name)
// are removed.
//
// Threads: writes happen on the BufferedBackend's thread only.

#include <expected>
#include <string>

#include "pkg/genericserver/audit/buffered_backend.h"

namespace audit {

struct LogOptions {
  std::string path;  // "-": stdout
  int max_age_days = 0;
  int max_backups = 0;
  int max_size_mb = 0;
  bool legacy_format = false;  // --audit-log-format=legacy
  size_t buffer_size = 10000;
};

// Fails when the file (and its directory) cannot be created.
std::expected<BackendPtr, std::string> NewLogBackend(const LogOptions& options);

}  // namespace audit
