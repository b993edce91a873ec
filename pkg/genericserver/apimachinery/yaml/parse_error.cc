#include "pkg/genericserver/apimachinery/yaml/parse_error.h"

#include <cstddef>

namespace apimachinery::yaml::internal {

namespace {

enum class Stage { kScanner, kParser };

struct Translation {
  std::string_view yaml_cpp;  // yaml-cpp's message, or its prefix
  std::string_view go_yaml;
  Stage stage;
};

// yaml-cpp's ErrorMsg texts and the libyaml problem that the same input produces.
constexpr Translation kTranslations[] = {
    {"illegal map value", "mapping values are not allowed in this context", Stage::kScanner},
    {"illegal map key", "mapping keys are not allowed in this context", Stage::kScanner},
    {"illegal block entry", "block sequence entries are not allowed in this context",
     Stage::kScanner},
    {"unknown token", "found character that cannot start any token", Stage::kScanner},
    {"illegal tab when looking for indentation", "found a tab character that violates indentation",
     Stage::kScanner},
    {"illegal EOF in scalar", "found unexpected end of stream", Stage::kScanner},
    {"illegal document indicator in scalar", "found unexpected document indicator",
     Stage::kScanner},
    {"unknown escape character", "found unknown escape character", Stage::kScanner},
    {"bad character found while scanning hex number", "did not find expected hexdecimal number",
     Stage::kScanner},
    {"invalid unicode", "found invalid Unicode character escape code", Stage::kScanner},
    {"alias not found after *", "did not find expected alphabetic or numeric character",
     Stage::kScanner},
    {"anchor not found after &", "did not find expected alphabetic or numeric character",
     Stage::kScanner},
    {"cannot set zero indentation for a block scalar", "found an indentation indicator equal to 0",
     Stage::kScanner},
    {"unexpected character in block scalar", "did not find expected comment or line break",
     Stage::kScanner},
    {"end of map not found", "did not find expected key", Stage::kParser},
    {"end of map flow not found", "did not find expected ',' or '}'", Stage::kParser},
    {"end of sequence not found", "did not find expected '-' indicator", Stage::kParser},
    {"end of sequence flow not found", "did not find expected ',' or ']'", Stage::kParser},
    {"illegal flow end", "did not find expected node content", Stage::kParser},
    {"YAML major version too large", "found incompatible YAML document", Stage::kParser},
};

std::string_view LineAt(std::string_view input, int line) {
  std::size_t start = 0;
  for (int l = 0; l < line; ++l) {
    const std::size_t nl = input.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
  }
  const std::size_t end = input.find('\n', start);
  return input.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

// libyaml refuses a tab where a block line's indentation ends ("\tkey: value"); yaml-cpp
// reports something else further on, so recognize the line.
bool StartsWithTabIndentation(std::string_view line) {
  bool tab = false;
  for (const char c : line) {
    if (c == '\t') {
      tab = true;
    } else if (c != ' ') {
      return tab && c != '\r' && c != '#';
    }
  }
  return false;
}

// The anchor name after the '*' at pos, as the "unknown anchor" message names it.
std::string_view AliasNameAt(std::string_view input, int pos) {
  if (pos < 0 || static_cast<std::size_t>(pos) >= input.size() || input[pos] != '*') return {};
  const std::size_t start = static_cast<std::size_t>(pos) + 1;
  std::size_t end = start;
  while (end < input.size() &&
         std::string_view(" \t\r\n,[]{}").find(input[end]) == std::string_view::npos) {
    ++end;
  }
  return input.substr(start, end - start);
}

}  // namespace

std::string ParserLinePrefix(int line) {
  return line > 0 ? "line " + std::to_string(line) + ": " : "";
}

std::string ScannerLinePrefix(int line) {
  return line > 0 ? "line " + std::to_string(line + 1) + ": " : "";
}

std::string DescribeParseFailure(std::string_view input, const ParserFailure& failure) {
  if (failure.too_deep) return "exceeded max depth of 500";
  if (failure.message == "the referenced anchor is not defined") {
    return "unknown anchor '" + std::string(AliasNameAt(input, failure.pos)) + "' referenced";
  }
  if (StartsWithTabIndentation(LineAt(input, failure.line))) {
    return ScannerLinePrefix(failure.line) + "found character that cannot start any token";
  }
  for (const Translation& t : kTranslations) {
    if (failure.message.starts_with(t.yaml_cpp)) {
      const std::string where = t.stage == Stage::kScanner ? ScannerLinePrefix(failure.line)
                                                           : ParserLinePrefix(failure.line);
      return where + std::string(t.go_yaml);
    }
  }
  return ScannerLinePrefix(failure.line) + std::string(failure.message);
}

}  // namespace apimachinery::yaml::internal
