#include "pkg/genericserver/apimachinery/yaml/emitter.h"

#include <climits>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/go_format.h"
#include "pkg/genericserver/apimachinery/yaml/key_order.h"
#include "pkg/genericserver/apimachinery/yaml/resolve.h"
#include "pkg/genericserver/apimachinery/yaml/utf8.h"

namespace apimachinery::yaml::internal {

Emitter::Emitter(Dialect dialect)
    : dialect_(dialect),
      best_indent_(dialect == Dialect::kV2 ? 2 : 4),
      best_width_(dialect == Dialect::kV2 ? 80 : INT_MAX) {}

void Emitter::Document(const nlohmann::json& root) {
  Node(root, false, false);
  WriteIndent();  // the document ends with a line break
}

void Emitter::Node(const nlohmann::json& value, bool mapping_context, bool simple_key_context,
                   bool sequence_item) {
  mapping_context_ = mapping_context;
  simple_key_context_ = simple_key_context;
  sequence_item_ = sequence_item;
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      if (value.empty()) {
        EmptyCollection("{", "}");
      } else {
        BlockMapping(value);
      }
      return;
    case nlohmann::json::value_t::array:
      if (value.empty()) {
        EmptyCollection("[", "]");
      } else {
        BlockSequence(value);
      }
      return;
    case nlohmann::json::value_t::string:
      StringScalar(value.get_ref<const std::string&>());
      return;
    case nlohmann::json::value_t::boolean:
      Scalar(value.get<bool>() ? "true" : "false", Style::kPlain);
      return;
    case nlohmann::json::value_t::number_integer:
      Scalar(std::to_string(value.get<std::int64_t>()), Style::kPlain);
      return;
    case nlohmann::json::value_t::number_unsigned:
      Scalar(std::to_string(value.get<std::uint64_t>()), Style::kPlain);
      return;
    case nlohmann::json::value_t::number_float:
      // A v3 node keeps the number's JSON text.
      Scalar(dialect_ == Dialect::kV2 ? FormatYAMLFloat(value.get<double>(), false) : value.dump(),
             Style::kPlain);
      return;
    default:  // null, and values JSON does not have
      Scalar("null", Style::kPlain);
      return;
  }
}

// go-yaml's stringv (v2) and node encoding of a !!str scalar (v3): a literal block for text
// with line breaks, plain text when it reads back as the same string, double quotes otherwise.
void Emitter::StringScalar(std::string_view text) {
  const std::string valid = SanitizeUTF8(text);
  if (valid.find('\n') != std::string::npos) {
    Scalar(valid, Style::kLiteral);
  } else if (!(dialect_ == Dialect::kV2 ? NeedsQuotes(valid) : NeedsQuotesV3(valid))) {
    Scalar(valid, Style::kPlain);
  } else {
    Scalar(valid, Style::kDoubleQuoted);
  }
}

void Emitter::BlockMapping(const nlohmann::json& object) {
  IncreaseIndent(false, false);
  std::vector<std::string_view> keys;
  std::vector<const nlohmann::json*> values;
  keys.reserve(object.size());
  values.reserve(object.size());
  for (auto it = object.begin(); it != object.end(); ++it) {
    keys.push_back(it.key());
    values.push_back(&it.value());
  }
  std::vector<std::size_t> order;
  if (dialect_ == Dialect::kV2) {
    order = KeyOrder(keys);
  } else {
    for (std::size_t i = 0; i < keys.size(); ++i) order.push_back(i);
  }
  for (const std::size_t i : order) {
    const std::string_view key = keys[i];
    sequence_item_ = false;
    WriteIndent();
    if (IsSimpleKey(key)) {
      mapping_context_ = true;
      simple_key_context_ = true;
      StringScalar(key);
      WriteIndicator(":", false, false, false);
    } else {
      // Long or multi-line keys: "? key" then ": value" on its own line.
      WriteIndicator("?", true, false, true);
      mapping_context_ = true;
      simple_key_context_ = false;
      StringScalar(key);
      WriteIndent();
      WriteIndicator(":", true, false, true);
    }
    Node(*values[i], true, false);
  }
  PopIndent();
}

void Emitter::BlockSequence(const nlohmann::json& array) {
  // v2: in a mapping value the "- " items stay at the key's indentation.
  IncreaseIndent(false, dialect_ == Dialect::kV2 && mapping_context_ && !indention_);
  for (const auto& item : array) {
    WriteIndent();
    WriteIndicator("-", true, false, true);
    Node(item, false, false, true);
  }
  PopIndent();
}

void Emitter::EmptyCollection(std::string_view open, std::string_view close) {
  WriteIndicator(open, true, true, false);
  WriteIndicator(close, false, false, false);
}

void Emitter::Put(char c) {
  out_.push_back(c);
  ++column_;
}

void Emitter::PutBreak() {
  out_.push_back('\n');
  column_ = 0;
}

void Emitter::WriteChar(std::string_view value, std::size_t& i) {
  const std::size_t width = RuneWidth(static_cast<unsigned char>(value[i]));
  out_.append(value.substr(i, width));
  ++column_;
  i += width;
}

void Emitter::WriteBreak(std::string_view value, std::size_t& i) {
  if (value[i] == '\n') {
    PutBreak();
    ++i;
  } else {
    WriteChar(value, i);
    column_ = 0;
  }
}

void Emitter::WriteIndent() {
  const int indent = indent_ < 0 ? 0 : indent_;
  if (!indention_ || column_ > indent || (column_ == indent && !whitespace_)) PutBreak();
  while (column_ < indent) Put(' ');
  whitespace_ = true;
  indention_ = true;
}

void Emitter::WriteIndicator(std::string_view indicator, bool need_whitespace, bool is_whitespace,
                             bool is_indention) {
  if (need_whitespace && !whitespace_) Put(' ');
  for (std::size_t i = 0; i < indicator.size();) WriteChar(indicator, i);
  whitespace_ = is_whitespace;
  indention_ = indention_ && is_indention;
}

void Emitter::IncreaseIndent(bool flow, bool indentless) {
  indents_.push_back(indent_);
  if (indent_ < 0) {
    indent_ = flow ? best_indent_ : 0;
  } else if (indentless) {
    return;
  } else if (dialect_ == Dialect::kV2 || sequence_item_) {
    indent_ += 2;  // v3: only past the "- " of the item
  } else {
    indent_ = best_indent_ * ((indent_ + best_indent_) / best_indent_);
  }
}

void Emitter::PopIndent() {
  indent_ = indents_.back();
  indents_.pop_back();
}

}  // namespace apimachinery::yaml::internal
