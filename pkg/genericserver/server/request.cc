#include "pkg/genericserver/server/request.h"

#include "pkg/util/strings.h"

namespace genericserver {

void Headers::Add(std::string name, std::string value) {
  items_.emplace_back(std::move(name), std::move(value));
}

void Headers::Set(std::string name, std::string value) {
  Remove(name);
  Add(std::move(name), std::move(value));
}

void Headers::Remove(std::string_view name) {
  std::erase_if(items_, [&](const auto& kv) { return util::EqualsIgnoreCase(kv.first, name); });
}

std::optional<std::string_view> Headers::Get(std::string_view name) const {
  for (const auto& [k, v] : items_) {
    if (util::EqualsIgnoreCase(k, name)) return std::string_view(v);
  }
  return std::nullopt;
}

std::vector<std::string_view> Headers::Values(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : items_) {
    if (util::EqualsIgnoreCase(k, name)) out.emplace_back(v);
  }
  return out;
}

QueryValues QueryValues::Parse(std::string_view raw) {
  QueryValues q;
  if (raw.empty()) return q;
  for (const std::string& pair : util::Split(raw, '&')) {
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string_view key = std::string_view(pair).substr(0, eq);
    std::string_view value =
        eq == std::string::npos ? std::string_view() : std::string_view(pair).substr(eq + 1);
    q.items_.emplace_back(util::PercentDecode(key, true), util::PercentDecode(value, true));
  }
  return q;
}

std::optional<std::string> QueryValues::Get(std::string_view key) const {
  for (const auto& [k, v] : items_) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::vector<std::string> QueryValues::Values(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : items_) {
    if (k == key) out.push_back(v);
  }
  return out;
}

bool QueryValues::Has(std::string_view key) const { return Get(key).has_value(); }

Request Request::FromTarget(std::string method, std::string target) {
  Request r;
  r.method = std::move(method);
  r.target = std::move(target);
  std::string_view t = r.target;
  size_t q = t.find('?');
  r.path = util::PercentDecode(t.substr(0, q));
  if (q != std::string_view::npos) r.raw_query = std::string(t.substr(q + 1));
  r.query = QueryValues::Parse(r.raw_query);
  return r;
}

}  // namespace genericserver
