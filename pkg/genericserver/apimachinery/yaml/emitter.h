#pragma once
// go-yaml's emitter (libyaml's, ported to Go) reduced to what JSONToYAML writes: block
// mappings, block sequences, {} and [] for empty ones, and scalars in the style go-yaml picks
// (plain, single- or double-quoted, literal). Two dialects: v2's (JSONToYAML) and v3's
// marshalling of a node tree (gnostic's Any.yaml). Internal to apimachinery/yaml.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace apimachinery::yaml::internal {

enum class Dialect {
  // go-yaml v2 marshalling Go values: keys in keyList order, two-space indentation, sequences
  // in mappings at their key's indentation, folding at 80 columns, YAML 1.1 quoting.
  kV2,
  // go-yaml v3 marshalling a node tree parsed from JSON with every style cleared: keys in the
  // JSON's order, four-space indentation aligned to multiples of four (two inside a "- "
  // item), no folding, YAML 1.2 quoting, numbers as the JSON spells them.
  kV3Node,
};

class Emitter {
 public:
  explicit Emitter(Dialect dialect = Dialect::kV2);
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

  // Structure (emitter.cc). `sequence_item`: the node is an item of a block sequence.
  void Node(const nlohmann::json& value, bool mapping_context, bool simple_key_context,
            bool sequence_item = false);
  void BlockMapping(const nlohmann::json& object);
  void BlockSequence(const nlohmann::json& array);
  void EmptyCollection(std::string_view open, std::string_view close);
  void StringScalar(std::string_view text);

  // Scalars (scalar_writer.cc).
  Analysis Analyze(std::string_view value) const;
  bool IsSimpleKey(std::string_view key) const;
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

  Dialect dialect_;
  int best_indent_;
  int best_width_;
  std::string out_;
  int column_ = 0;
  int indent_ = -1;
  std::vector<int> indents_;
  bool whitespace_ = true;  // the last character written was whitespace
  bool indention_ = true;   // only indentation written on this line so far
  bool mapping_context_ = false;
  bool simple_key_context_ = false;
  bool sequence_item_ = false;  // v3 indents a block inside a "- " item by two only
};

}  // namespace apimachinery::yaml::internal
