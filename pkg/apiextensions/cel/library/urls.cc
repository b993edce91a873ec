// Kubernetes' url library (Go's net/url as it uses it).

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/apiextensions/cel/library/internal.h"
#include "pkg/genericserver/apimachinery/gourl/url.h"

namespace apiextensions::cel::internal {

namespace {

std::string Unescape(std::string_view s, bool plus_space, bool* ok) {
  std::string out;
  *ok = true;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
        out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
        i += 2;
      } else {
        *ok = false;
        return "";
      }
    } else if (s[i] == '+' && plus_space) {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

void RegisterUrls(Builder& b) {
  auto U = UrlType();
  auto S = StringType(), B = BoolType();
  b.Global("url", {S}, U, [](EvalContext&, const Args& a) {
    auto parsed = apimachinery::gourl::Parse(a[0].str(), true);
    if (!parsed) {
      return Value::Error("URL parse error during conversion from string: " + parsed.error());
    }
    return Value::Url(a[0].str());
  });
  b.Global("isURL", {S}, B, [](EvalContext&, const Args& a) {
    return Value::Bool(apimachinery::gourl::Parse(a[0].str(), true).has_value());
  });
  auto parsed = [](const Value& v) {
    auto u = apimachinery::gourl::Parse(v.str());
    return u ? *u : apimachinery::gourl::URL{};
  };
  b.Member("getScheme", {U}, S,
           [parsed](EvalContext&, const Args& a) { return Value::String(parsed(a[0]).scheme); });
  b.Member("getHost", {U}, S,
           [parsed](EvalContext&, const Args& a) { return Value::String(parsed(a[0]).host); });
  b.Member("getHostname", {U}, S, [parsed](EvalContext&, const Args& a) {
    std::string h = parsed(a[0]).host;
    size_t at = h.rfind('@');
    if (at != std::string::npos) h = h.substr(at + 1);
    if (!h.empty() && h[0] == '[') {
      size_t close = h.find(']');
      return Value::String(h.substr(1, close == std::string::npos ? std::string::npos : close - 1));
    }
    size_t colon = h.rfind(':');
    return Value::String(colon == std::string::npos ? h : h.substr(0, colon));
  });
  b.Member("getPort", {U}, S, [parsed](EvalContext&, const Args& a) {
    std::string h = parsed(a[0]).host;
    size_t close = h.rfind(']');
    size_t colon = h.rfind(':');
    if (colon == std::string::npos || (close != std::string::npos && colon < close))
      return Value::String("");
    return Value::String(h.substr(colon + 1));
  });
  b.Member("getEscapedPath", {U}, S,
           [parsed](EvalContext&, const Args& a) { return Value::String(parsed(a[0]).raw_path); });
  b.Member("getQuery", {U}, MapOf(S, ListOf(S)), [parsed](EvalContext&, const Args& a) {
    std::string q = parsed(a[0]).raw_query;
    std::vector<std::pair<std::string, std::vector<Value>>> entries;
    size_t pos = 0;
    while (pos <= q.size() && !q.empty()) {
      size_t amp = q.find('&', pos);
      std::string part = q.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
      pos = amp == std::string::npos ? q.size() + 1 : amp + 1;
      if (part.empty() || part.find(';') != std::string::npos) continue;
      size_t eq = part.find('=');
      bool ok1, ok2;
      std::string key = Unescape(part.substr(0, eq), true, &ok1);
      std::string val = eq == std::string::npos ? "" : Unescape(part.substr(eq + 1), true, &ok2);
      if (!ok1 || (eq != std::string::npos && !ok2)) continue;
      auto it = std::find_if(entries.begin(), entries.end(),
                             [&](const auto& e) { return e.first == key; });
      if (it == entries.end()) {
        entries.push_back({key, {}});
        it = entries.end() - 1;
      }
      it->second.push_back(Value::String(val));
    }
    std::vector<std::pair<Value, Value>> m;
    for (auto& [k, v] : entries) m.emplace_back(Value::String(k), Value::List(std::move(v)));
    return Value::Map(std::move(m));
  });
}

}  // namespace apiextensions::cel::internal
