#include "pkg/apiextensions/cel/regex.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace apiextensions::cel {

namespace {

constexpr size_t kMaxProgram = 20000;
constexpr int kMaxRepeat = 1000;

// Decodes the UTF-8 code point at s[i]; invalid bytes decode as U+FFFD of length 1.
char32_t Decode(std::string_view s, size_t i, size_t* len) {
  auto c = static_cast<unsigned char>(s[i]);
  auto cont = [&](size_t k) {
    return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
  };
  if (c < 0x80) {
    *len = 1;
    return c;
  }
  if (c >= 0xC2 && c < 0xE0 && cont(1)) {
    *len = 2;
    return ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
  }
  if (c >= 0xE0 && c < 0xF0 && cont(1) && cont(2)) {
    *len = 3;
    return ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
  }
  if (c >= 0xF0 && c < 0xF5 && cont(1) && cont(2) && cont(3)) {
    *len = 4;
    return ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) |
           (s[i + 3] & 0x3F);
  }
  *len = 1;
  return 0xFFFD;
}

using Ranges = std::vector<std::pair<char32_t, char32_t>>;

enum class NodeKind { kEmpty, kClass, kAny, kConcat, kAlt, kRepeat, kAssert };
enum class AssertKind {
  kBeginText,
  kEndText,
  kBeginLine,
  kEndLine,
  kWordBoundary,
  kNotWordBoundary
};

struct Node {
  NodeKind kind = NodeKind::kEmpty;
  Ranges ranges;
  bool negate = false;
  bool dot_nl = false;
  std::vector<std::unique_ptr<Node>> kids;
  int min = 0;
  int max = -1;
  bool greedy = true;
  AssertKind assert_kind = AssertKind::kBeginText;
};
using NodePtr = std::unique_ptr<Node>;

struct ParseFailure {
  std::string message;
};

struct Flags {
  bool icase = false;
  bool multiline = false;
  bool dot_nl = false;
  bool ungreedy = false;
};

void AddRange(Ranges& r, char32_t lo, char32_t hi) { r.emplace_back(lo, hi); }

void AddFolded(Ranges& r, char32_t lo, char32_t hi, bool icase) {
  AddRange(r, lo, hi);
  if (!icase) return;
  // ASCII case folding of the overlap with the letters.
  char32_t a = std::max<char32_t>(lo, 'a'), b = std::min<char32_t>(hi, 'z');
  if (a <= b) AddRange(r, a - 32, b - 32);
  a = std::max<char32_t>(lo, 'A');
  b = std::min<char32_t>(hi, 'Z');
  if (a <= b) AddRange(r, a + 32, b + 32);
}

void AddPerlClass(Ranges& r, char c) {
  switch (c) {
    case 'd':
      AddRange(r, '0', '9');
      break;
    case 'w':
      AddRange(r, '0', '9');
      AddRange(r, 'A', 'Z');
      AddRange(r, 'a', 'z');
      AddRange(r, '_', '_');
      break;
    case 's':
      AddRange(r, '\t', '\n');
      AddRange(r, '\f', '\r');
      AddRange(r, ' ', ' ');
      break;
  }
}

Ranges Negated(const Ranges& in) {
  Ranges sorted = in;
  std::sort(sorted.begin(), sorted.end());
  Ranges out;
  char32_t next = 0;
  for (const auto& [lo, hi] : sorted) {
    if (lo > next) out.emplace_back(next, lo - 1);
    if (hi + 1 > next) next = hi + 1;
  }
  if (next <= 0x10FFFF) out.emplace_back(next, 0x10FFFF);
  return out;
}

bool AddPosixClass(Ranges& r, std::string_view name) {
  if (name == "alnum") {
    AddRange(r, '0', '9');
    AddRange(r, 'A', 'Z');
    AddRange(r, 'a', 'z');
  } else if (name == "alpha") {
    AddRange(r, 'A', 'Z');
    AddRange(r, 'a', 'z');
  } else if (name == "ascii") {
    AddRange(r, 0, 0x7F);
  } else if (name == "blank") {
    AddRange(r, '\t', '\t');
    AddRange(r, ' ', ' ');
  } else if (name == "cntrl") {
    AddRange(r, 0, 0x1F);
    AddRange(r, 0x7F, 0x7F);
  } else if (name == "digit") {
    AddRange(r, '0', '9');
  } else if (name == "graph") {
    AddRange(r, '!', '~');
  } else if (name == "lower") {
    AddRange(r, 'a', 'z');
  } else if (name == "print") {
    AddRange(r, ' ', '~');
  } else if (name == "punct") {
    AddRange(r, '!', '/');
    AddRange(r, ':', '@');
    AddRange(r, '[', '`');
    AddRange(r, '{', '~');
  } else if (name == "space") {
    AddRange(r, '\t', '\r');
    AddRange(r, ' ', ' ');
  } else if (name == "upper") {
    AddRange(r, 'A', 'Z');
  } else if (name == "word") {
    AddPerlClass(r, 'w');
  } else if (name == "xdigit") {
    AddRange(r, '0', '9');
    AddRange(r, 'A', 'F');
    AddRange(r, 'a', 'f');
  } else {
    return false;
  }
  return true;
}

class RegexParser {
 public:
  explicit RegexParser(std::string_view pattern) : src_(pattern) {}

  NodePtr ParseAll() {
    NodePtr n = ParseAlt();
    if (pos_ < src_.size()) {
      // Only an unmatched ')' stops ParseAlt early.
      Fail("unexpected )", src_);
    }
    return n;
  }

 private:
  [[noreturn]] void Fail(std::string_view code, std::string_view fragment) {
    throw ParseFailure{"error parsing regexp: " + std::string(code) + ": `" +
                       std::string(fragment) + "`"};
  }

  bool AtEnd() const { return pos_ >= src_.size(); }
  char32_t Peek(size_t* len) const { return Decode(src_, pos_, len); }
  char32_t Take() {
    size_t len;
    char32_t c = Decode(src_, pos_, &len);
    pos_ += len;
    return c;
  }

  NodePtr Make(NodeKind k) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    return n;
  }

  NodePtr ParseAlt() {
    if (++depth_ > 1000) Fail("expression nests too deeply", src_);
    std::vector<NodePtr> alts;
    alts.push_back(ParseConcat());
    while (!AtEnd() && src_[pos_] == '|') {
      ++pos_;
      alts.push_back(ParseConcat());
    }
    --depth_;
    if (alts.size() == 1) return std::move(alts[0]);
    NodePtr n = Make(NodeKind::kAlt);
    n->kids = std::move(alts);
    return n;
  }

  NodePtr ParseConcat() {
    NodePtr n = Make(NodeKind::kConcat);
    while (!AtEnd() && src_[pos_] != '|' && src_[pos_] != ')') {
      NodePtr atom = ParseAtom();
      if (!atom) continue;  // a flag group like (?i)
      atom = ParseRepeats(std::move(atom));
      n->kids.push_back(std::move(atom));
    }
    return n;
  }

  // Parses {n}, {n,}, {n,m} at pos_; false (pos_ unchanged) when not a repeat.
  bool ParseBraces(int* min, int* max) {
    size_t p = pos_ + 1;
    auto num = [&](int* out) {
      size_t s = p;
      long v = 0;
      while (p < src_.size() && src_[p] >= '0' && src_[p] <= '9') {
        v = v * 10 + (src_[p] - '0');
        if (v > 100000) v = 100000;
        ++p;
      }
      *out = static_cast<int>(v);
      return p > s;
    };
    if (!num(min)) return false;
    if (p < src_.size() && src_[p] == '}') {
      *max = *min;
    } else if (p < src_.size() && src_[p] == ',') {
      ++p;
      if (p < src_.size() && src_[p] == '}') {
        *max = -1;
      } else if (!num(max) || p >= src_.size() || src_[p] != '}') {
        return false;
      }
    } else {
      return false;
    }
    size_t start = pos_;
    pos_ = p + 1;
    if (*min > kMaxRepeat || *max > kMaxRepeat || (*max >= 0 && *max < *min)) {
      Fail("invalid repeat count", src_.substr(start, pos_ - start));
    }
    return true;
  }

  NodePtr ParseRepeats(NodePtr atom) {
    bool repeated = false;
    while (!AtEnd()) {
      char c = src_[pos_];
      size_t op_start = pos_;
      int min, max;
      if (c == '*') {
        min = 0;
        max = -1;
        ++pos_;
      } else if (c == '+') {
        min = 1;
        max = -1;
        ++pos_;
      } else if (c == '?') {
        min = 0;
        max = 1;
        ++pos_;
      } else if (c == '{') {
        if (!ParseBraces(&min, &max)) return atom;
      } else {
        return atom;
      }
      bool greedy = !flags_.ungreedy;
      if (!AtEnd() && src_[pos_] == '?') {
        greedy = !greedy;
        ++pos_;
      }
      if (repeated)
        Fail("invalid nested repetition operator", src_.substr(op_start - 1, pos_ - op_start + 1));
      if (atom->kind == NodeKind::kEmpty || (atom->kind == NodeKind::kAssert && false)) {
        Fail("missing argument to repetition operator", src_.substr(op_start, pos_ - op_start));
      }
      repeated = true;
      NodePtr r = Make(NodeKind::kRepeat);
      r->min = min;
      r->max = max;
      r->greedy = greedy;
      r->kids.push_back(std::move(atom));
      atom = std::move(r);
    }
    return atom;
  }

  NodePtr Literal(char32_t c) {
    NodePtr n = Make(NodeKind::kClass);
    AddFolded(n->ranges, c, c, flags_.icase);
    return n;
  }

  NodePtr Assert(AssertKind k) {
    NodePtr n = Make(NodeKind::kAssert);
    n->assert_kind = k;
    return n;
  }

  // Parses a group after '('.
  NodePtr ParseGroup(size_t open) {
    Flags saved = flags_;
    if (!AtEnd() && src_[pos_] == '?') {
      ++pos_;
      if (!AtEnd() && (src_[pos_] == 'P' || src_[pos_] == '<')) {
        if (src_[pos_] == 'P') ++pos_;
        if (AtEnd() || src_[pos_] != '<') Fail("invalid named capture", src_.substr(open));
        size_t close = src_.find('>', pos_);
        if (close == std::string_view::npos || close == pos_ + 1) {
          Fail("invalid named capture", src_.substr(open));
        }
        for (size_t k = pos_ + 1; k < close; ++k) {
          char ch = src_[k];
          if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) {
            Fail("invalid named capture", src_.substr(open, close - open + 1));
          }
        }
        pos_ = close + 1;
      } else {
        // Flags: (?flags) or (?flags:re)
        bool neg = false;
        Flags f = flags_;
        while (true) {
          if (AtEnd()) Fail("missing closing )", src_);
          char ch = src_[pos_++];
          if (ch == 'i') {
            f.icase = !neg;
          } else if (ch == 'm') {
            f.multiline = !neg;
          } else if (ch == 's') {
            f.dot_nl = !neg;
          } else if (ch == 'U') {
            f.ungreedy = !neg;
          } else if (ch == '-' && !neg) {
            neg = true;
          } else if (ch == ')') {
            flags_ = f;  // applies to the rest of the enclosing group
            return nullptr;
          } else if (ch == ':') {
            flags_ = f;
            break;
          } else {
            Fail("invalid or unsupported Perl syntax", src_.substr(open, pos_ - open));
          }
        }
      }
    }
    NodePtr inner = ParseAlt();
    if (AtEnd() || src_[pos_] != ')') Fail("missing closing )", src_);
    ++pos_;
    flags_ = saved;
    return inner;
  }

  void ParseEscapeInto(Ranges& r, bool* is_class_escape, char32_t* literal, size_t start) {
    *is_class_escape = false;
    if (AtEnd()) Fail("trailing backslash at end of expression", "");
    char32_t c = Take();
    switch (c) {
      case 'd':
      case 'w':
      case 's':
        AddPerlClass(r, static_cast<char>(c));
        *is_class_escape = true;
        return;
      case 'D':
      case 'W':
      case 'S': {
        Ranges tmp;
        AddPerlClass(tmp, static_cast<char>(c - 'A' + 'a'));
        for (auto& x : Negated(tmp)) r.push_back(x);
        *is_class_escape = true;
        return;
      }
      case 'p':
      case 'P': {
        // Unicode classes, approximated: letters are ASCII letters and all non-ASCII.
        std::string name;
        if (!AtEnd() && src_[pos_] == '{') {
          size_t close = src_.find('}', pos_);
          if (close == std::string_view::npos)
            Fail("invalid character class range", src_.substr(start));
          name = std::string(src_.substr(pos_ + 1, close - pos_ - 1));
          pos_ = close + 1;
        } else if (!AtEnd()) {
          name = std::string(1, src_[pos_++]);
        }
        Ranges tmp;
        if (!name.empty() && name[0] == '^') {
          name.erase(0, 1);
          c = c == 'p' ? 'P' : 'p';
        }
        if (name == "L" || name == "Latin" || name == "Greek" || name == "Cyrillic" ||
            name == "Han") {
          AddRange(tmp, 'A', 'Z');
          AddRange(tmp, 'a', 'z');
          AddRange(tmp, 0x80, 0x10FFFF);
        } else if (name == "Lu") {
          AddRange(tmp, 'A', 'Z');
        } else if (name == "Ll") {
          AddRange(tmp, 'a', 'z');
        } else if (name == "N" || name == "Nd") {
          AddRange(tmp, '0', '9');
        } else if (name == "Any") {
          AddRange(tmp, 0, 0x10FFFF);
        } else {
          Fail("invalid character class range", src_.substr(start, pos_ - start));
        }
        if (c == 'P') tmp = Negated(tmp);
        for (auto& x : tmp) r.push_back(x);
        *is_class_escape = true;
        return;
      }
      case 'n':
        *literal = '\n';
        return;
      case 't':
        *literal = '\t';
        return;
      case 'r':
        *literal = '\r';
        return;
      case 'f':
        *literal = '\f';
        return;
      case 'v':
        *literal = '\v';
        return;
      case 'a':
        *literal = '\a';
        return;
      case 'x': {
        if (!AtEnd() && src_[pos_] == '{') {
          size_t close = src_.find('}', pos_);
          if (close == std::string_view::npos || close == pos_ + 1) {
            Fail("invalid escape sequence", src_.substr(start, 2));
          }
          char32_t v = 0;
          for (size_t k = pos_ + 1; k < close; ++k) {
            char h = src_[k];
            int d = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                    : (h >= 'a' && h <= 'f')                    ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F')                    ? h - 'A' + 10
                                                                : -1;
            if (d < 0 || v > 0x10FFFF)
              Fail("invalid escape sequence", src_.substr(start, close - start + 1));
            v = v * 16 + static_cast<char32_t>(d);
          }
          if (v > 0x10FFFF) Fail("invalid escape sequence", src_.substr(start, close - start + 1));
          pos_ = close + 1;
          *literal = v;
          return;
        }
        char32_t v = 0;
        for (int k = 0; k < 2; ++k) {
          if (AtEnd()) Fail("invalid escape sequence", src_.substr(start));
          char h = src_[pos_++];
          int d = std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                  : (h >= 'a' && h <= 'f')                    ? h - 'a' + 10
                  : (h >= 'A' && h <= 'F')                    ? h - 'A' + 10
                                                              : -1;
          if (d < 0) Fail("invalid escape sequence", src_.substr(start, pos_ - start));
          v = v * 16 + static_cast<char32_t>(d);
        }
        *literal = v;
        return;
      }
      default:
        if (c >= '0' && c <= '7') {
          // Octal: \123 (Go requires a leading digit other than a lone \0 followed by no digits).
          char32_t v = c - '0';
          for (int k = 0; k < 2 && !AtEnd() && src_[pos_] >= '0' && src_[pos_] <= '7'; ++k) {
            v = v * 8 + static_cast<char32_t>(src_[pos_++] - '0');
          }
          if (c != '0' && v < 8) Fail("invalid escape sequence", src_.substr(start, pos_ - start));
          *literal = v;
          return;
        }
        if (c < 0x80 && !std::isalnum(static_cast<int>(c))) {
          *literal = c;
          return;
        }
        Fail("invalid escape sequence", src_.substr(start, pos_ - start));
    }
  }

  NodePtr ParseClass(size_t open) {
    NodePtr n = Make(NodeKind::kClass);
    if (!AtEnd() && src_[pos_] == '^') {
      n->negate = true;
      ++pos_;
    }
    bool first = true;
    Ranges r;
    while (true) {
      if (AtEnd()) Fail("missing closing ]", src_.substr(open));
      if (src_[pos_] == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (src_.substr(pos_, 2) == "[:") {
        size_t close = src_.find(":]", pos_ + 2);
        if (close != std::string_view::npos) {
          std::string_view name = src_.substr(pos_ + 2, close - pos_ - 2);
          bool neg = !name.empty() && name[0] == '^';
          if (neg) name.remove_prefix(1);
          Ranges tmp;
          if (!AddPosixClass(tmp, name)) {
            Fail("invalid character class range", src_.substr(pos_, close + 2 - pos_));
          }
          if (neg) tmp = Negated(tmp);
          for (auto& x : tmp) r.push_back(x);
          pos_ = close + 2;
          continue;
        }
      }
      size_t item_start = pos_;
      char32_t lo;
      if (src_[pos_] == '\\') {
        ++pos_;
        bool is_class;
        ParseEscapeInto(r, &is_class, &lo, item_start);
        if (is_class) continue;
      } else {
        lo = Take();
      }
      char32_t hi = lo;
      if (pos_ + 1 < src_.size() && src_[pos_] == '-' && src_[pos_ + 1] != ']') {
        ++pos_;
        if (src_[pos_] == '\\') {
          size_t esc = pos_;
          ++pos_;
          bool is_class;
          Ranges dummy;
          ParseEscapeInto(dummy, &is_class, &hi, esc);
          if (is_class)
            Fail("invalid character class range", src_.substr(item_start, pos_ - item_start));
        } else {
          hi = Take();
        }
        if (hi < lo)
          Fail("invalid character class range", src_.substr(item_start, pos_ - item_start));
      }
      AddFolded(r, lo, hi, flags_.icase);
    }
    n->ranges = n->negate ? Negated(r) : r;
    n->negate = false;
    return n;
  }

  NodePtr ParseAtom() {
    size_t start = pos_;
    char32_t c = Take();
    switch (c) {
      case '(':
        return ParseGroup(start);
      case '[':
        return ParseClass(start);
      case '.': {
        NodePtr n = Make(NodeKind::kAny);
        n->dot_nl = flags_.dot_nl;
        return n;
      }
      case '^':
        return Assert(flags_.multiline ? AssertKind::kBeginLine : AssertKind::kBeginText);
      case '$':
        return Assert(flags_.multiline ? AssertKind::kEndLine : AssertKind::kEndText);
      case '*':
      case '+':
      case '?':
        Fail("missing argument to repetition operator", src_.substr(start, 1));
      case '\\': {
        if (!AtEnd()) {
          char e = src_[pos_];
          if (e == 'A') {
            ++pos_;
            return Assert(AssertKind::kBeginText);
          }
          if (e == 'z') {
            ++pos_;
            return Assert(AssertKind::kEndText);
          }
          if (e == 'b') {
            ++pos_;
            return Assert(AssertKind::kWordBoundary);
          }
          if (e == 'B') {
            ++pos_;
            return Assert(AssertKind::kNotWordBoundary);
          }
          if (e == 'Q') {
            // \Q...\E literal text.
            ++pos_;
            size_t end = src_.find("\\E", pos_);
            std::string_view lit =
                src_.substr(pos_, end == std::string_view::npos ? end : end - pos_);
            pos_ = end == std::string_view::npos ? src_.size() : end + 2;
            NodePtr n = Make(NodeKind::kConcat);
            for (size_t k = 0; k < lit.size();) {
              size_t len;
              char32_t ch = Decode(lit, k, &len);
              n->kids.push_back(Literal(ch));
              k += len;
            }
            return n;
          }
        }
        NodePtr n = Make(NodeKind::kClass);
        bool is_class;
        char32_t lit = 0;
        ParseEscapeInto(n->ranges, &is_class, &lit, start);
        if (!is_class) return Literal(lit);
        return n;
      }
      default:
        return Literal(c);
    }
  }

  std::string_view src_;
  size_t pos_ = 0;
  Flags flags_;
  int depth_ = 0;
};

enum class Op : uint8_t { kClass, kAny, kAnyNotNL, kSplit, kJmp, kMatch, kAssert };

struct Inst {
  Op op;
  int x = 0;  // jump target / first branch / class index
  int y = 0;  // second branch
  AssertKind assert_kind = AssertKind::kBeginText;
};

}  // namespace

struct Regex::Program {
  std::vector<Inst> insts;
  std::vector<Ranges> classes;
};

namespace {

struct TooLarge {};

class Compiler {
 public:
  explicit Compiler(Regex::Program& p) : p_(p) {}

  int Emit(Inst i) {
    if (p_.insts.size() >= kMaxProgram) throw TooLarge{};
    p_.insts.push_back(i);
    return static_cast<int>(p_.insts.size() - 1);
  }

  void Gen(const Node& n) {
    switch (n.kind) {
      case NodeKind::kEmpty:
        return;
      case NodeKind::kClass: {
        p_.classes.push_back(n.ranges);
        Emit({Op::kClass, static_cast<int>(p_.classes.size() - 1)});
        return;
      }
      case NodeKind::kAny:
        Emit({n.dot_nl ? Op::kAny : Op::kAnyNotNL});
        return;
      case NodeKind::kAssert: {
        Inst i{Op::kAssert};
        i.assert_kind = n.assert_kind;
        Emit(i);
        return;
      }
      case NodeKind::kConcat:
        for (const auto& k : n.kids) Gen(*k);
        return;
      case NodeKind::kAlt: {
        std::vector<int> jumps;
        for (size_t k = 0; k < n.kids.size(); ++k) {
          if (k + 1 < n.kids.size()) {
            int split = Emit({Op::kSplit});
            p_.insts[split].x = split + 1;
            Gen(*n.kids[k]);
            jumps.push_back(Emit({Op::kJmp}));
            p_.insts[split].y = static_cast<int>(p_.insts.size());
          } else {
            Gen(*n.kids[k]);
          }
        }
        for (int j : jumps) p_.insts[j].x = static_cast<int>(p_.insts.size());
        return;
      }
      case NodeKind::kRepeat: {
        const Node& body = *n.kids[0];
        for (int k = 0; k < n.min; ++k) Gen(body);
        if (n.max < 0) {
          int split = Emit({Op::kSplit});
          Gen(body);
          Emit({Op::kJmp, split});
          int out = static_cast<int>(p_.insts.size());
          SetSplit(split, split + 1, out, n.greedy);
        } else {
          std::vector<int> splits;
          for (int k = n.min; k < n.max; ++k) {
            splits.push_back(Emit({Op::kSplit}));
            Gen(body);
          }
          int out = static_cast<int>(p_.insts.size());
          for (int s : splits) SetSplit(s, s + 1, out, n.greedy);
        }
        return;
      }
    }
  }

  void SetSplit(int at, int body, int out, bool greedy) {
    p_.insts[at].x = greedy ? body : out;
    p_.insts[at].y = greedy ? out : body;
  }

 private:
  Regex::Program& p_;
};

bool IsWord(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

}  // namespace

Regex::~Regex() = default;

std::shared_ptr<const Regex> Regex::Compile(std::string_view pattern, std::string* error) {
  auto re = std::shared_ptr<Regex>(new Regex());
  re->prog_ = std::make_unique<Program>();
  try {
    RegexParser parser(pattern);
    NodePtr root = parser.ParseAll();
    Compiler c(*re->prog_);
    c.Gen(*root);
    c.Emit({Op::kMatch});
  } catch (const ParseFailure& f) {
    *error = f.message;
    return nullptr;
  } catch (const TooLarge&) {
    *error = "error parsing regexp: expression too large";
    return nullptr;
  }
  return re;
}

std::optional<Regex::Match> Regex::Find(std::string_view text, size_t from) const {
  const auto& insts = prog_->insts;
  struct Thread {
    int pc;
    size_t start;
  };
  std::vector<Thread> clist, nlist, stack;
  std::vector<uint64_t> mark(insts.size(), 0);
  std::optional<Match> best;

  auto char_at = [&](size_t p, size_t* len) -> char32_t {
    if (p >= text.size()) {
      *len = 0;
      return 0xFFFFFFFF;
    }
    return Decode(text, p, len);
  };
  auto prev_char = [&](size_t p) -> char32_t {
    if (p == 0) return 0xFFFFFFFF;
    size_t q = p - 1;
    while (q > 0 && (static_cast<unsigned char>(text[q]) & 0xC0) == 0x80 && p - q < 4) --q;
    size_t len;
    return Decode(text, q, &len);
  };
  auto assert_ok = [&](AssertKind k, size_t p) {
    switch (k) {
      case AssertKind::kBeginText:
        return p == 0;
      case AssertKind::kEndText:
        return p == text.size();
      case AssertKind::kBeginLine:
        return p == 0 || text[p - 1] == '\n';
      case AssertKind::kEndLine:
        return p == text.size() || text[p] == '\n';
      case AssertKind::kWordBoundary:
      case AssertKind::kNotWordBoundary: {
        size_t len;
        char32_t a = prev_char(p), b = char_at(p, &len);
        bool wa = a != 0xFFFFFFFF && IsWord(a);
        bool wb = b != 0xFFFFFFFF && IsWord(b);
        return (wa != wb) == (k == AssertKind::kWordBoundary);
      }
    }
    return false;
  };
  // Follows the empty transitions from pc in priority order, adding the threads that wait on
  // input (or match) to list; gen marks the instructions already on that list.
  auto add = [&](std::vector<Thread>& list, uint64_t gen, int pc0, size_t start, size_t p) {
    stack.clear();
    stack.push_back({pc0, start});
    while (!stack.empty()) {
      Thread t = stack.back();
      stack.pop_back();
      if (mark[t.pc] == gen) continue;
      mark[t.pc] = gen;
      const Inst& in = insts[t.pc];
      switch (in.op) {
        case Op::kJmp:
          stack.push_back({in.x, t.start});
          break;
        case Op::kSplit:
          stack.push_back({in.y, t.start});
          stack.push_back({in.x, t.start});
          break;
        case Op::kAssert:
          if (assert_ok(in.assert_kind, p)) stack.push_back({t.pc + 1, t.start});
          break;
        default:
          list.push_back(t);
      }
    }
  };

  uint64_t gen = 1;
  size_t p = from;
  while (true) {
    if (!best) add(clist, gen, 0, p, p);  // a new start has the lowest priority
    if (clist.empty()) break;
    size_t len;
    char32_t c = char_at(p, &len);
    uint64_t next_gen = gen + 1;
    nlist.clear();
    for (const Thread& t : clist) {
      const Inst& in = insts[t.pc];
      bool step = false;
      if (in.op == Op::kMatch) {
        best = Match{t.start, p};
        break;  // lower-priority threads lose
      }
      if (len == 0) continue;
      if (in.op == Op::kAny) {
        step = true;
      } else if (in.op == Op::kAnyNotNL) {
        step = c != '\n';
      } else if (in.op == Op::kClass) {
        for (const auto& [lo, hi] : prog_->classes[in.x]) {
          if (c >= lo && c <= hi) {
            step = true;
            break;
          }
        }
      }
      if (step) add(nlist, next_gen, t.pc + 1, t.start, p + len);
    }
    if (len == 0) break;
    std::swap(clist, nlist);
    gen = next_gen;
    p += len;
  }
  return best;
}

}  // namespace apiextensions::cel
