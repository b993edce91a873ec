// Whether a pattern compiles as Go's regexp (RE2 syntax with Perl extensions) and, when it
// does not, Go's error text: "error parsing regexp: <code>: `<expression>`". This follows the
// structure of Go's regexp/syntax parser closely enough for the errors patterns meet in
// practice (unbalanced parentheses and brackets, bad escapes, look-arounds and other Perl
// syntax RE2 lacks, misplaced or oversized repetitions).

#include <set>

#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation::internal {

namespace {

struct ParseError {
  std::string code;
  std::string expr;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsDigit(c) || IsAlpha(c); }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The length in bytes of the UTF-8 sequence starting with c (1 for invalid bytes).
size_t RuneLen(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xe) return 3;
  if ((c >> 3) == 0x1e) return 4;
  return 1;
}

// The code point at the start of t (for ranges), and its size.
char32_t Rune(std::string_view t, size_t* size) {
  const unsigned char c = static_cast<unsigned char>(t[0]);
  size_t n = std::min(RuneLen(c), t.size());
  *size = n;
  if (n == 1) return c;
  char32_t r = c & (0xff >> (n + 1));
  for (size_t i = 1; i < n; ++i) r = (r << 6) | (static_cast<unsigned char>(t[i]) & 0x3f);
  return r;
}

class Parser {
 public:
  explicit Parser(std::string_view whole) : whole_(whole) {}

  std::optional<ParseError> Parse() {
    std::string_view t = whole_;
    std::string_view last_repeat;
    while (!t.empty()) {
      std::string_view repeat;
      const char c = t[0];
      switch (c) {
        case '(': {
          if (t.starts_with("(?")) {
            if (auto err = PerlFlags(t, &t)) return err;
            break;
          }
          Push(kLeftParen);
          t.remove_prefix(1);
          break;
        }
        case '|':
          Push(kVerticalBar);
          t.remove_prefix(1);
          break;
        case ')':
          if (depth_ == 0) return ParseError{"unexpected )", std::string(whole_)};
          --depth_;
          // The group as a whole is one operand.
          last_ = kOperand;
          t.remove_prefix(1);
          break;
        case '^':
        case '$':
        case '.':
          Operand();
          t.remove_prefix(1);
          break;
        case '[': {
          if (auto err = Class(t, &t)) return err;
          Operand();
          break;
        }
        case '*':
        case '+':
        case '?': {
          std::string_view before = t;
          std::string_view after = t.substr(1);
          if (!after.empty() && after[0] == '?') after.remove_prefix(1);  // non-greedy
          if (auto err = Repeat(before, after, last_repeat)) return err;
          repeat = before;
          t = after;
          break;
        }
        case '{': {
          std::string_view before = t;
          int min = 0, max = 0;
          std::string_view after;
          if (!RepeatCount(t, &min, &max, &after)) {
            Operand();  // not a repetition: a literal {
            t.remove_prefix(1);
            break;
          }
          if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) {
            return ParseError{"invalid repeat count",
                              std::string(before.substr(0, before.size() - after.size()))};
          }
          if (!after.empty() && after[0] == '?') after.remove_prefix(1);
          if (auto err = Repeat(before, after, last_repeat)) return err;
          repeat = before;
          t = after;
          break;
        }
        case '\\': {
          if (t.size() >= 2) {
            const char n = t[1];
            if (n == 'A' || n == 'z' || n == 'b' || n == 'B') {
              Operand();
              t.remove_prefix(2);
              break;
            }
            if (n == 'Q') {  // literal text up to \E
              std::string_view lit = t.substr(2);
              const size_t end = lit.find("\\E");
              t = end == std::string_view::npos ? std::string_view() : lit.substr(end + 2);
              Operand();
              break;
            }
            if (n == 'p' || n == 'P') {
              if (auto err = UnicodeClass(t, &t)) return err;
              Operand();
              break;
            }
            if (n == 'd' || n == 'D' || n == 's' || n == 'S' || n == 'w' || n == 'W') {
              Operand();
              t.remove_prefix(2);
              break;
            }
          }
          if (auto err = Escape(t, &t, nullptr)) return err;
          Operand();
          break;
        }
        default:
          Operand();
          t.remove_prefix(std::min(RuneLen(static_cast<unsigned char>(c)), t.size()));
          break;
      }
      last_repeat = repeat;
    }
    if (depth_ != 0) return ParseError{"missing closing )", std::string(whole_)};
    return std::nullopt;
  }

 private:
  enum Last { kNothing, kLeftParen, kVerticalBar, kOperand };

  void Push(Last what) {
    if (what == kLeftParen) ++depth_;
    last_ = what;
  }
  void Operand() { last_ = kOperand; }

  std::optional<ParseError> Repeat(std::string_view before, std::string_view after,
                                   std::string_view last_repeat) {
    if (!last_repeat.empty()) {
      return ParseError{"invalid nested repetition operator",
                        std::string(last_repeat.substr(0, last_repeat.size() - after.size()))};
    }
    if (last_ != kOperand) {
      return ParseError{"missing argument to repetition operator",
                        std::string(before.substr(0, before.size() - after.size()))};
    }
    return std::nullopt;
  }

  // {n}, {n,}, {n,m}; false when t does not start with one (then { is a literal).
  static bool RepeatCount(std::string_view t, int* min, int* max, std::string_view* after) {
    if (t.empty() || t[0] != '{') return false;
    t.remove_prefix(1);
    auto number = [](std::string_view& s, int* out) {
      if (s.empty() || !IsDigit(s[0])) return false;
      if (s.size() >= 2 && s[0] == '0' && IsDigit(s[1])) return false;  // no leading zeros
      long long n = 0;
      size_t i = 0;
      for (; i < s.size() && IsDigit(s[i]); ++i) {
        if (n <= 100000000) n = n * 10 + (s[i] - '0');
      }
      *out = n > 100000000 ? -1 : static_cast<int>(n);
      s.remove_prefix(i);
      return true;
    };
    if (!number(t, min)) return false;
    if (t.empty()) return false;
    if (t[0] == ',') {
      t.remove_prefix(1);
      if (t.empty()) return false;
      if (t[0] == '}') {
        *max = -1;
      } else if (!number(t, max)) {
        return false;
      } else if (*max < 0) {
        *min = -1;  // too large a number
      }
    } else {
      *max = *min;
    }
    if (t.empty() || t[0] != '}') return false;
    *after = t.substr(1);
    return true;
  }

  std::optional<ParseError> PerlFlags(std::string_view s, std::string_view* rest) {
    // Named captures: (?P<name>re) and (?<name>re).
    if ((s.size() > 4 && s[2] == 'P' && s[3] == '<') || (s.size() > 3 && s[2] == '<')) {
      const size_t begin = s[2] == 'P' ? 4 : 3;
      const size_t end = s.find('>');
      if (end == std::string_view::npos) {
        return ParseError{"invalid named capture", std::string(s)};
      }
      const std::string_view capture = s.substr(0, end + 1);
      const std::string_view name = s.substr(begin, end - begin);
      bool valid = !name.empty();
      for (char c : name) valid = valid && (IsAlnum(c) || c == '_');
      if (!valid) return ParseError{"invalid named capture", std::string(capture)};
      if (!names_.insert(std::string(name)).second) {
        return ParseError{"duplicate capture group name", std::string(name)};
      }
      Push(kLeftParen);
      *rest = s.substr(end + 1);
      return std::nullopt;
    }
    std::string_view t = s.substr(2);
    int sign = 1;
    bool saw_flag = false;
    while (!t.empty()) {
      size_t n = 0;
      const char32_t c = Rune(t, &n);
      t.remove_prefix(n);
      switch (c) {
        case 'i':
        case 'm':
        case 's':
        case 'U':
          saw_flag = true;
          continue;
        case '-':
          if (sign < 0) break;
          sign = -1;
          saw_flag = false;
          continue;
        case ':':
        case ')':
          if (sign < 0 && !saw_flag) break;
          if (c == ':') Push(kLeftParen);  // a group; (?flags) alone changes flags only
          *rest = t;
          return std::nullopt;
        default:
          break;
      }
      break;
    }
    return ParseError{"invalid or unsupported Perl syntax",
                      std::string(s.substr(0, s.size() - t.size()))};
  }

  // \pN, \p{Name}, \PN, \P{^Name}: the class name is not checked against Unicode's tables.
  static std::optional<ParseError> UnicodeClass(std::string_view s, std::string_view* rest) {
    std::string_view t = s.substr(2);
    if (t.empty()) return ParseError{"invalid character class range", std::string(s)};
    if (t[0] != '{') {
      size_t n = 0;
      Rune(t, &n);
      *rest = t.substr(n);
      return std::nullopt;
    }
    const size_t end = t.find('}');
    if (end == std::string_view::npos) {
      return ParseError{"invalid character class range", std::string(s)};
    }
    *rest = t.substr(end + 1);
    return std::nullopt;
  }

  // One escape sequence at the start of s (which begins with a backslash).
  static std::optional<ParseError> Escape(std::string_view s, std::string_view* rest,
                                          char32_t* value) {
    std::string_view t = s.substr(1);
    if (t.empty()) return ParseError{"trailing backslash at end of expression", ""};
    size_t n = 0;
    const char32_t c = Rune(t, &n);
    t.remove_prefix(n);
    auto done = [&](char32_t r) -> std::optional<ParseError> {
      if (value != nullptr) *value = r;
      *rest = t;
      return std::nullopt;
    };
    auto invalid = [&]() -> std::optional<ParseError> {
      return ParseError{"invalid escape sequence", std::string(s.substr(0, s.size() - t.size()))};
    };
    if (c >= '1' && c <= '7') {
      // A single non-zero digit would be a backreference, which RE2 lacks.
      if (t.empty() || t[0] < '0' || t[0] > '7') return invalid();
    }
    if (c >= '0' && c <= '7') {
      char32_t r = c - '0';
      for (int i = 1; i < 3 && !t.empty() && t[0] >= '0' && t[0] <= '7'; ++i) {
        r = r * 8 + static_cast<char32_t>(t[0] - '0');
        t.remove_prefix(1);
      }
      return done(r);
    }
    if (c == 'x') {
      if (t.empty()) return invalid();
      if (t[0] == '{') {
        t.remove_prefix(1);
        char32_t r = 0;
        size_t digits = 0;
        while (true) {
          if (t.empty()) return invalid();
          const char h = t[0];
          t.remove_prefix(1);
          if (h == '}') break;
          if (!IsHex(h)) return invalid();
          r = r * 16 + static_cast<char32_t>(IsDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
          if (r > 0x10ffff) return invalid();
          ++digits;
        }
        if (digits == 0) return invalid();
        return done(r);
      }
      if (t.size() < 2 || !IsHex(t[0]) || !IsHex(t[1])) {
        if (!t.empty()) t.remove_prefix(std::min<size_t>(t.size(), t.size() >= 2 ? 2 : 1));
        return invalid();
      }
      const char32_t r = static_cast<char32_t>(std::stoi(std::string(t.substr(0, 2)), nullptr, 16));
      t.remove_prefix(2);
      return done(r);
    }
    switch (c) {
      case 'a':
        return done(7);
      case 'f':
        return done(12);
      case 'n':
        return done(10);
      case 'r':
        return done(13);
      case 't':
        return done(9);
      case 'v':
        return done(11);
      default:
        break;
    }
    if (c < 0x80 && !IsAlnum(static_cast<char>(c))) return done(c);  // escaped punctuation
    return invalid();
  }

  // A bracketed class starting at s.
  std::optional<ParseError> Class(std::string_view s, std::string_view* rest) {
    static const std::set<std::string, std::less<>> kPosix = {
        "[:alnum:]", "[:alpha:]", "[:ascii:]", "[:blank:]", "[:cntrl:]", "[:digit:]", "[:graph:]",
        "[:lower:]", "[:print:]", "[:punct:]", "[:space:]", "[:upper:]", "[:word:]",  "[:xdigit:]"};
    std::string_view t = s.substr(1);
    if (!t.empty() && t[0] == '^') t.remove_prefix(1);
    bool first = true;
    while (t.empty() || t[0] != ']' || first) {
      first = false;
      if (t.size() > 2 && t[0] == '[' && t[1] == ':') {
        const size_t end = t.find(":]", 2);
        if (end != std::string_view::npos) {
          std::string name(t.substr(0, end + 2));
          std::string plain = name;
          if (plain.size() > 3 && plain[2] == '^') plain.erase(2, 1);
          if (!kPosix.contains(plain)) return ParseError{"invalid character class range", name};
          t.remove_prefix(end + 2);
          continue;
        }
      }
      if (t.size() >= 2 && t[0] == '\\' && (t[1] == 'p' || t[1] == 'P')) {
        if (auto err = UnicodeClass(t, &t)) return err;
        continue;
      }
      if (t.size() >= 2 && t[0] == '\\' &&
          std::string_view("dDsSwW").find(t[1]) != std::string_view::npos) {
        t.remove_prefix(2);
        continue;
      }
      const std::string_view range = t;
      char32_t lo = 0, hi = 0;
      if (auto err = ClassChar(t, s, &t, &lo)) return err;
      hi = lo;
      if (t.size() >= 2 && t[0] == '-' && t[1] != ']') {
        t.remove_prefix(1);
        if (auto err = ClassChar(t, s, &t, &hi)) return err;
        if (hi < lo) {
          return ParseError{"invalid character class range",
                            std::string(range.substr(0, range.size() - t.size()))};
        }
      }
    }
    *rest = t.substr(1);
    return std::nullopt;
  }

  static std::optional<ParseError> ClassChar(std::string_view t, std::string_view whole_class,
                                             std::string_view* rest, char32_t* r) {
    if (t.empty()) return ParseError{"missing closing ]", std::string(whole_class)};
    if (t[0] == '\\') return Escape(t, rest, r);
    size_t n = 0;
    *r = Rune(t, &n);
    *rest = t.substr(n);
    return std::nullopt;
  }

  std::string_view whole_;
  int depth_ = 0;
  Last last_ = kNothing;
  std::set<std::string> names_;
};

}  // namespace

std::optional<std::string> GoRegexpError(std::string_view pattern) {
  Parser parser(pattern);
  if (auto err = parser.Parse()) {
    return "error parsing regexp: " + err->code + ": `" + err->expr + "`";
  }
  return std::nullopt;
}

}  // namespace apiextensions::validation::internal
