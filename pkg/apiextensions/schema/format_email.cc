// The "email" format: strfmt.IsEmail, i.e. Go's net/mail.ParseAddress succeeds and yields a
// non-empty address. A port of the parts of Go 1.23's addrParser that decide acceptance: an
// addr-spec (dot-atom or quoted-string local part, dot-atom or domain-literal domain) with an
// optional trailing comment, a display name (phrase) with an angle-addr, or a group holding
// exactly one address; RFC 2047 encoded words only fail for unknown charsets.

#include <string>
#include <vector>

#include "pkg/apiextensions/schema/format_checks.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::schema::formats {

namespace {

namespace v = apimachinery::validation;

bool IsVchar(char32_t r) { return (r >= '!' && r <= '~') || r >= 0x80; }
bool IsWSP(char32_t r) { return r == ' ' || r == '\t'; }
bool IsQtext(char32_t r) { return r != '\\' && r != '"' && IsVchar(r); }
bool IsDtext(char32_t r) { return r != '[' && r != ']' && r != '\\' && IsVchar(r); }

bool IsAtext(char32_t r, bool dot) {
  switch (r) {
    case '.':
      return dot;
    case '(':
    case ')':
    case '<':
    case '>':
    case '[':
    case ']':
    case ':':
    case ';':
    case '@':
    case '\\':
    case ',':
    case '"':
      return false;
    default:
      return IsVchar(r);
  }
}

bool InvalidRune(std::string_view s, v::DecodedRune r) {
  return r.rune == 0xFFFD && r.size == 1 && static_cast<unsigned char>(s[0]) >= 0x80;
}

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool IsBase64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

// Whether base64.StdEncoding decodes the text (padding required).
bool StdBase64(std::string_view s) {
  if (s.size() % 4 != 0) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsBase64Char(s[i])) continue;
    if (s[i] != '=') return false;
    // Padding only at the end: "xx==" or "xxx=".
    const size_t from_end = s.size() - i;
    if (from_end > 2) return false;
    if (from_end == 2 && s[i + 1] != '=') return false;
  }
  return true;
}

bool QDecodable(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '=') {
      if (i + 2 >= s.size()) return false;
      auto hex = [](char h) {
        return (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
      };
      if (!hex(s[i + 1]) || !hex(s[i + 2])) return false;
      i += 2;
    } else if (!((c <= '~' && c >= ' ') || c == '\n' || c == '\r' || c == '\t' || c == '_')) {
      return false;
    }
  }
  return true;
}

// decodeRFC2047Word's error: only a well-formed encoded word with a charset the default decoder
// cannot convert fails (other malformed words are taken literally).
bool RFC2047Fails(std::string_view word) {
  if (word.size() < 8 || !word.starts_with("=?") || !word.ends_with("?=")) return false;
  size_t marks = 0;
  for (char c : word) marks += c == '?';
  if (marks != 4) return false;
  std::string_view inner = word.substr(2, word.size() - 4);
  const size_t q = inner.find('?');
  const std::string_view charset = inner.substr(0, q);
  const std::string_view text = inner.substr(q + 1);
  if (text.size() < 2 || text[1] != '?') return false;
  const char encoding = text[0];
  const std::string_view content = text.substr(2);
  if (encoding == 'B' || encoding == 'b') {
    if (!StdBase64(content)) return false;
  } else if (encoding == 'Q' || encoding == 'q') {
    if (!QDecodable(content)) return false;
  } else {
    return false;
  }
  return !(EqualFold(charset, "utf-8") || EqualFold(charset, "iso-8859-1") ||
           EqualFold(charset, "us-ascii"));
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  bool ParseSingle() {
    std::vector<std::string> addrs;
    if (!ParseAddress(true, addrs)) return false;
    if (!SkipCFWS()) return false;
    if (!s_.empty()) return false;
    return addrs.size() == 1 && !addrs[0].empty();
  }

 private:
  bool Consume(char c) {
    if (s_.empty() || s_[0] != c) return false;
    s_.remove_prefix(1);
    return true;
  }

  void SkipSpace() {
    while (!s_.empty() && (s_[0] == ' ' || s_[0] == '\t')) s_.remove_prefix(1);
  }

  // skipComment after '(': whether the comment closes.
  bool SkipComment(std::string* comment) {
    int depth = 1;
    while (!s_.empty() && depth != 0) {
      if (s_[0] == '\\' && s_.size() > 1) {
        s_.remove_prefix(1);
      } else if (s_[0] == '(') {
        ++depth;
      } else if (s_[0] == ')') {
        --depth;
      }
      if (depth > 0 && comment) comment->push_back(s_[0]);
      s_.remove_prefix(1);
    }
    return depth == 0;
  }

  bool SkipCFWS() {
    SkipSpace();
    while (Consume('(')) {
      if (!SkipComment(nullptr)) return false;
      SkipSpace();
    }
    return true;
  }

  bool ConsumeAtom(bool dot, bool permissive, std::string& atom) {
    size_t i = 0;
    while (i < s_.size()) {
      const v::DecodedRune r = v::DecodeRune(s_.substr(i));
      if (InvalidRune(s_.substr(i), r)) return false;
      if (!IsAtext(r.rune, dot)) break;
      i += r.size;
    }
    if (i == 0) return false;
    atom = std::string(s_.substr(0, i));
    s_.remove_prefix(i);
    if (!permissive) {
      if (atom.front() == '.' || atom.back() == '.' || atom.find("..") != std::string::npos) {
        return false;
      }
    }
    return true;
  }

  bool ConsumeQuotedString(std::string& out) {
    size_t i = 1;
    bool escaped = false;
    out.clear();
    for (;;) {
      if (i >= s_.size()) return false;  // unclosed
      const v::DecodedRune r = v::DecodeRune(s_.substr(i));
      if (InvalidRune(s_.substr(i), r)) return false;
      if (escaped) {
        if (!IsVchar(r.rune) && !IsWSP(r.rune)) return false;
        out.append(s_.substr(i, r.size));
        escaped = false;
      } else if (IsQtext(r.rune) || IsWSP(r.rune)) {
        out.append(s_.substr(i, r.size));
      } else if (r.rune == '"') {
        break;
      } else if (r.rune == '\\') {
        escaped = true;
      } else {
        return false;
      }
      i += r.size;
    }
    s_.remove_prefix(i + 1);
    return true;
  }

  bool ConsumeDomainLiteral(std::string& out) {
    if (!Consume('[')) return false;
    std::string dtext;
    for (;;) {
      if (s_.empty()) return false;
      if (s_[0] == ']') break;
      const v::DecodedRune r = v::DecodeRune(s_);
      if (InvalidRune(s_, r)) return false;
      if (!IsDtext(r.rune)) return false;
      dtext.append(s_.substr(0, r.size));
      s_.remove_prefix(r.size);
    }
    if (!Consume(']')) return false;
    if (!ParseIP(dtext)) return false;
    out = "[" + dtext + "]";
    return true;
  }

  bool ConsumeAddrSpec(std::string& spec) {
    const std::string_view orig = s_;
    auto fail = [&] {
      s_ = orig;
      return false;
    };
    std::string local;
    SkipSpace();
    if (s_.empty()) return fail();
    if (s_[0] == '"') {
      if (!ConsumeQuotedString(local) || local.empty()) return fail();
    } else if (!ConsumeAtom(true, false, local)) {
      return fail();
    }
    if (!Consume('@')) return fail();
    std::string domain;
    SkipSpace();
    if (s_.empty()) return fail();
    if (s_[0] == '[') {
      if (!ConsumeDomainLiteral(domain)) return fail();
    } else if (!ConsumeAtom(true, false, domain)) {
      return fail();
    }
    spec = local + "@" + domain;
    return true;
  }

  bool ConsumePhrase(std::string& phrase) {
    std::vector<std::string> words;
    bool failed = false;
    for (;;) {
      if (!words.empty() && !SkipCFWS()) return false;  // misformatted comment
      SkipSpace();
      if (s_.empty()) break;
      std::string word;
      if (s_[0] == '"') {
        failed = !ConsumeQuotedString(word);
      } else {
        failed = !ConsumeAtom(true, true, word) || RFC2047Fails(word);
      }
      if (failed) break;
      words.push_back(std::move(word));
    }
    if (failed && words.empty()) return false;
    phrase.clear();
    for (size_t i = 0; i < words.size(); ++i) {
      if (i) phrase += ' ';
      phrase += words[i];
    }
    return true;
  }

  bool ConsumeDisplayNameComment() {
    if (!Consume('(')) return false;
    std::string comment;
    if (!SkipComment(&comment)) return false;
    size_t i = 0;
    while (i < comment.size()) {
      while (i < comment.size() && (comment[i] == ' ' || comment[i] == '\t')) ++i;
      size_t j = i;
      while (j < comment.size() && comment[j] != ' ' && comment[j] != '\t') ++j;
      if (j > i && RFC2047Fails(std::string_view(comment).substr(i, j - i))) return false;
      i = j;
    }
    return true;
  }

  bool ConsumeGroupList(std::vector<std::string>& group) {
    SkipSpace();
    if (Consume(';')) {
      SkipCFWS();
      return true;
    }
    for (;;) {
      SkipSpace();
      if (!ParseAddress(false, group)) return false;
      if (!SkipCFWS()) return false;
      if (Consume(';')) {
        SkipCFWS();
        return true;
      }
      if (!Consume(',')) return false;
    }
  }

  bool ParseAddress(bool handle_group, std::vector<std::string>& out) {
    SkipSpace();
    std::string spec;
    if (ConsumeAddrSpec(spec)) {
      SkipSpace();
      if (!s_.empty() && s_[0] == '(' && !ConsumeDisplayNameComment()) return false;
      out.push_back(spec);
      return true;
    }
    std::string display;
    if (s_.empty() || s_[0] != '<') {
      if (!ConsumePhrase(display)) return false;
    }
    SkipSpace();
    if (handle_group && Consume(':')) return ConsumeGroupList(out);
    if (!Consume('<')) return false;
    if (!ConsumeAddrSpec(spec)) return false;
    if (!Consume('>')) return false;
    out.push_back(spec);
    return true;
  }

  std::string_view s_;
};

}  // namespace

bool IsEmail(std::string_view s) { return Parser(s).ParseSingle(); }

}  // namespace apiextensions::schema::formats
