#pragma once
// go-yaml v2's emitter (libyaml's, ported to Go) reduced to what JSONToYAML writes: block
// mappings with sorted keys, block sequences, {} and [] for empty ones, and scalars in the
// style go-yaml picks (plain, single- or double-quoted, literal), folded at 80 columns.
// Internal to apimachinery/yaml.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace apimachinery::yaml::internal {

class Emitter {
 public:
  // Writes one document (its root and the final line break).
  void Document(const nlohmann::json& root);
  std::string Output() && { return std::move(out_); }

 private:
  enum class Style { kPlain, kSingleQuoted, kDoubleQuoted, kLiteral };

  // What a scalar's text allows (libyaml's yaml_emitter_analyze_scalar, block context).
  struct Analysis {
    bool multiline = false;
    bool plain_allowed = true;
    bool single_quoted_allowed = true;
    bool block_allowed = true;
  };

  // Structure (emitter.cc).
  void Node(const nlohmann::json& value, bool mapping_context, bool simple_key_context);
  void BlockMapping(const nlohmann::json& object);
  void BlockSequence(const nlohmann::json& array);
  void EmptyCollection(std::string_view open, std::string_view close);
  void StringScalar(std::string_view text);

  // Scalars (scalar_writer.cc).
  static Analysis Analyze(std::string_view value);
  static bool IsSimpleKey(std::string_view key);
  void Scalar(std::string_view text, Style requested);
  void WritePlain(std::string_view value, bool allow_breaks);
  void WriteSingleQuoted(std::string_view value, bool allow_breaks);
  void WriteDoubleQuoted(std::string_view value, bool allow_breaks);
  void WriteLiteral(std::string_view value);

  // Output primitives (emitter.cc).
  void Put(char c);
  void PutBreak();
  void WriteChar(std::string_view value, std::size_t& i);
  void WriteBreak(std::string_view value, std::size_t& i);
  void WriteIndent();
  void WriteIndicator(std::string_view indicator, bool need_whitespace, bool is_whitespace,
                      bool is_indention);
  void IncreaseIndent(bool flow, bool indentless);
  void PopIndent();

  std::string out_;
  int column_ = 0;
  int indent_ = -1;
  std::vector<int> indents_;
  bool whitespace_ = true;  // the last character written was whitespace
  bool indention_ = true;   // only indentation written on this line so far
  bool mapping_context_ = false;
  bool simple_key_context_ = false;
};

}  // namespace apimachinery::yaml::internal
