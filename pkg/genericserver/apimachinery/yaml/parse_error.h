#pragma once
// Turns yaml-cpp's parse errors into go-yaml's wording and line numbering (internal to
// apimachinery/yaml).

#include <string>
#include <string_view>

namespace apimachinery::yaml::internal {

// What yaml-cpp reported: its message and where (0-based line, byte offset).
struct ParserFailure {
  std::string_view message;
  int line = 0;
  int pos = 0;
  bool too_deep = false;  // yaml-cpp's nesting guard fired
};

// go-yaml's message for the failure, without the "yaml: " prefix, e.g.
// "line 3: mapping values are not allowed in this context". Like go-yaml, scanner errors
// name the 1-based line and parser errors ("did not find expected key") the 0-based one of
// the offending token; neither names line 0.
std::string DescribeParseFailure(std::string_view input, const ParserFailure& failure);

// "line N: " as go-yaml writes it for a scanner error at the 0-based line (N = line + 1), and
// for a parser error (N = line); "" for line 0.
std::string ScannerLinePrefix(int line);
std::string ParserLinePrefix(int line);

}  // namespace apimachinery::yaml::internal
