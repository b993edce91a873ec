#include "pkg/apiextensions/registry/jsonpath.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/patch/go_format.h"

namespace apiextensions::jsonpath {

using nlohmann::json;

// One step of a path: a child name, "*", ".." (recursive descent), an index or slice, or a
// filter on the elements of an array.
struct Filter {
  std::vector<std::string> left;  // the field path after '@'
  std::string op;                 // "", "==", "!=", "<", ">", "<=", ">="
  json right;                     // a literal
};

struct Step {
  enum Kind { kField, kWildcard, kRecursive, kIndex, kSlice, kFilter } kind = kField;
  std::string name;
  long long index = 0;
  std::optional<long long> from, to;
  Filter filter;
};

namespace {

bool FieldChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '/' ||
         static_cast<unsigned char>(c) >= 0x80;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::expected<std::vector<std::shared_ptr<const Step>>, std::string> Run() {
    std::vector<std::shared_ptr<const Step>> steps;
    if (s_.empty()) return std::unexpected("empty path");
    while (i_ < s_.size()) {
      auto step = std::make_shared<Step>();
      if (s_.substr(i_, 2) == "..") {
        i_ += 2;
        step->kind = Step::kRecursive;
        steps.push_back(step);
        step = std::make_shared<Step>();
        if (i_ < s_.size() && s_[i_] == '[') continue;
        if (!Name(*step)) return std::unexpected(Error("a field name after \"..\""));
      } else if (s_[i_] == '.') {
        ++i_;
        if (i_ == s_.size()) return std::unexpected(Error("a field name after \".\""));
        if (!Name(*step)) return std::unexpected(Error("a field name after \".\""));
      } else if (s_[i_] == '[') {
        auto bracket = Bracket(*step);
        if (!bracket) return std::unexpected(bracket.error());
      } else if (steps.empty() && FieldChar(s_[i_])) {
        if (!Name(*step)) return std::unexpected(Error("a field name"));
      } else {
        return std::unexpected(Error("\".\" or \"[\""));
      }
      steps.push_back(std::move(step));
    }
    return steps;
  }

 private:
  std::string Error(std::string_view expected) const {
    return "unrecognized character at " + std::to_string(i_) + " of \"" + std::string(s_) +
           "\": expected " + std::string(expected);
  }

  bool Name(Step& step) {
    if (i_ < s_.size() && s_[i_] == '*') {
      ++i_;
      step.kind = Step::kWildcard;
      return true;
    }
    const size_t start = i_;
    while (i_ < s_.size() && FieldChar(s_[i_])) ++i_;
    if (i_ == start) return false;
    step.kind = Step::kField;
    step.name = std::string(s_.substr(start, i_ - start));
    return true;
  }

  void Spaces() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }

  std::optional<long long> Integer() {
    Spaces();
    const size_t start = i_;
    if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ == start || (i_ == start + 1 && !std::isdigit(static_cast<unsigned char>(s_[start])))) {
      i_ = start;
      return std::nullopt;
    }
    try {
      return std::stoll(std::string(s_.substr(start, i_ - start)));
    } catch (...) {
      return std::nullopt;
    }
  }

  std::optional<std::string> Quoted() {
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return std::nullopt;
    const char quote = s_[i_++];
    std::string out;
    while (i_ < s_.size() && s_[i_] != quote) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      out += s_[i_++];
    }
    if (i_ == s_.size()) return std::nullopt;
    ++i_;
    return out;
  }

  std::expected<void, std::string> Bracket(Step& step) {
    ++i_;  // '['
    Spaces();
    if (i_ < s_.size() && s_[i_] == '*') {
      ++i_;
      step.kind = Step::kWildcard;
    } else if (i_ < s_.size() && (s_[i_] == '\'' || s_[i_] == '"')) {
      auto name = Quoted();
      if (!name) return std::unexpected(Error("a closing quote"));
      step.kind = Step::kField;
      step.name = *name;
    } else if (s_.substr(i_, 2) == "?(") {
      i_ += 2;
      auto filter = ParseFilter(step.filter);
      if (!filter) return filter;
      step.kind = Step::kFilter;
    } else {
      auto first = Integer();
      Spaces();
      if (i_ < s_.size() && s_[i_] == ':') {
        ++i_;
        step.kind = Step::kSlice;
        step.from = first;
        step.to = Integer();
        Spaces();
        if (i_ < s_.size() && s_[i_] == ':') {  // a step; only 1 is meaningful here
          ++i_;
          Integer();
        }
      } else if (first) {
        step.kind = Step::kIndex;
        step.index = *first;
      } else {
        return std::unexpected(Error("an index, a slice, a quoted name, \"*\" or a filter"));
      }
    }
    Spaces();
    if (i_ >= s_.size() || s_[i_] != ']') return std::unexpected(Error("\"]\""));
    ++i_;
    return {};
  }

  std::expected<void, std::string> ParseFilter(Filter& filter) {
    Spaces();
    if (i_ >= s_.size() || s_[i_] != '@') return std::unexpected(Error("\"@\""));
    ++i_;
    while (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      const size_t start = i_;
      while (i_ < s_.size() && FieldChar(s_[i_])) ++i_;
      if (i_ == start) return std::unexpected(Error("a field name"));
      filter.left.emplace_back(s_.substr(start, i_ - start));
    }
    Spaces();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (s_.substr(i_).starts_with(op)) {
        filter.op = op;
        i_ += filter.op.size();
        break;
      }
    }
    if (!filter.op.empty()) {
      Spaces();
      if (auto quoted = Quoted()) {
        filter.right = *quoted;
      } else {
        const size_t start = i_;
        while (i_ < s_.size() && s_[i_] != ')' && s_[i_] != ' ') ++i_;
        const std::string literal(s_.substr(start, i_ - start));
        if (literal == "true" || literal == "false") {
          filter.right = literal == "true";
        } else {
          try {
            size_t used = 0;
            const double d = std::stod(literal, &used);
            if (used != literal.size()) throw std::invalid_argument(literal);
            filter.right = d;
          } catch (...) {
            return std::unexpected(Error("a literal"));
          }
        }
      }
    }
    Spaces();
    if (i_ >= s_.size() || s_[i_] != ')') return std::unexpected(Error("\")\""));
    ++i_;
    return {};
  }

  std::string_view s_;
  size_t i_ = 0;
};

void Descendants(const json& value, std::vector<const json*>& out) {
  out.push_back(&value);
  if (value.is_object() || value.is_array()) {
    for (const json& child : value) Descendants(child, out);
  }
}

bool Matches(const Filter& f, const json& element) {
  const json* v = &element;
  for (const std::string& name : f.left) {
    if (!v->is_object()) return false;
    auto it = v->find(name);
    if (it == v->end()) return false;
    v = &*it;
  }
  if (f.op.empty()) return true;
  if (v->is_number() && f.right.is_number()) {
    const double a = v->get<double>(), b = f.right.get<double>();
    if (f.op == "==") return a == b;
    if (f.op == "!=") return a != b;
    if (f.op == "<") return a < b;
    if (f.op == ">") return a > b;
    if (f.op == "<=") return a <= b;
    return a >= b;
  }
  if (v->is_string() && f.right.is_string()) {
    const std::string& a = v->get_ref<const std::string&>();
    const std::string& b = f.right.get_ref<const std::string&>();
    if (f.op == "==") return a == b;
    if (f.op == "!=") return a != b;
    if (f.op == "<") return a < b;
    if (f.op == ">") return a > b;
    if (f.op == "<=") return a <= b;
    return a >= b;
  }
  if (f.op == "==") return *v == f.right;
  if (f.op == "!=") return *v != f.right;
  return false;
}

}  // namespace

std::expected<Path, std::string> Path::Parse(std::string_view text) {
  if (text.starts_with('{') && text.ends_with('}')) text = text.substr(1, text.size() - 2);
  auto steps = Parser(text).Run();
  if (!steps) return std::unexpected(steps.error());
  Path p;
  p.steps_ = std::move(*steps);
  return p;
}

std::vector<json> Path::Find(const json& root) const {
  std::vector<const json*> current = {&root};
  for (const auto& step : steps_) {
    std::vector<const json*> next;
    for (const json* v : current) {
      switch (step->kind) {
        case Step::kField:
          if (v->is_object()) {
            if (auto it = v->find(step->name); it != v->end()) next.push_back(&*it);
          }
          break;
        case Step::kWildcard:
          if (v->is_object() || v->is_array()) {
            for (const json& child : *v) next.push_back(&child);
          }
          break;
        case Step::kRecursive:
          Descendants(*v, next);
          break;
        case Step::kIndex:
          if (v->is_array()) {
            long long i =
                step->index < 0 ? static_cast<long long>(v->size()) + step->index : step->index;
            if (i >= 0 && i < static_cast<long long>(v->size())) next.push_back(&(*v)[i]);
          }
          break;
        case Step::kSlice:
          if (v->is_array()) {
            const long long n = static_cast<long long>(v->size());
            long long from = step->from.value_or(0), to = step->to.value_or(n);
            if (from < 0) from += n;
            if (to < 0) to += n;
            from = std::clamp(from, 0LL, n);
            to = std::clamp(to, 0LL, n);
            for (long long i = from; i < to; ++i) next.push_back(&(*v)[i]);
          }
          break;
        case Step::kFilter:
          if (v->is_array()) {
            for (const json& element : *v) {
              if (Matches(step->filter, element)) next.push_back(&element);
            }
          }
          break;
      }
    }
    current = std::move(next);
  }
  std::vector<json> out;
  out.reserve(current.size());
  for (const json* v : current) out.push_back(*v);
  return out;
}

std::string PrintValue(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "null";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number()) return apimachinery::patch::GoValue(value);
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace apiextensions::jsonpath
