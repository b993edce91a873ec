#pragma once
#include <string>

namespace util {
// A random (version 4) UUID in its canonical lower-case form.
std::string NewUUID();
}  // namespace util
