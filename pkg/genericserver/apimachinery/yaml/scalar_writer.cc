// Scalar styles of go-yaml's emitter: which style a text allows, and how each style writes
// it (v2 folds long lines at spaces past column 80, its default width; v3 never folds).

#include <cstdint>
#include <cstdio>

#include "pkg/genericserver/apimachinery/yaml/emitter.h"
#include "pkg/genericserver/apimachinery/yaml/utf8.h"

namespace apimachinery::yaml::internal {

namespace {

constexpr std::size_t kMaxSimpleKeyLength = 128;

unsigned char At(std::string_view v, std::size_t i) {
  return i < v.size() ? static_cast<unsigned char>(v[i]) : 0;
}

bool IsSpace(std::string_view v, std::size_t i) { return At(v, i) == ' '; }

bool IsBlank(std::string_view v, std::size_t i) { return At(v, i) == ' ' || At(v, i) == '\t'; }

// CR, LF, NEL, LS, PS.
bool IsBreak(std::string_view v, std::size_t i) {
  const unsigned char b = At(v, i);
  return b == '\r' || b == '\n' || (b == 0xC2 && At(v, i + 1) == 0x85) ||
         (b == 0xE2 && At(v, i + 1) == 0x80 && (At(v, i + 2) == 0xA8 || At(v, i + 2) == 0xA9));
}

bool IsBlankOrEnd(std::string_view v, std::size_t i) {
  return i >= v.size() || IsBlank(v, i) || IsBreak(v, i);
}

// libyaml's is_printable: LF, printable ASCII, and the BMP without surrogates, U+FEFF, U+FFFE
// and U+FFFF. C1 controls, tabs and characters beyond the BMP are not.
bool IsPrintable(std::string_view v, std::size_t i) {
  const unsigned char b = At(v, i);
  const unsigned char b1 = At(v, i + 1);
  const unsigned char b2 = At(v, i + 2);
  return b == 0x0A || (b >= 0x20 && b <= 0x7E) || (b == 0xC2 && b1 >= 0xA0) ||
         (b > 0xC2 && b < 0xED) || (b == 0xED && b1 < 0xA0) || b == 0xEE ||
         (b == 0xEF && !(b1 == 0xBB && b2 == 0xBF) && !(b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF)));
}

std::size_t Width(std::string_view v, std::size_t i) { return RuneWidth(At(v, i)); }

// The escape for one character in a double-quoted scalar ("\n", "\x09", "\u2028", ...).
std::string Escape(char32_t r) {
  switch (r) {
    case 0x00:
      return "\\0";
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case 0x09:
      return "\\t";
    case 0x0A:
      return "\\n";
    case 0x0B:
      return "\\v";
    case 0x0C:
      return "\\f";
    case 0x0D:
      return "\\r";
    case 0x1B:
      return "\\e";
    case 0x22:
      return "\\\"";
    case 0x5C:
      return "\\\\";
    case 0x85:
      return "\\N";
    case 0xA0:
      return "\\_";
    case 0x2028:
      return "\\L";
    case 0x2029:
      return "\\P";
    default:
      break;
  }
  char buf[16];
  if (r <= 0xFF) {
    std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(r));
  } else if (r <= 0xFFFF) {
    std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(r));
  } else {
    std::snprintf(buf, sizeof buf, "\\U%08X", static_cast<unsigned>(r));
  }
  return buf;
}

}  // namespace

Emitter::Analysis Emitter::Analyze(std::string_view value) const {
  Analysis a;
  if (value.empty()) {
    a.block_allowed = false;
    return a;
  }
  bool block_indicators = value.starts_with("---") || value.starts_with("...");
  bool special = false, tabs = false, line_breaks = false;
  bool leading_space = false, leading_break = false, trailing_space = false, trailing_break = false,
       break_space = false, space_break = false;
  bool preceded_by_whitespace = true, previous_space = false, previous_break = false;
  for (std::size_t i = 0, w = 0; i < value.size(); i += w) {
    w = Width(value, i);
    const bool followed_by_whitespace = i + w >= value.size() || IsBlank(value, i + w);
    const char c = value[i];
    if (i == 0) {
      if (std::string_view("#,[]{}&*!|>'\"%@`").find(c) != std::string_view::npos) {
        block_indicators = true;
      } else if ((c == '?' || c == ':' || c == '-') && followed_by_whitespace) {
        block_indicators = true;
      }
    } else if ((c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace)) {
      block_indicators = true;
    }
    if (c == '\t' && dialect_ == Dialect::kV3Node) {
      tabs = true;  // v3 quotes tabs but allows them in literal blocks
    } else if (!IsPrintable(value, i)) {
      special = true;
    }
    if (IsSpace(value, i)) {
      if (i == 0) leading_space = true;
      if (i + w == value.size()) trailing_space = true;
      if (previous_break) break_space = true;
      previous_space = true;
      previous_break = false;
    } else if (IsBreak(value, i)) {
      line_breaks = true;
      if (i == 0) leading_break = true;
      if (i + w == value.size()) trailing_break = true;
      if (previous_space) space_break = true;
      previous_space = false;
      previous_break = true;
    } else {
      previous_space = false;
      previous_break = false;
    }
    preceded_by_whitespace = IsBlankOrEnd(value, i);
  }
  a.multiline = line_breaks;
  if (leading_space || leading_break || trailing_space || trailing_break) a.plain_allowed = false;
  if (trailing_space) a.block_allowed = false;
  if (break_space) a.plain_allowed = a.single_quoted_allowed = false;
  if (space_break || tabs || special) a.plain_allowed = a.single_quoted_allowed = false;
  if (space_break || special) a.block_allowed = false;
  if (line_breaks || block_indicators) a.plain_allowed = false;
  return a;
}

bool Emitter::IsSimpleKey(std::string_view key) const {
  return !Analyze(key).multiline && key.size() <= kMaxSimpleKeyLength;
}

void Emitter::Scalar(std::string_view text, Style requested) {
  const Analysis a = Analyze(text);
  Style style = requested;
  if (simple_key_context_ && a.multiline) style = Style::kDoubleQuoted;
  if (style == Style::kPlain && (!a.plain_allowed || (text.empty() && simple_key_context_))) {
    style = Style::kSingleQuoted;
  }
  if (style == Style::kSingleQuoted && !a.single_quoted_allowed) style = Style::kDoubleQuoted;
  if (style == Style::kLiteral && (!a.block_allowed || simple_key_context_)) {
    style = Style::kDoubleQuoted;
  }
  IncreaseIndent(true, false);
  const bool allow_breaks = !simple_key_context_;
  switch (style) {
    case Style::kPlain:
      WritePlain(text, allow_breaks);
      break;
    case Style::kSingleQuoted:
      WriteSingleQuoted(text, allow_breaks);
      break;
    case Style::kDoubleQuoted:
      WriteDoubleQuoted(text, allow_breaks);
      break;
    case Style::kLiteral:
      WriteLiteral(text);
      break;
  }
  PopIndent();
}

void Emitter::WritePlain(std::string_view v, bool allow_breaks) {
  if (!whitespace_) Put(' ');
  bool spaces = false, breaks = false;
  for (std::size_t i = 0; i < v.size();) {
    if (IsSpace(v, i)) {
      if (allow_breaks && !spaces && column_ > best_width_ && !IsSpace(v, i + 1)) {
        WriteIndent();
        ++i;
      } else {
        WriteChar(v, i);
      }
      spaces = true;
    } else if (IsBreak(v, i)) {
      if (!breaks && v[i] == '\n') PutBreak();
      WriteBreak(v, i);
      indention_ = true;
      breaks = true;
    } else {
      if (breaks) WriteIndent();
      WriteChar(v, i);
      indention_ = false;
      spaces = breaks = false;
    }
  }
  whitespace_ = false;
  indention_ = false;
}

void Emitter::WriteSingleQuoted(std::string_view v, bool allow_breaks) {
  WriteIndicator("'", true, false, false);
  bool spaces = false, breaks = false;
  for (std::size_t i = 0; i < v.size();) {
    if (IsSpace(v, i)) {
      if (allow_breaks && !spaces && column_ > best_width_ && i > 0 && i < v.size() - 1 &&
          !IsSpace(v, i + 1)) {
        WriteIndent();
        ++i;
      } else {
        WriteChar(v, i);
      }
      spaces = true;
    } else if (IsBreak(v, i)) {
      if (!breaks && v[i] == '\n') PutBreak();
      WriteBreak(v, i);
      indention_ = true;
      breaks = true;
    } else {
      if (breaks) WriteIndent();
      if (v[i] == '\'') Put('\'');
      WriteChar(v, i);
      indention_ = false;
      spaces = breaks = false;
    }
  }
  WriteIndicator("'", false, false, false);
  whitespace_ = false;
  indention_ = false;
}

void Emitter::WriteDoubleQuoted(std::string_view v, bool allow_breaks) {
  WriteIndicator("\"", true, false, false);
  // go-yaml's BOM test looks at the start of the text, whatever the position.
  const bool bom = v.starts_with("\xEF\xBB\xBF");
  bool spaces = false;
  for (std::size_t i = 0; i < v.size();) {
    if (!IsPrintable(v, i) || bom || IsBreak(v, i) || v[i] == '"' || v[i] == '\\') {
      const std::string escape = Escape(DecodeRuneAt(v, i));
      for (const char c : escape) Put(c);
      i += Width(v, i);
      spaces = false;
    } else if (IsSpace(v, i)) {
      if (allow_breaks && !spaces && column_ > best_width_ && i > 0 && i < v.size() - 1) {
        WriteIndent();
        if (IsSpace(v, i + 1)) Put('\\');
        ++i;
      } else {
        WriteChar(v, i);
      }
      spaces = true;
    } else {
      WriteChar(v, i);
      spaces = false;
    }
  }
  WriteIndicator("\"", false, false, false);
  whitespace_ = false;
  indention_ = false;
}

void Emitter::WriteLiteral(std::string_view v) {
  WriteIndicator("|", true, false, false);
  if (IsSpace(v, 0) || IsBreak(v, 0)) {
    WriteIndicator(std::string(1, static_cast<char>('0' + best_indent_)), false, false, false);
  }
  // Chomping: "-" without a final line break, "+" with more than one, none with exactly one.
  std::size_t last = v.size() - 1;
  while (last > 0 && (At(v, last) & 0xC0) == 0x80) --last;
  if (!IsBreak(v, last)) {
    WriteIndicator("-", false, false, false);
  } else if (last == 0) {
    WriteIndicator("+", false, false, false);
  } else {
    std::size_t previous = last - 1;
    while (previous > 0 && (At(v, previous) & 0xC0) == 0x80) --previous;
    if (IsBreak(v, previous)) WriteIndicator("+", false, false, false);
  }
  // v3 ends the header line only before the first non-break character: a leading line break
  // of the text ends it instead (and so is lost on reading, as with go-yaml v3).
  if (dialect_ == Dialect::kV2) {
    PutBreak();
    indention_ = true;
  }
  whitespace_ = true;
  bool breaks = true;
  for (std::size_t i = 0; i < v.size();) {
    if (IsBreak(v, i)) {
      WriteBreak(v, i);
      indention_ = true;
      breaks = true;
    } else {
      if (breaks) WriteIndent();
      WriteChar(v, i);
      indention_ = false;
      breaks = false;
    }
  }
}

}  // namespace apimachinery::yaml::internal
