#include "pkg/genericserver/apimachinery/yaml/go_values.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <system_error>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/go_format.h"
#include "pkg/util/strings.h"

namespace apimachinery::yaml::internal {

std::optional<nlohmann::json> JSONNumber(double v) {
  if (std::isnan(v) || std::isinf(v)) return std::nullopt;
  if (v == 0) return nlohmann::json(0);
  const double abs = std::fabs(v);
  // encoding/json switches to exponent notation outside [1e-6, 1e21).
  if (abs < 1e-6 || abs >= 1e21) return nlohmann::json(v);
  const ShortestDecimal d = Shortest(v, false);
  if (static_cast<int>(d.digits.size()) > d.point) return nlohmann::json(v);  // has a fraction
  // Integral: Go writes the shortest digits padded with zeros; read them back as an integer.
  const std::string text =
      d.digits + std::string(static_cast<std::size_t>(d.point) - d.digits.size(), '0');
  std::uint64_t u = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), u);
  if (r.ec != std::errc()) return nlohmann::json(v);
  constexpr std::uint64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
  if (d.negative) {
    if (u > kInt64Max + 1) return nlohmann::json(v);
    if (u == kInt64Max + 1) return nlohmann::json(std::numeric_limits<std::int64_t>::min());
    return nlohmann::json(-static_cast<std::int64_t>(u));
  }
  if (u <= kInt64Max) return nlohmann::json(static_cast<std::int64_t>(u));
  return nlohmann::json(u);
}

std::string UnsupportedValueError(double v) {
  return "json: unsupported value: " + FormatFloatG(v, false);
}

std::string GoSyntax(const nlohmann::json& v, bool top) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return top ? "<nil>" : "interface {}(nil)";
    case nlohmann::json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_integer:
      return std::to_string(v.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx",
                    static_cast<unsigned long long>(v.get<std::uint64_t>()));
      return buf;
    }
    case nlohmann::json::value_t::number_float:
      return FormatFloatG(v.get<double>(), false);
    case nlohmann::json::value_t::string:
      return util::Quote(v.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      std::string out = "[]interface {}{";
      bool first = true;
      for (const auto& item : v) {
        if (!first) out += ", ";
        first = false;
        out += GoSyntax(item, false);
      }
      return out + "}";
    }
    case nlohmann::json::value_t::object: {
      std::string out = "map[interface {}]interface {}{";
      bool first = true;
      for (const auto& [key, item] : v.items()) {
        if (!first) out += ", ";
        first = false;
        out += util::Quote(key) + ":" + GoSyntax(item, false);
      }
      return out + "}";
    }
    default:
      return "<nil>";
  }
}

}  // namespace apimachinery::yaml::internal
