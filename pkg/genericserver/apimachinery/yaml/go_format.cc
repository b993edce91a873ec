#include "pkg/genericserver/apimachinery/yaml/go_format.h"

#include <charconv>
#include <cmath>

namespace apimachinery::yaml::internal {

ShortestDecimal Shortest(double v, bool single_precision) {
  ShortestDecimal d;
  d.negative = std::signbit(v);
  char buf[64];
  std::to_chars_result r{};
  if (single_precision) {
    r = std::to_chars(buf, buf + sizeof buf, std::fabs(static_cast<float>(v)),
                      std::chars_format::scientific);
  } else {
    r = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
  }
  // "d[.ddd]e[+-]XX"
  const char* p = buf;
  for (; p < r.ptr && *p != 'e'; ++p) {
    if (*p != '.') d.digits.push_back(*p);
  }
  int exponent = 0;
  if (p < r.ptr) std::from_chars(p + (p[1] == '+' ? 2 : 1), r.ptr, exponent);
  if (d.digits.find_first_not_of('0') == std::string::npos) {
    d.digits.clear();
    d.point = 0;
    return d;
  }
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  d.point = exponent + 1;
  return d;
}

std::string FormatFloatG(double v, bool single_precision) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  const ShortestDecimal d = Shortest(v, single_precision);
  const int nd = static_cast<int>(d.digits.size());
  std::string out = d.negative ? "-" : "";
  const int exp = d.point - 1;
  // With the shortest digits Go switches to %e below 1e-4 and from 1e6 on (eprec = 6).
  if (exp < -4 || exp >= 6) {
    out.push_back(nd == 0 ? '0' : d.digits[0]);
    if (nd > 1) {
      out.push_back('.');
      out.append(d.digits, 1, std::string::npos);
    }
    out.push_back('e');
    int e = nd == 0 ? 0 : exp;
    out.push_back(e < 0 ? '-' : '+');
    if (e < 0) e = -e;
    if (e < 10) out.push_back('0');
    out += std::to_string(e);
    return out;
  }
  // %f with max(nd - point, 0) fraction digits.
  if (d.point > 0) {
    for (int i = 0; i < d.point; ++i) out.push_back(i < nd ? d.digits[i] : '0');
  } else {
    out.push_back('0');
  }
  const int frac = nd - d.point;
  if (frac > 0) {
    out.push_back('.');
    for (int i = 0; i < frac; ++i) {
      const int j = d.point + i;
      out.push_back(j >= 0 && j < nd ? d.digits[j] : '0');
    }
  }
  return out;
}

std::string FormatYAMLFloat(double v, bool single_precision) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  return FormatFloatG(v, single_precision);
}

}  // namespace apimachinery::yaml::internal
