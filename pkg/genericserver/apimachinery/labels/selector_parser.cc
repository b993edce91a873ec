// The label selector lexer and recursive-descent parser: the same tokens, lookahead rules and
// error texts as upstream's labels.Parse, so that clients see the same 400 messages.

#include <algorithm>
#include <set>
#include <utility>

#include "pkg/genericserver/apimachinery/labels/selector.h"
#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/util/strings.h"

namespace apimachinery::labels {

namespace {

enum class Token {
  kError,
  kEndOfString,
  kClosedPar,
  kComma,
  kDoesNotExist,  // !
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct Item {
  Token token;
  std::string literal;
};

// The literal tokens; anything else the lexer reads is an identifier.
std::optional<Token> LiteralToken(std::string_view s) {
  if (s == ")") return Token::kClosedPar;
  if (s == ",") return Token::kComma;
  if (s == "!") return Token::kDoesNotExist;
  if (s == "==") return Token::kDoubleEquals;
  if (s == "=") return Token::kEquals;
  if (s == ">") return Token::kGreaterThan;
  if (s == "in") return Token::kIn;
  if (s == "<") return Token::kLessThan;
  if (s == "!=") return Token::kNotEquals;
  if (s == "notin") return Token::kNotIn;
  if (s == "(") return Token::kOpenPar;
  return std::nullopt;
}

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsSpecialSymbol(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

// Splits the input into items, ending with kEndOfString. A NUL byte ends the input, as the
// upstream lexer's read() returns 0 at the end.
std::vector<Item> Scan(std::string_view s) {
  std::vector<Item> items;
  size_t pos = 0;
  auto at = [&](size_t i) { return i < s.size() ? s[i] : '\0'; };
  while (true) {
    while (IsWhitespace(at(pos))) ++pos;
    const char c = at(pos);
    if (c == '\0') {
      items.push_back({Token::kEndOfString, ""});
      return items;
    }
    if (IsSpecialSymbol(c)) {
      // The longest run of special symbols that is still a token: "!=" but "=" then "!".
      std::string buffer;
      std::optional<Item> last;
      while (IsSpecialSymbol(at(pos))) {
        buffer.push_back(at(pos));
        if (auto t = LiteralToken(buffer)) {
          last = Item{*t, buffer};
          ++pos;
        } else {
          break;
        }
      }
      if (!last) {
        items.push_back({Token::kError, "error expected: keyword found '" + buffer + "'"});
      } else {
        items.push_back(std::move(*last));
      }
      continue;
    }
    std::string word;
    while (at(pos) != '\0' && !IsSpecialSymbol(at(pos)) && !IsWhitespace(at(pos))) {
      word.push_back(at(pos++));
    }
    const std::optional<Token> t = LiteralToken(word);
    items.push_back({t ? *t : Token::kIdentifier, std::move(word)});
  }
}

// Where the parser is: "in" and "notin" are identifiers among values (`x in (in)`).
enum class Context { kKeyAndOperator, kValues };

class Parser {
 public:
  explicit Parser(std::string_view input) : items_(Scan(input)) {}

  std::expected<std::vector<Requirement>, std::string> Parse() {
    std::vector<Requirement> requirements;
    while (true) {
      const Item item = Lookahead(Context::kValues);
      switch (item.token) {
        case Token::kIdentifier:
        case Token::kDoesNotExist: {
          auto r = ParseRequirement();
          if (!r) return std::unexpected("unable to parse requirement: " + r.error());
          requirements.push_back(std::move(*r));
          const Item next = Consume(Context::kValues);
          if (next.token == Token::kEndOfString) return requirements;
          if (next.token != Token::kComma) {
            return std::unexpected("found '" + next.literal +
                                   "', expected: ',' or 'end of string'");
          }
          const Item after = Lookahead(Context::kValues);
          if (after.token != Token::kIdentifier && after.token != Token::kDoesNotExist) {
            return std::unexpected("found '" + after.literal + "', expected: identifier after ','");
          }
          break;
        }
        case Token::kEndOfString:
          return requirements;
        default:
          return std::unexpected("found '" + item.literal +
                                 "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  // Reading past the end keeps answering the final kEndOfString.
  const Item& Current() const { return items_[std::min(position_, items_.size() - 1)]; }

  Item Lookahead(Context context) const { return Adjust(Current(), context); }

  Item Consume(Context context) {
    Item item = Adjust(Current(), context);
    ++position_;
    return item;
  }

  static Item Adjust(Item item, Context context) {
    if (context == Context::kValues && (item.token == Token::kIn || item.token == Token::kNotIn)) {
      item.token = Token::kIdentifier;
    }
    return item;
  }

  std::expected<Requirement, std::string> ParseRequirement() {
    // The key, and the operator when the key alone decides it (`k`, `!k`).
    Item item = Consume(Context::kValues);
    std::optional<Operator> op;
    if (item.token == Token::kDoesNotExist) {
      op = Operator::kDoesNotExist;
      item = Consume(Context::kValues);
    }
    if (item.token != Token::kIdentifier) {
      return std::unexpected("found '" + item.literal + "', expected: identifier");
    }
    std::string key = std::move(item.literal);
    if (auto msgs = validation::IsQualifiedName(key); !msgs.empty()) {
      // Upstream validates the key here with a nil field path, hence "<nil>".
      return std::unexpected(
          validation::ErrorString(validation::FieldInvalid("<nil>", key, util::Join(msgs, "; "))));
    }
    const Token next = Lookahead(Context::kValues).token;
    if (!op && (next == Token::kEndOfString || next == Token::kComma)) op = Operator::kExists;
    if (op) return NewRequirement(std::move(key), *op, {});

    const Item op_item = Consume(Context::kKeyAndOperator);
    std::expected<std::set<std::string>, std::string> values;
    switch (op_item.token) {
      case Token::kIn:
        op = Operator::kIn;
        break;
      case Token::kNotIn:
        op = Operator::kNotIn;
        break;
      case Token::kEquals:
        op = Operator::kEquals;
        break;
      case Token::kDoubleEquals:
        op = Operator::kDoubleEquals;
        break;
      case Token::kNotEquals:
        op = Operator::kNotEquals;
        break;
      case Token::kGreaterThan:
        op = Operator::kGreaterThan;
        break;
      case Token::kLessThan:
        op = Operator::kLessThan;
        break;
      default:
        return std::unexpected("found '" + op_item.literal +
                               "', expected: in, notin, =, ==, !=, gt, lt");
    }
    values = (*op == Operator::kIn || *op == Operator::kNotIn) ? ParseValues() : ParseExactValue();
    if (!values) return std::unexpected(std::move(values.error()));
    return NewRequirement(std::move(key), *op, {values->begin(), values->end()});
  }

  // "(" values ")" for in/notin; "()" means the one empty value.
  std::expected<std::set<std::string>, std::string> ParseValues() {
    const Item open = Consume(Context::kValues);
    if (open.token != Token::kOpenPar) {
      return std::unexpected("found '" + open.literal + "' expected: '('");
    }
    const Item first = Lookahead(Context::kValues);
    switch (first.token) {
      case Token::kIdentifier:
      case Token::kComma: {
        auto values = ParseIdentifiersList();
        if (!values) return values;
        if (Consume(Context::kValues).token != Token::kClosedPar) {
          return std::unexpected("found '" + first.literal + "', expected: ')'");
        }
        return values;
      }
      case Token::kClosedPar:
        Consume(Context::kValues);
        return std::set<std::string>{""};
      default:
        return std::unexpected("found '" + first.literal + "', expected: ',', ')' or identifier");
    }
  }

  // A comma-separated list of possibly empty values, up to (not including) the ")".
  std::expected<std::set<std::string>, std::string> ParseIdentifiersList() {
    std::set<std::string> values;
    while (true) {
      const Item item = Consume(Context::kValues);
      if (item.token == Token::kIdentifier) {
        values.insert(item.literal);
        const Item next = Lookahead(Context::kValues);
        if (next.token == Token::kComma) continue;
        if (next.token == Token::kClosedPar) return values;
        return std::unexpected("found '" + next.literal + "', expected: ',' or ')'");
      }
      if (item.token == Token::kComma) {
        if (values.empty()) values.insert("");  // "(,"
        const Token next = Lookahead(Context::kValues).token;
        if (next == Token::kClosedPar) {
          values.insert("");  // ",)"
          return values;
        }
        if (next == Token::kComma) values.insert("");  // ",,"
        continue;
      }
      return std::unexpected("found '" + item.literal + "', expected: ',', or identifier");
    }
  }

  // The one value after =, ==, !=, > or <; nothing before "," or the end means "".
  std::expected<std::set<std::string>, std::string> ParseExactValue() {
    const Token next = Lookahead(Context::kValues).token;
    if (next == Token::kEndOfString || next == Token::kComma) return std::set<std::string>{""};
    const Item item = Consume(Context::kValues);
    if (item.token == Token::kIdentifier) return std::set<std::string>{item.literal};
    return std::unexpected("found '" + item.literal + "', expected: identifier");
  }

  std::vector<Item> items_;
  size_t position_ = 0;
};

}  // namespace

std::expected<Selector, std::string> Parse(std::string_view selector) {
  Parser parser(selector);
  auto requirements = parser.Parse();
  if (!requirements) return std::unexpected(std::move(requirements.error()));
  return Selector(std::move(*requirements));
}

}  // namespace apimachinery::labels
