#pragma once
// Whole-file reads and crash-safe writes.

#include <expected>
#include <string>
#include <string_view>

namespace util {

std::expected<std::string, std::string> ReadFile(const std::string& path);
// Writes to a temporary file beside path, fsyncs it and renames it over path, so that a
// crash leaves either the old or the new contents. mode applies to the new file.
std::expected<void, std::string> WriteFileAtomic(const std::string& path, std::string_view data,
                                                 unsigned mode);

}  // namespace util
