#pragma once
// Number spellings of Go's strconv that sigs.k8s.io/yaml and go-yaml produce (internal to
// apimachinery/yaml).

#include <string>

namespace apimachinery::yaml::internal {

// The shortest decimal that reads back as v: v = 0.digits x 10^point ("" digits for zero).
struct ShortestDecimal {
  std::string digits;
  int point = 0;
  bool negative = false;
};
// single_precision rounds v to a float first (Go's bitSize 32).
ShortestDecimal Shortest(double v, bool single_precision);

// strconv.FormatFloat(v, 'g', -1, 64 or 32): "1", "1.5", "1e+06", "1e-05", "+Inf", "NaN".
std::string FormatFloatG(double v, bool single_precision);

// go-yaml's float spelling: FormatFloatG with ".inf", "-.inf" and ".nan".
std::string FormatYAMLFloat(double v, bool single_precision);

}  // namespace apimachinery::yaml::internal
