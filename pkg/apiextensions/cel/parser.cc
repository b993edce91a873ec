// Lexer and recursive-descent parser for CEL (cel-spec doc/langdef.md), with cel-go's macro
// expansion and error positions. Syntax error texts imitate cel-go's ANTLR messages for the
// common cases ("mismatched input 'x' expecting <EOF>"); rarer cases differ in wording.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <set>

#include "pkg/apiextensions/cel/ast.h"

namespace apiextensions::cel {

namespace {

constexpr int kMaxRecursionDepth = 250;
constexpr size_t kMaxExpressionCodePoints = 100000;

enum class Tok : uint8_t {
  kEof,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kIdent,
  kPunct,  // operators and punctuation; text holds it
  kError,
};

struct Token {
  Tok kind = Tok::kEof;
  int pos = 0;
  int end = 0;
  std::string text;   // source text
  std::string value;  // decoded string/bytes literal
  bool literal_error = false;
};

const std::set<std::string, std::less<>>& ReservedWords() {
  static const std::set<std::string, std::less<>> words = {
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  return words;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  Token Next() {
    SkipSpaceAndComments();
    Token t;
    t.pos = static_cast<int>(pos_);
    if (pos_ >= src_.size()) {
      t.kind = Tok::kEof;
      t.text = "<EOF>";
      t.end = t.pos;
      return t;
    }
    char c = src_[pos_];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      // String prefixes: r, R, b, B and their combinations.
      size_t p = pos_;
      bool raw = false, bytes = false;
      for (int k = 0; k < 2 && p < src_.size(); ++k) {
        char pc = src_[p];
        if ((pc == 'r' || pc == 'R') && !raw) {
          raw = true;
          ++p;
        } else if ((pc == 'b' || pc == 'B') && !bytes) {
          bytes = true;
          ++p;
        } else {
          break;
        }
      }
      if ((raw || bytes) && p < src_.size() && (src_[p] == '"' || src_[p] == '\'')) {
        pos_ = p;
        LexString(t, raw, bytes);
        return t;
      }
      size_t start = pos_;
      while (pos_ < src_.size() &&
             (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) {
        ++pos_;
      }
      t.kind = Tok::kIdent;
      t.text = std::string(src_.substr(start, pos_ - start));
      t.end = static_cast<int>(pos_);
      return t;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < src_.size() &&
         std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
      LexNumber(t);
      return t;
    }
    if (c == '"' || c == '\'') {
      LexString(t, false, false);
      return t;
    }
    static const char* const kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
    for (const char* op : kTwo) {
      if (src_.substr(pos_, 2) == op) {
        t.kind = Tok::kPunct;
        t.text = op;
        pos_ += 2;
        t.end = static_cast<int>(pos_);
        return t;
      }
    }
    if (std::string_view("()[]{}.,:?<>!+-*/%").find(c) != std::string_view::npos) {
      t.kind = Tok::kPunct;
      t.text = std::string(1, c);
      ++pos_;
      t.end = static_cast<int>(pos_);
      return t;
    }
    // Anything else (including a lone '=', '&' or '|') is not a token.
    t.kind = Tok::kError;
    size_t len = 1;
    auto uc = static_cast<unsigned char>(c);
    if (uc >= 0xF0) {
      len = 4;
    } else if (uc >= 0xE0) {
      len = 3;
    } else if (uc >= 0xC0) {
      len = 2;
    }
    t.text = std::string(src_.substr(pos_, len));
    t.value = "token recognition error at: '" + t.text + "'";
    pos_ += len;
    t.end = static_cast<int>(pos_);
    return t;
  }

 private:
  void SkipSpaceAndComments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  void LexNumber(Token& t) {
    size_t start = pos_;
    bool is_double = false;
    if (src_[pos_] == '0' && pos_ + 1 < src_.size() &&
        (src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X')) {
      pos_ += 2;
      while (pos_ < src_.size() && HexVal(src_[pos_]) >= 0) ++pos_;
    } else {
      while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) ++pos_;
      if (pos_ + 1 < src_.size() && src_[pos_] == '.' &&
          std::isdigit(static_cast<unsigned char>(src_[pos_ + 1]))) {
        is_double = true;
        ++pos_;
        while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) ++pos_;
      }
      if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
        size_t p = pos_ + 1;
        if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
        if (p < src_.size() && std::isdigit(static_cast<unsigned char>(src_[p]))) {
          is_double = true;
          pos_ = p;
          while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) ++pos_;
        }
      }
    }
    t.kind = is_double ? Tok::kDouble : Tok::kInt;
    if (!is_double && pos_ < src_.size() && (src_[pos_] == 'u' || src_[pos_] == 'U')) {
      t.kind = Tok::kUint;
      ++pos_;
    }
    t.text = std::string(src_.substr(start, pos_ - start));
    t.end = static_cast<int>(pos_);
  }

  void LexString(Token& t, bool raw, bool bytes) {
    size_t start = t.pos;
    char q = src_[pos_];
    bool triple = src_.substr(pos_, 3) == std::string(3, q);
    pos_ += triple ? 3 : 1;
    std::string out;
    bool closed = false;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (triple) {
        if (src_.substr(pos_, 3) == std::string(3, q)) {
          pos_ += 3;
          closed = true;
          break;
        }
      } else {
        if (c == q) {
          ++pos_;
          closed = true;
          break;
        }
        if (c == '\n' || c == '\r') break;
      }
      if (c == '\\' && !raw) {
        if (!LexEscape(out, bytes)) {
          t.literal_error = true;
        }
        continue;
      }
      if (c == '\\' && raw && pos_ + 1 < src_.size() && src_[pos_ + 1] == q) {
        out.push_back(c);
        out.push_back(q);
        pos_ += 2;
        continue;
      }
      out.push_back(c);
      ++pos_;
    }
    t.text = std::string(src_.substr(start, pos_ - start));
    t.end = static_cast<int>(pos_);
    if (!closed) {
      t.kind = Tok::kError;
      t.value = "token recognition error at: '" + t.text + "'";
      return;
    }
    t.kind = bytes ? Tok::kBytes : Tok::kString;
    t.value = std::move(out);
  }

  // Decodes one escape at pos_ (a backslash) into out; false when invalid.
  bool LexEscape(std::string& out, bool bytes) {
    ++pos_;
    if (pos_ >= src_.size()) return false;
    char c = src_[pos_++];
    switch (c) {
      case 'a':
        out.push_back('\a');
        return true;
      case 'b':
        out.push_back('\b');
        return true;
      case 'f':
        out.push_back('\f');
        return true;
      case 'n':
        out.push_back('\n');
        return true;
      case 'r':
        out.push_back('\r');
        return true;
      case 't':
        out.push_back('\t');
        return true;
      case 'v':
        out.push_back('\v');
        return true;
      case '\\':
      case '\'':
      case '"':
      case '`':
      case '?':
        out.push_back(c);
        return true;
      case 'x':
      case 'X': {
        if (pos_ + 2 > src_.size() || HexVal(src_[pos_]) < 0 || HexVal(src_[pos_ + 1]) < 0)
          return false;
        uint32_t v = static_cast<uint32_t>(HexVal(src_[pos_]) * 16 + HexVal(src_[pos_ + 1]));
        pos_ += 2;
        if (bytes) {
          out.push_back(static_cast<char>(v));
        } else {
          AppendUtf8(out, v);
        }
        return true;
      }
      case 'u':
      case 'U': {
        size_t n = c == 'u' ? 4 : 8;
        if (bytes || pos_ + n > src_.size()) return false;
        uint32_t v = 0;
        for (size_t k = 0; k < n; ++k) {
          int h = HexVal(src_[pos_ + k]);
          if (h < 0) return false;
          v = v * 16 + static_cast<uint32_t>(h);
        }
        pos_ += n;
        if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return false;
        AppendUtf8(out, v);
        return true;
      }
      default:
        if (c >= '0' && c <= '3') {
          if (pos_ + 2 > src_.size()) return false;
          char c1 = src_[pos_], c2 = src_[pos_ + 1];
          if (c1 < '0' || c1 > '7' || c2 < '0' || c2 > '7') return false;
          uint32_t v = static_cast<uint32_t>((c - '0') * 64 + (c1 - '0') * 8 + (c2 - '0'));
          pos_ += 2;
          if (bytes) {
            out.push_back(static_cast<char>(v));
          } else {
            AppendUtf8(out, v);
          }
          return true;
        }
        return false;
    }
  }

  std::string_view src_;
  size_t pos_ = 0;
};

const char* const kExpectingOperand =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}";

struct SyntaxError {};

class Parser {
 public:
  Parser(std::string_view src, std::vector<ParseError>& errors) : lexer_(src), errors_(errors) {}

  ExprPtr ParseAll() {
    try {
      Advance();
      ExprPtr e = ParseExpr();
      if (cur_.kind != Tok::kEof) {
        Fail(cur_, "Syntax error: mismatched input '" + cur_.text + "' expecting <EOF>");
      }
      if (!errors_.empty()) return nullptr;
      return e;
    } catch (const SyntaxError&) {
      return nullptr;
    }
  }

 private:
  void Advance() {
    cur_ = lexer_.Next();
    if (cur_.kind == Tok::kError) {
      Fail(cur_, "Syntax error: " + cur_.value);
    }
  }

  [[noreturn]] void Fail(const Token& at, std::string message) {
    errors_.push_back({at.pos, std::move(message)});
    throw SyntaxError{};
  }

  bool IsPunct(std::string_view p) const { return cur_.kind == Tok::kPunct && cur_.text == p; }

  Token Expect(std::string_view p) {
    if (!IsPunct(p)) {
      Fail(cur_,
           "Syntax error: mismatched input '" + cur_.text + "' expecting '" + std::string(p) + "'");
    }
    Token t = cur_;
    Advance();
    return t;
  }

  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p(p) {
      if (++p.depth_ > kMaxRecursionDepth) {
        p.Fail(p.cur_,
               "expression recursion limit exceeded: " + std::to_string(kMaxRecursionDepth));
      }
    }
    ~DepthGuard() { --p.depth_; }
    Parser& p;
  };

  static ExprPtr Node(ExprKind kind, int pos) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }

  static ExprPtr Call(std::string fn, int pos, std::vector<ExprPtr> args,
                      ExprPtr target = nullptr) {
    ExprPtr e = Node(ExprKind::kCall, pos);
    e->name = std::move(fn);
    e->args = std::move(args);
    e->target = std::move(target);
    return e;
  }

  ExprPtr ParseExpr() {
    DepthGuard g(*this);
    ExprPtr cond = ParseOr();
    if (IsPunct("?")) {
      int pos = cur_.pos;
      Advance();
      ExprPtr a = ParseOr();
      Expect(":");
      ExprPtr b = ParseExpr();
      std::vector<ExprPtr> args;
      args.push_back(std::move(cond));
      args.push_back(std::move(a));
      args.push_back(std::move(b));
      return Call("_?_:_", pos, std::move(args));
    }
    return cond;
  }

  // Chains of || and && are built as balanced trees, as cel-go does, so that long chains do
  // not make deep trees.
  ExprPtr ParseLogical(const char* op, const char* fn, bool is_or) {
    std::vector<ExprPtr> terms;
    std::vector<int> ops;
    terms.push_back(is_or ? ParseLogical("&&", "_&&_", false) : ParseRelation());
    while (IsPunct(op)) {
      ops.push_back(cur_.pos);
      Advance();
      terms.push_back(is_or ? ParseLogical("&&", "_&&_", false) : ParseRelation());
    }
    if (ops.empty()) return std::move(terms[0]);
    return Balanced(terms, ops, fn, 0, static_cast<int>(ops.size()) - 1);
  }

  ExprPtr Balanced(std::vector<ExprPtr>& terms, const std::vector<int>& ops, const char* fn, int lo,
                   int hi) {
    int mid = (lo + hi + 1) / 2;
    ExprPtr left = mid == lo ? std::move(terms[static_cast<size_t>(mid)])
                             : Balanced(terms, ops, fn, lo, mid - 1);
    ExprPtr right = mid == hi ? std::move(terms[static_cast<size_t>(mid) + 1])
                              : Balanced(terms, ops, fn, mid + 1, hi);
    std::vector<ExprPtr> args;
    args.push_back(std::move(left));
    args.push_back(std::move(right));
    return Call(fn, ops[static_cast<size_t>(mid)], std::move(args));
  }

  ExprPtr ParseOr() { return ParseLogical("||", "_||_", true); }

  // Left-nested chains (a + b + c, a.b.c) deepen the tree without recursing here; they count
  // against the same depth limit.
  void Chain(int& length) {
    if (++length + depth_ > kMaxRecursionDepth) {
      Fail(cur_, "expression recursion limit exceeded: " + std::to_string(kMaxRecursionDepth));
    }
  }

  ExprPtr ParseRelation() {
    ExprPtr left = ParseCalc(0);
    int chain = 0;
    while (true) {
      std::string fn;
      if (IsPunct("==")) {
        fn = "_==_";
      } else if (IsPunct("!=")) {
        fn = "_!=_";
      } else if (IsPunct("<")) {
        fn = "_<_";
      } else if (IsPunct("<=")) {
        fn = "_<=_";
      } else if (IsPunct(">")) {
        fn = "_>_";
      } else if (IsPunct(">=")) {
        fn = "_>=_";
      } else if (cur_.kind == Tok::kIdent && cur_.text == "in") {
        fn = "@in";
      } else {
        break;
      }
      Chain(chain);
      int pos = cur_.pos;
      Advance();
      ExprPtr right = ParseCalc(0);
      std::vector<ExprPtr> args;
      args.push_back(std::move(left));
      args.push_back(std::move(right));
      left = Call(fn, pos, std::move(args));
    }
    return left;
  }

  // level 0: + -, level 1: * / %
  ExprPtr ParseCalc(int level) {
    ExprPtr left = level == 0 ? ParseCalc(1) : ParseUnary();
    int chain = 0;
    while (true) {
      std::string fn;
      if (level == 0 && IsPunct("+")) {
        fn = "_+_";
      } else if (level == 0 && IsPunct("-")) {
        fn = "_-_";
      } else if (level == 1 && IsPunct("*")) {
        fn = "_*_";
      } else if (level == 1 && IsPunct("/")) {
        fn = "_/_";
      } else if (level == 1 && IsPunct("%")) {
        fn = "_%_";
      } else {
        break;
      }
      Chain(chain);
      int pos = cur_.pos;
      Advance();
      ExprPtr right = level == 0 ? ParseCalc(1) : ParseUnary();
      std::vector<ExprPtr> args;
      args.push_back(std::move(left));
      args.push_back(std::move(right));
      left = Call(fn, pos, std::move(args));
    }
    return left;
  }

  ExprPtr ParseUnary() {
    if (IsPunct("!")) {
      int pos = cur_.pos;
      int n = 0;
      while (IsPunct("!")) {
        ++n;
        Advance();
      }
      ExprPtr operand = ParseMember();
      if (n % 2 == 0) return operand;
      std::vector<ExprPtr> args;
      args.push_back(std::move(operand));
      return Call("!_", pos, std::move(args));
    }
    if (IsPunct("-")) {
      int pos = cur_.pos;
      int n = 0;
      int last_pos = pos;
      while (IsPunct("-")) {
        ++n;
        last_pos = cur_.pos;
        Advance();
      }
      ExprPtr operand;
      if (cur_.kind == Tok::kInt || cur_.kind == Tok::kDouble) {
        // The last minus belongs to the literal (cel-go's grammar: literal: '-'? NUM_INT).
        operand = ParseNumber(true, last_pos);
        operand = ParseMemberSuffix(std::move(operand));
        --n;
      } else {
        operand = ParseMember();
      }
      if (n % 2 == 0) return operand;
      std::vector<ExprPtr> args;
      args.push_back(std::move(operand));
      return Call("-_", pos, std::move(args));
    }
    return ParseMember();
  }

  ExprPtr ParseMember() { return ParseMemberSuffix(ParsePrimary()); }

  ExprPtr ParseMemberSuffix(ExprPtr e) {
    int chain = 0;
    while (true) {
      if (IsPunct(".") || IsPunct("[")) Chain(chain);
      if (IsPunct(".")) {
        int pos = cur_.pos;
        Advance();
        bool opt = false;
        if (IsPunct("?")) {
          opt = true;
          Advance();
        }
        if (cur_.kind != Tok::kIdent) {
          Fail(cur_, "Syntax error: mismatched input '" + cur_.text + "' expecting IDENTIFIER");
        }
        std::string id = cur_.text;
        Advance();
        if (!opt && IsPunct("(")) {
          int open = cur_.pos;
          Advance();
          std::vector<ExprPtr> args = ParseArgs(")");
          e = MemberCallOrMacro(std::move(e), id, open, std::move(args));
          continue;
        }
        ExprPtr sel = Node(ExprKind::kSelect, pos);
        sel->target = std::move(e);
        sel->name = id;
        sel->optional = opt;
        e = std::move(sel);
        continue;
      }
      if (IsPunct("[")) {
        int pos = cur_.pos;
        Advance();
        bool opt = false;
        if (IsPunct("?")) {
          opt = true;
          Advance();
        }
        ExprPtr index = ParseExpr();
        Expect("]");
        std::vector<ExprPtr> args;
        args.push_back(std::move(e));
        args.push_back(std::move(index));
        e = Call(opt ? "_[?_]" : "_[_]", pos, std::move(args));
        continue;
      }
      return e;
    }
  }

  std::vector<ExprPtr> ParseArgs(std::string_view close) {
    std::vector<ExprPtr> args;
    if (IsPunct(close)) {
      Advance();
      return args;
    }
    while (true) {
      args.push_back(ParseExpr());
      if (IsPunct(",")) {
        Advance();
        continue;
      }
      Expect(close);
      return args;
    }
  }

  ExprPtr ParseNumber(bool negative, int pos) {
    Token t = cur_;
    Advance();
    ExprPtr e = Node(ExprKind::kConst, negative ? pos : t.pos);
    std::string text = (negative ? "-" : "") + t.text;
    if (t.kind == Tok::kDouble) {
      e->constant = Value::Double(std::strtod(text.c_str(), nullptr));
      return e;
    }
    bool hex = t.text.size() > 2 && t.text[0] == '0' && (t.text[1] == 'x' || t.text[1] == 'X');
    std::string digits = hex ? t.text.substr(2) : t.text;
    if (t.kind == Tok::kUint) {
      digits.pop_back();
      errno = 0;
      char* end = nullptr;
      unsigned long long v = std::strtoull(digits.c_str(), &end, hex ? 16 : 10);
      if (errno != 0 || digits.empty() || negative) {
        errors_.push_back({t.pos, "invalid uint literal"});
        return e;
      }
      e->constant = Value::Uint(v);
      return e;
    }
    errno = 0;
    char* end = nullptr;
    unsigned long long mag = std::strtoull(digits.c_str(), &end, hex ? 16 : 10);
    bool overflow = errno != 0 || digits.empty();
    if (!overflow) {
      if (negative) {
        overflow = mag > 9223372036854775808ULL;
      } else {
        overflow = mag > 9223372036854775807ULL;
      }
    }
    if (overflow) {
      errors_.push_back({negative ? pos : t.pos, "invalid int literal"});
      return e;
    }
    int64_t v = negative ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
    e->constant = Value::Int(v);
    return e;
  }

  ExprPtr ParsePrimary() {
    switch (cur_.kind) {
      case Tok::kInt:
      case Tok::kDouble:
      case Tok::kUint:
        return ParseNumber(false, cur_.pos);
      case Tok::kString:
      case Tok::kBytes: {
        ExprPtr e = Node(ExprKind::kConst, cur_.pos);
        if (cur_.literal_error) {
          errors_.push_back(
              {cur_.pos, "Syntax error: token recognition error at: '" + cur_.text + "'"});
        }
        e->constant =
            cur_.kind == Tok::kString ? Value::String(cur_.value) : Value::Bytes(cur_.value);
        Advance();
        return e;
      }
      case Tok::kIdent: {
        Token t = cur_;
        if (t.text == "true" || t.text == "false" || t.text == "null") {
          Advance();
          ExprPtr e = Node(ExprKind::kConst, t.pos);
          e->constant = t.text == "null" ? Value::Null() : Value::Bool(t.text == "true");
          return e;
        }
        if (t.text == "in") break;
        if (ReservedWords().count(t.text) != 0) {
          Fail(t, "reserved identifier: " + t.text);
        }
        Advance();
        if (IsPunct("(")) {
          int open = cur_.pos;
          Advance();
          std::vector<ExprPtr> args = ParseArgs(")");
          return GlobalCallOrMacro(t.text, open, std::move(args));
        }
        ExprPtr e = Node(ExprKind::kIdent, t.pos);
        e->name = t.text;
        return e;
      }
      case Tok::kPunct: {
        if (IsPunct("(")) {
          Advance();
          ExprPtr e = ParseExpr();
          Expect(")");
          return e;
        }
        if (IsPunct("[")) {
          ExprPtr e = Node(ExprKind::kList, cur_.pos);
          Advance();
          while (!IsPunct("]")) {
            bool opt = IsPunct("?");
            if (opt) Advance();
            e->optional_entries.push_back(opt);
            e->args.push_back(ParseExpr());
            if (IsPunct(",")) {
              Advance();
              continue;
            }
            break;
          }
          Expect("]");
          return e;
        }
        if (IsPunct("{")) {
          ExprPtr e = Node(ExprKind::kMap, cur_.pos);
          Advance();
          while (!IsPunct("}")) {
            bool opt = IsPunct("?");
            if (opt) Advance();
            e->optional_entries.push_back(opt);
            e->args.push_back(ParseExpr());
            Expect(":");
            e->args.push_back(ParseExpr());
            if (IsPunct(",")) {
              Advance();
              continue;
            }
            break;
          }
          Expect("}");
          return e;
        }
        if (IsPunct(".")) {
          // Leading-dot identifiers resolve from the root scope; the same as a plain name here.
          Advance();
          if (cur_.kind != Tok::kIdent) {
            Fail(cur_, "Syntax error: mismatched input '" + cur_.text + "' expecting IDENTIFIER");
          }
          return ParsePrimary();
        }
        break;
      }
      default:
        break;
    }
    Fail(cur_, "Syntax error: mismatched input '" + cur_.text + "' expecting " + kExpectingOperand);
  }

  ExprPtr GlobalCallOrMacro(const std::string& fn, int pos, std::vector<ExprPtr> args) {
    if (fn == "has" && args.size() == 1) {
      Expr* arg = args[0].get();
      if (arg->kind != ExprKind::kSelect || arg->optional) {
        errors_.push_back({arg->pos, "invalid argument to has() macro"});
        return Node(ExprKind::kConst, pos);
      }
      ExprPtr sel = std::move(args[0]);
      sel->test_only = true;
      return sel;
    }
    return Call(fn, pos, std::move(args));
  }

  bool SimpleName(const ExprPtr& e, std::string& out) {
    if (e->kind != ExprKind::kIdent) {
      errors_.push_back({e->pos, "argument must be a simple name"});
      return false;
    }
    out = e->name;
    return true;
  }

  ExprPtr MemberCallOrMacro(ExprPtr target, const std::string& fn, int pos,
                            std::vector<ExprPtr> args) {
    struct MacroDef {
      const char* name;
      size_t args;
      Macro macro;
      bool two_vars;
    };
    static const MacroDef kMacros[] = {
        {"all", 2, Macro::kAll, false},
        {"exists", 2, Macro::kExists, false},
        {"exists_one", 2, Macro::kExistsOne, false},
        {"map", 2, Macro::kMap, false},
        {"map", 3, Macro::kMapFilter, false},
        {"filter", 2, Macro::kFilter, false},
        {"all", 3, Macro::kAll2, true},
        {"exists", 3, Macro::kExists2, true},
        {"existsOne", 3, Macro::kExistsOne2, true},
        {"transformList", 3, Macro::kTransformList, true},
        {"transformList", 4, Macro::kTransformListFilter, true},
        {"transformMap", 3, Macro::kTransformMap, true},
        {"transformMap", 4, Macro::kTransformMapFilter, true},
    };
    for (const auto& m : kMacros) {
      if (fn != m.name || args.size() != m.args) continue;
      ExprPtr c = Node(ExprKind::kComprehension, pos);
      c->macro = m.macro;
      c->name = fn;
      c->target = std::move(target);
      if (!SimpleName(args[0], c->iter_var)) return c;
      size_t first = 1;
      if (m.two_vars) {
        if (!SimpleName(args[1], c->iter_var2)) return c;
        if (c->iter_var == c->iter_var2) {
          errors_.push_back({args[1]->pos, "duplicate variable name: " + c->iter_var});
          return c;
        }
        first = 2;
      }
      for (size_t k = first; k < args.size(); ++k) c->args.push_back(std::move(args[k]));
      return c;
    }
    return Call(fn, pos, std::move(args), std::move(target));
  }

  Lexer lexer_;
  Token cur_;
  std::vector<ParseError>& errors_;
  int depth_ = 0;
};

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

}  // namespace

ExprPtr Parse(std::string_view source, std::vector<ParseError>& errors) {
  size_t cps = CodePoints(source);
  if (cps > kMaxExpressionCodePoints) {
    errors.push_back({0, "expression code point size exceeds limit: size: " + std::to_string(cps) +
                             ", limit " + std::to_string(kMaxExpressionCodePoints)});
    return nullptr;
  }
  Parser p(source, errors);
  ExprPtr e = p.ParseAll();
  if (!errors.empty()) return nullptr;
  return e;
}

std::string FormatErrors(std::string_view source, std::vector<ParseError> errors) {
  // Locations as line and column (in code points, 0-based), as cel-go's source does.
  struct Loc {
    int line;
    int col;
    std::string_view text;
  };
  auto locate = [&](int pos) {
    int line = 1;
    size_t line_start = 0;
    for (size_t k = 0; k < source.size() && static_cast<int>(k) < pos; ++k) {
      if (source[k] == '\n') {
        ++line;
        line_start = k + 1;
      }
    }
    size_t end = source.find('\n', line_start);
    if (end == std::string_view::npos) end = source.size();
    auto upto = static_cast<size_t>(std::max(pos, 0));
    upto = std::min(upto, source.size());
    int col = static_cast<int>(CodePoints(source.substr(line_start, upto - line_start)));
    return Loc{line, col, source.substr(line_start, end - line_start)};
  };
  std::stable_sort(errors.begin(), errors.end(),
                   [&](const ParseError& a, const ParseError& b) { return a.pos < b.pos; });
  std::string out;
  for (size_t k = 0; k < errors.size(); ++k) {
    Loc loc = locate(errors[k].pos);
    if (k > 0) out += "\n";
    out += "ERROR: <input>:" + std::to_string(loc.line) + ":" + std::to_string(loc.col + 1) + ": " +
           errors[k].message;
    out += "\n | ";
    out += loc.text;
    out += "\n | ";
    out += std::string(static_cast<size_t>(loc.col), '.');
    out += "^";
  }
  return out;
}

}  // namespace apiextensions::cel
