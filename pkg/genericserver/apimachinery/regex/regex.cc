#include "pkg/genericserver/apimachinery/regex/regex.h"

#include <mutex>
#include <unordered_map>

#include "pkg/genericserver/apimachinery/regex/compiler.h"
#include "pkg/genericserver/apimachinery/regex/parser.h"

namespace apimachinery::regex {

std::expected<std::shared_ptr<const Regex>, std::string> Regex::Compile(std::string_view pattern) {
  auto tree = internal::Parse(pattern);
  if (!tree) return std::unexpected(tree.error());
  auto re = std::make_shared<Regex>();
  if (auto ok = internal::CompileProgram(*tree, pattern, re->prog_); !ok) {
    return std::unexpected(ok.error());
  }
  return std::shared_ptr<const Regex>(std::move(re));
}

std::expected<std::shared_ptr<const Regex>, std::string> Regex::CompileCached(
    std::string_view pattern) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::expected<std::shared_ptr<const Regex>, std::string>>
      cache;
  constexpr size_t kMaxEntries = 512;
  {
    std::lock_guard lock(mu);
    auto it = cache.find(std::string(pattern));
    if (it != cache.end()) return it->second;
  }
  auto compiled = Compile(pattern);
  std::lock_guard lock(mu);
  if (cache.size() >= kMaxEntries) cache.clear();
  cache.emplace(std::string(pattern), compiled);
  return compiled;
}

}  // namespace apimachinery::regex
