#include "pkg/genericserver/apimachinery/yaml/emitter.h"

#include <cstdint>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/go_format.h"
#include "pkg/genericserver/apimachinery/yaml/key_order.h"
#include "pkg/genericserver/apimachinery/yaml/resolve.h"
#include "pkg/genericserver/apimachinery/yaml/utf8.h"

namespace apimachinery::yaml::internal {

void Emitter::Document(const nlohmann::json& root) {
  Node(root, false, false);
  WriteIndent();  // the document ends with a line break
}

void Emitter::Node(const nlohmann::json& value, bool mapping_context, bool simple_key_context) {
  mapping_context_ = mapping_context;
  simple_key_context_ = simple_key_context;
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
      Scalar(FormatYAMLFloat(value.get<double>(), false), Style::kPlain);
      return;
    default:  // null, and values JSON does not have
      Scalar("null", Style::kPlain);
      return;
  }
}

// go-yaml's stringv: a literal block for text with line breaks, plain text when it reads back
// as the same string, double quotes otherwise.
void Emitter::StringScalar(std::string_view text) {
  const std::string valid = SanitizeUTF8(text);
  if (valid.find('\n') != std::string::npos) {
    Scalar(valid, Style::kLiteral);
  } else if (!NeedsQuotes(valid)) {
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
  for (const std::size_t i : KeyOrder(keys)) {
    const std::string_view key = keys[i];
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
  // In a mapping value the "- " items stay at the key's indentation.
  IncreaseIndent(false, mapping_context_ && !indention_);
  for (const auto& item : array) {
    WriteIndent();
    WriteIndicator("-", true, false, true);
    Node(item, false, false);
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
    indent_ = flow ? 2 : 0;
  } else if (!indentless) {
    indent_ += 2;
  }
}

void Emitter::PopIndent() {
  indent_ = indents_.back();
  indents_.pop_back();
}

}  // namespace apimachinery::yaml::internal
