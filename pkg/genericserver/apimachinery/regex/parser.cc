#include "pkg/genericserver/apimachinery/regex/parser.h"

#include <optional>

#include "pkg/genericserver/apimachinery/regex/charclass.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apimachinery::regex::internal {

namespace {

namespace v = apimachinery::validation;

constexpr int kMaxRepeat = 1000;  // Go's limit on {n,m}, and on nested counts multiplied

struct Flags {
  bool fold = false;       // i
  bool multiline = false;  // m
  bool dot_nl = false;     // s
  bool ungreedy = false;   // U
};

// An error as Go's *syntax.Error prints it.
std::unexpected<std::string> Error(std::string_view code, std::string_view expr) {
  return std::unexpected("error parsing regexp: " + std::string(code) + ": `" + std::string(expr) +
                         "`");
}

// The part of `before` that is gone from `after` (both end where the pattern ends).
std::string_view Consumed(std::string_view before, std::string_view after) {
  return before.substr(0, before.size() - after.size());
}

bool IsAlnum(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

int Unhex(char32_t c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<int>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<int>(c - 'A' + 10);
  return -1;
}

bool IsInvalid(const v::DecodedRune& r) { return r.rune == 0xFFFD && r.size == 1; }

// A rune and the text after it.
struct Next {
  char32_t rune;
  std::string_view rest;
};

// Go's nextRune: empty text reads as U+FFFD with nothing consumed; invalid UTF-8 is an error.
std::expected<Next, std::string> NextRune(std::string_view s) {
  if (s.empty()) return Next{0xFFFD, s};
  const v::DecodedRune r = v::DecodeRune(s);
  if (IsInvalid(r)) return Error("invalid UTF-8", s);
  return Next{r.rune, s.substr(r.size)};
}

std::expected<void, std::string> CheckUTF8(std::string_view s) {
  while (!s.empty()) {
    const v::DecodedRune r = v::DecodeRune(s);
    if (IsInvalid(r)) return Error("invalid UTF-8", s);
    s.remove_prefix(r.size);
  }
  return {};
}

// Go's parseInt: digits without a leading zero; -1 when too large.
bool ParseInt(std::string_view& s, int& n) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  if (s.size() >= 2 && s[0] == '0' && s[1] >= '0' && s[1] <= '9') return false;
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  n = 0;
  for (size_t i = 0; i < digits; ++i) {
    if (n >= 100000000) {
      n = -1;
      break;
    }
    n = n * 10 + (s[i] - '0');
  }
  s.remove_prefix(digits);
  return true;
}

// Go's parseRepeat: {n}, {n,} or {n,m} at the start of s; false when s does not start with
// one (the brace is then a literal).
bool ParseRepeat(std::string_view s, int& min, int& max, std::string_view& rest) {
  if (s.empty() || s[0] != '{') return false;
  s.remove_prefix(1);
  if (!ParseInt(s, min) || s.empty()) return false;
  if (s[0] != ',') {
    max = min;
  } else {
    s.remove_prefix(1);
    if (s.empty()) return false;
    if (s[0] == '}') {
      max = -1;
    } else if (!ParseInt(s, max)) {
      return false;
    } else if (max < 0) {
      min = -1;  // too large a number
    }
  }
  if (s.empty() || s[0] != '}') return false;
  rest = s.substr(1);
  return true;
}

// Go's repeatIsValid: nested counted repetitions multiply to at most n copies.
bool RepeatIsValid(const Node& node, int n) {
  if (node.kind == Node::Kind::kRepeat && node.counted) {
    int m = node.max;
    if (m == 0) return true;
    if (m < 0) m = node.min;
    if (m > n) return false;
    if (m > 0) n /= m;
  }
  for (const Node& child : node.children) {
    if (!RepeatIsValid(child, n)) return false;
  }
  return true;
}

Node ClassNode(Ranges r) {
  Node n;
  n.kind = Node::Kind::kClass;
  Normalize(r);
  n.ranges = std::move(r);
  return n;
}

Node AssertNode(uint32_t condition) {
  Node n;
  n.kind = Node::Kind::kAssert;
  n.assert = condition;
  return n;
}

// A sequence: nothing, one node, or a concatenation.
Node Sequence(std::vector<Node> items) {
  if (items.empty()) return Node{};
  if (items.size() == 1) return std::move(items[0]);
  Node n;
  n.kind = Node::Kind::kConcat;
  n.children = std::move(items);
  return n;
}

class Parser {
 public:
  explicit Parser(std::string_view pattern) : whole_(pattern) {}

  std::expected<Node, std::string> Parse() {
    groups_.emplace_back();
    std::string_view t = whole_;
    std::string_view last_repeat;  // the repetition operator just before, if any
    while (!t.empty()) {
      std::string_view repeat;
      std::expected<std::string_view, std::string> rest;
      switch (t[0]) {
        case '(':
          if (t.size() >= 2 && t[1] == '?') {
            rest = ParsePerlFlags(t);
          } else if (auto opened = Open(); !opened) {
            return std::unexpected(opened.error());
          } else {
            rest = t.substr(1);
          }
          break;
        case '|': {
          Group& g = groups_.back();
          g.branches.push_back(Sequence(std::move(g.items)));
          g.items.clear();
          rest = t.substr(1);
          break;
        }
        case ')': {
          if (groups_.size() == 1) return Error("unexpected )", whole_);
          Group g = std::move(groups_.back());
          groups_.pop_back();
          flags_ = g.outer;
          Push(Finish(std::move(g)));
          rest = t.substr(1);
          break;
        }
        case '^':
          Push(AssertNode(flags_.multiline ? kBeginLine : kBeginText));
          rest = t.substr(1);
          break;
        case '$':
          Push(AssertNode(flags_.multiline ? kEndLine : kEndText));
          rest = t.substr(1);
          break;
        case '.':
          Push(ClassNode(flags_.dot_nl ? Ranges{{0, kMaxRune}}
                                       : Ranges{{0, '\n' - 1}, {'\n' + 1, kMaxRune}}));
          rest = t.substr(1);
          break;
        case '[':
          rest = ParseClass(t);
          break;
        case '*':
        case '+':
        case '?':
          rest =
              Repeat(t[0] == '+' ? 1 : 0, t[0] == '?' ? 1 : -1, false, t, t.substr(1), last_repeat);
          repeat = t;
          break;
        case '{': {
          int min = 0, max = 0;
          std::string_view after;
          if (!ParseRepeat(t, min, max, after)) {
            Push(Literal('{'));  // not a repetition: a literal brace
            rest = t.substr(1);
            break;
          }
          if (min < 0 || min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && min > max)) {
            return Error("invalid repeat count", Consumed(t, after));
          }
          rest = Repeat(min, max, true, t, after, last_repeat);
          repeat = t;
          break;
        }
        case '\\':
          rest = ParseBackslash(t);
          break;
        default: {
          auto next = NextRune(t);
          if (!next) return std::unexpected(next.error());
          Push(Literal(next->rune));
          rest = next->rest;
          break;
        }
      }
      if (!rest) return std::unexpected(rest.error());
      t = *rest;
      last_repeat = repeat;
    }
    if (groups_.size() != 1) return Error("missing closing )", whole_);
    return Finish(std::move(groups_.back()));
  }

 private:
  // An open group; the outermost is the whole expression.
  struct Group {
    Flags outer;                 // the flags to restore at its ')'
    std::vector<Node> branches;  // the alternatives before the last '|'
    std::vector<Node> items;     // the current alternative so far
  };

  std::expected<void, std::string> Open() {
    if (groups_.size() > static_cast<size_t>(kMaxDepth)) {
      return Error("expression nests too deeply", whole_);
    }
    groups_.push_back(Group{flags_, {}, {}});
    return {};
  }

  static Node Finish(Group g) {
    g.branches.push_back(Sequence(std::move(g.items)));
    if (g.branches.size() == 1) return std::move(g.branches[0]);
    Node n;
    n.kind = Node::Kind::kAlternate;
    n.children = std::move(g.branches);
    return n;
  }

  void Push(Node n) { groups_.back().items.push_back(std::move(n)); }

  Node Literal(char32_t c) const {
    Ranges r;
    if (flags_.fold) {
      AddFolded(r, c, c);
    } else {
      r.emplace_back(c, c);
    }
    return ClassNode(std::move(r));
  }

  // Go's repeat: applies the operator in before[:len(before)-len(after)] to the last item.
  std::expected<std::string_view, std::string> Repeat(int min, int max, bool counted,
                                                      std::string_view before,
                                                      std::string_view after,
                                                      std::string_view last_repeat) {
    bool greedy = !flags_.ungreedy;
    if (!after.empty() && after[0] == '?') {
      after.remove_prefix(1);
      greedy = !greedy;
    }
    if (!last_repeat.empty()) {
      // a** is an error in Perl syntax, not a doubled star.
      return Error("invalid nested repetition operator", Consumed(last_repeat, after));
    }
    std::vector<Node>& items = groups_.back().items;
    if (items.empty())
      return Error("missing argument to repetition operator", Consumed(before, after));
    Node rep;
    rep.kind = Node::Kind::kRepeat;
    rep.min = min;
    rep.max = max;
    rep.greedy = greedy;
    rep.counted = counted;
    rep.children.push_back(std::move(items.back()));
    items.back() = std::move(rep);
    if (counted && (min >= 2 || max >= 2) && !RepeatIsValid(items.back(), kMaxRepeat)) {
      return Error("invalid repeat count", Consumed(before, after));
    }
    return after;
  }

  // Go's parsePerlFlags: (?P<name>, (?<name>, (?flags) or (?flags: at the start of t.
  std::expected<std::string_view, std::string> ParsePerlFlags(std::string_view t) {
    const bool p_name = t.size() > 4 && t[2] == 'P' && t[3] == '<';
    const bool name_only = t.size() > 3 && t[2] == '<';
    if (p_name || name_only) {
      const size_t begin = p_name ? 4 : 3;
      const size_t end = t.find('>');
      if (end == std::string_view::npos) {
        if (auto ok = CheckUTF8(t); !ok) return std::unexpected(ok.error());
        return Error("invalid named capture", t);
      }
      const std::string_view name = t.substr(begin, end - begin);
      if (auto ok = CheckUTF8(name); !ok) return std::unexpected(ok.error());
      bool valid = !name.empty();
      for (char c : name) valid = valid && (IsAlnum(static_cast<unsigned char>(c)) || c == '_');
      if (!valid) return Error("invalid named capture", t.substr(0, end + 1));
      if (auto opened = Open(); !opened) return std::unexpected(opened.error());
      return t.substr(end + 1);
    }
    Flags next = flags_;
    bool negated = false, saw_flag = false;
    std::string_view rest = t.substr(2);
    while (!rest.empty()) {
      auto r = NextRune(rest);
      if (!r) return std::unexpected(r.error());
      rest = r->rest;
      const char32_t c = r->rune;
      if (c == 'i' || c == 'm' || c == 's' || c == 'U') {
        bool& flag = c == 'i'   ? next.fold
                     : c == 'm' ? next.multiline
                     : c == 's' ? next.dot_nl
                                : next.ungreedy;
        flag = !negated;
        saw_flag = true;
        continue;
      }
      if (c == '-' && !negated) {
        negated = true;
        saw_flag = false;
        continue;
      }
      if ((c == ':' || c == ')') && (!negated || saw_flag)) {
        if (c == ':') {
          // A group: the new flags last until its ')'; (?flags) lasts to the enclosing one's.
          if (auto opened = Open(); !opened) return std::unexpected(opened.error());
        }
        flags_ = next;
        return rest;
      }
      break;
    }
    return Error("invalid or unsupported Perl syntax", Consumed(t, rest));
  }

  // A backslash outside a class: an assertion, \Q...\E, a class or an escaped rune.
  std::expected<std::string_view, std::string> ParseBackslash(std::string_view t) {
    if (t.size() >= 2) {
      switch (t[1]) {
        case 'A':
          Push(AssertNode(kBeginText));
          return t.substr(2);
        case 'z':
          Push(AssertNode(kEndText));
          return t.substr(2);
        case 'b':
          Push(AssertNode(kWordBoundary));
          return t.substr(2);
        case 'B':
          Push(AssertNode(kNoWordBoundary));
          return t.substr(2);
        case 'C':  // any byte: not supported
          return Error("invalid escape sequence", t.substr(0, 2));
        case 'Q': {
          // Literal text up to \E; a following repetition applies to its last rune.
          std::string_view lit = t.substr(2), rest;
          if (const size_t end = lit.find("\\E"); end != std::string_view::npos) {
            rest = lit.substr(end + 2);
            lit = lit.substr(0, end);
          }
          while (!lit.empty()) {
            auto r = NextRune(lit);
            if (!r) return std::unexpected(r.error());
            Push(Literal(r->rune));
            lit = r->rest;
          }
          return rest;
        }
        default:
          break;
      }
    }
    Ranges ranges;
    auto rest = ParseClassEscape(t, ranges);
    if (!rest) return std::unexpected(rest.error());
    if (*rest) {
      Push(ClassNode(std::move(ranges)));
      return **rest;
    }
    auto escaped = ParseEscape(t);
    if (!escaped) return std::unexpected(escaped.error());
    Push(Literal(escaped->rune));
    return escaped->rest;
  }

  // \pN, \p{Name}, \PN, \P{^Name}, \d, \D, \s, \S, \w, \W at the start of t: adds the class to
  // `ranges` and returns the rest, or nullopt when t starts with none of them.
  std::expected<std::optional<std::string_view>, std::string> ParseClassEscape(
      std::string_view t, Ranges& ranges) const {
    if (t.size() < 2 || t[0] != '\\') return std::nullopt;
    const char c = t[1];
    if (c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W') {
      AppendGroup(ranges, PerlClass(static_cast<char>(c | 0x20)), c < 'a');
      return t.substr(2);
    }
    if (c != 'p' && c != 'P') return std::nullopt;
    // Go's parseUnicodeClass.
    bool negate = c == 'P';
    auto first = NextRune(t.substr(2));
    if (!first) return std::unexpected(first.error());
    std::string_view seq, name, rest;
    if (first->rune != '{') {
      rest = first->rest;
      seq = Consumed(t, rest);
      name = seq.substr(2);
    } else {
      const size_t end = t.find('}');
      if (end == std::string_view::npos) {
        if (auto ok = CheckUTF8(t); !ok) return std::unexpected(ok.error());
        return Error("invalid character class range", t);
      }
      seq = t.substr(0, end + 1);
      rest = t.substr(end + 1);
      name = t.substr(3, end - 3);
      if (auto ok = CheckUTF8(name); !ok) return std::unexpected(ok.error());
    }
    if (!name.empty() && name[0] == '^') {
      negate = !negate;
      name.remove_prefix(1);
    }
    auto table = UnicodeClass(name);
    if (!table) return Error("invalid character class range", seq);
    AppendGroup(ranges, std::move(*table), negate);
    return rest;
  }

  // Adds a named class, case folded under (?i), then negated if asked.
  void AppendGroup(Ranges& ranges, Ranges group, bool negate) const {
    if (flags_.fold) group = Folded(group);
    if (negate) group = Negate(group);
    ranges.insert(ranges.end(), group.begin(), group.end());
  }

  // Go's parseEscape: the rune of the escape at the start of s.
  static std::expected<Next, std::string> ParseEscape(std::string_view s) {
    std::string_view t = s.substr(1);
    if (t.empty()) return Error("trailing backslash at end of expression", "");
    auto first = NextRune(t);
    if (!first) return std::unexpected(first.error());
    const char32_t c = first->rune;
    t = first->rest;
    auto invalid = [&] { return Error("invalid escape sequence", Consumed(s, t)); };
    switch (c) {
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
        // A single non-zero digit would be a backreference, which Go does not support.
        if (t.empty() || t[0] < '0' || t[0] > '7') return invalid();
        [[fallthrough]];
      case '0': {
        char32_t r = c - '0';
        for (int i = 1; i < 3 && !t.empty() && t[0] >= '0' && t[0] <= '7'; ++i) {
          r = r * 8 + static_cast<char32_t>(t[0] - '0');
          t.remove_prefix(1);
        }
        return Next{r, t};
      }
      case 'x': {
        if (t.empty()) return invalid();
        auto x = NextRune(t);
        if (!x) return std::unexpected(x.error());
        t = x->rest;
        if (x->rune == '{') {
          // Any number of hex digits in braces, at least one.
          int digits = 0;
          char32_t r = 0;
          for (;;) {
            if (t.empty()) return invalid();
            auto d = NextRune(t);
            if (!d) return std::unexpected(d.error());
            t = d->rest;
            if (d->rune == '}') break;
            const int value = Unhex(d->rune);
            if (value < 0) return invalid();
            r = r * 16 + static_cast<char32_t>(value);
            if (r > kMaxRune) return invalid();
            ++digits;
          }
          if (digits == 0) return invalid();
          return Next{r, t};
        }
        auto y = NextRune(t);
        if (!y) return std::unexpected(y.error());
        t = y->rest;
        const int hi = Unhex(x->rune), lo = Unhex(y->rune);
        if (hi < 0 || lo < 0) return invalid();
        return Next{static_cast<char32_t>(hi * 16 + lo), t};
      }
      case 'a':
        return Next{'\a', t};
      case 'f':
        return Next{'\f', t};
      case 'n':
        return Next{'\n', t};
      case 'r':
        return Next{'\r', t};
      case 't':
        return Next{'\t', t};
      case 'v':
        return Next{'\v', t};
      default:
        // Escaped punctuation is itself; other escapes are reserved.
        if (c < 0x80 && !IsAlnum(c)) return Next{c, t};
        return invalid();
    }
  }

  // Go's parseClass: a bracketed class at the start of s.
  std::expected<std::string_view, std::string> ParseClass(std::string_view s) {
    std::string_view t = s.substr(1);
    bool negate = false;
    if (!t.empty() && t[0] == '^') {
      negate = true;
      t.remove_prefix(1);
    }
    Ranges ranges;
    bool first = true;  // ] and - are literal first in the class
    while (t.empty() || t[0] != ']' || first) {
      first = false;
      // POSIX classes: [:alpha:], [:^alpha:].
      if (t.size() > 2 && t[0] == '[' && t[1] == ':') {
        if (const size_t close = t.find(":]", 2); close != std::string_view::npos) {
          const std::string_view whole = t.substr(0, close + 2);
          std::string_view name = t.substr(2, close - 2);
          const bool negated = !name.empty() && name[0] == '^';
          if (negated) name.remove_prefix(1);
          auto group = PosixClass(name);
          if (!group) return Error("invalid character class range", whole);
          AppendGroup(ranges, std::move(*group), negated);
          t.remove_prefix(close + 2);
          continue;
        }
      }
      auto escape = ParseClassEscape(t, ranges);
      if (!escape) return std::unexpected(escape.error());
      if (*escape) {
        t = **escape;
        continue;
      }
      // A rune or a range of runes.
      const std::string_view range = t;
      auto lo = ParseClassChar(t, s);
      if (!lo) return std::unexpected(lo.error());
      t = lo->rest;
      char32_t hi = lo->rune;
      if (t.size() >= 2 && t[0] == '-' && t[1] != ']') {  // [a-] is a and -
        auto h = ParseClassChar(t.substr(1), s);
        if (!h) return std::unexpected(h.error());
        t = h->rest;
        hi = h->rune;
        if (hi < lo->rune) return Error("invalid character class range", Consumed(range, t));
      }
      if (flags_.fold) {
        AddFolded(ranges, lo->rune, hi);
      } else {
        ranges.emplace_back(lo->rune, hi);
      }
    }
    t.remove_prefix(1);  // ']'
    Normalize(ranges);
    if (negate) ranges = Negate(ranges);
    Push(ClassNode(std::move(ranges)));
    return t;
  }

  static std::expected<Next, std::string> ParseClassChar(std::string_view t,
                                                         std::string_view whole_class) {
    if (t.empty()) return Error("missing closing ]", whole_class);
    if (t[0] == '\\') return ParseEscape(t);
    return NextRune(t);
  }

  std::string_view whole_;
  Flags flags_;
  std::vector<Group> groups_;
};

}  // namespace

std::expected<Node, std::string> Parse(std::string_view pattern) { return Parser(pattern).Parse(); }

}  // namespace apimachinery::regex::internal
