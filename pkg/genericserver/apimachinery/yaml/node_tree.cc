#include "pkg/genericserver/apimachinery/yaml/node_tree.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <istream>
#include <optional>
#include <streambuf>
#include <unordered_map>

#include "pkg/genericserver/apimachinery/yaml/parse_error.h"

namespace apimachinery::yaml::internal {

namespace {

// Reads a string_view through std::istream without copying it.
class ViewBuffer : public std::streambuf {
 public:
  explicit ViewBuffer(std::string_view s) {
    char* p = const_cast<char*>(s.data());
    setg(p, p, p + s.size());
  }
};

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsBreak(char c) { return c == '\n' || c == '\r'; }

// 0-based line of the end of the input, counting line breaks as libyaml does.
int EndLine(std::string_view s) {
  int line = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 == s.size() || s[i + 1] != '\n'))) ++line;
  }
  return line;
}

// yaml-cpp accepts a quoted scalar that runs to the end of the input; libyaml does not. Finds
// the quote that opens the scalar whose node starts at pos (after any tag and anchor) and
// reports whether it is closed.
bool QuotedScalarIsClosed(std::string_view in, std::size_t pos) {
  std::size_t i = pos;
  while (i < in.size()) {
    const char c = in[i];
    if (IsBlank(c) || IsBreak(c)) {
      ++i;
    } else if (c == '!' || c == '&') {
      while (i < in.size() && !IsBlank(in[i]) && !IsBreak(in[i])) ++i;
    } else if (c == '#') {
      while (i < in.size() && !IsBreak(in[i])) ++i;
    } else {
      break;
    }
  }
  if (i >= in.size() || (in[i] != '"' && in[i] != '\'')) return true;  // block scalar
  const char quote = in[i++];
  while (i < in.size()) {
    if (quote == '"' && in[i] == '\\') {
      i += 2;
    } else if (in[i] == quote) {
      if (quote == '\'' && i + 1 < in.size() && in[i + 1] == '\'') {
        i += 2;
      } else {
        return true;
      }
    } else {
      ++i;
    }
  }
  return false;
}

// Builds the node tree of one document from yaml-cpp's events.
class TreeBuilder : public YAML::EventHandler {
 public:
  explicit TreeBuilder(std::string_view input) : input_(input) {}

  NodeTree Take() { return std::move(tree_); }
  // Set when a quoted scalar ran to the end of the input.
  const std::optional<std::string>& error() const { return error_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Add(NodeKind::kScalar, "", "", mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const int index = Add(NodeKind::kAlias, "", "", mark, 0);
    const auto it = anchors_.find(anchor);
    if (it != anchors_.end()) tree_.nodes[index].target = it->second;
    tree_.nodes[index].anchor = names_[anchor];
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (tag != "?" && !error_ && !QuotedScalarIsClosed(input_, mark.pos)) {
      // libyaml reports it where the input ends.
      error_ = ScannerLinePrefix(EndLine(input_)) + "found unexpected end of stream";
    }
    Add(NodeKind::kScalar, tag == "?" ? "" : tag, value, mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open_.push_back(Add(NodeKind::kSequence, tag, "", mark, anchor));
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open_.push_back(Add(NodeKind::kMapping, tag, "", mark, anchor));
  }
  void OnMapEnd() override { open_.pop_back(); }
  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_name_ = name; }

 private:
  int Add(NodeKind kind, std::string tag, std::string text, const YAML::Mark& mark,
          YAML::anchor_t anchor) {
    const int index = static_cast<int>(tree_.nodes.size());
    Node& n = tree_.nodes.emplace_back();
    n.kind = kind;
    n.tag = std::move(tag);
    n.text = std::move(text);
    n.line = mark.line;
    if (anchor != 0) {
      anchors_[anchor] = index;
      names_[anchor] = pending_name_;
    }
    if (open_.empty()) {
      tree_.root = index;
    } else {
      tree_.nodes[open_.back()].children.push_back(index);
    }
    return index;
  }

  std::string_view input_;
  NodeTree tree_;
  std::vector<int> open_;
  std::unordered_map<YAML::anchor_t, int> anchors_;
  std::unordered_map<YAML::anchor_t, std::string> names_;
  std::string pending_name_;
  std::optional<std::string> error_;
};

// Watches a document after the first: does it hold anything, and did it start with "---"?
class DocumentProbe : public YAML::EventHandler {
 public:
  explicit DocumentProbe(std::string_view input) : input_(input) {}

  bool empty() const { return events_ == 0 || (events_ == 1 && only_null_); }
  bool explicit_start() const { return explicit_start_; }
  int line() const { return line_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    line_ = mark.line;
    const std::string_view rest = input_.substr(std::min<std::size_t>(mark.pos, input_.size()));
    explicit_start_ =
        rest.starts_with("%") ||
        (rest.starts_with("---") && (rest.size() == 3 || IsBlank(rest[3]) || IsBreak(rest[3])));
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { Count(anchor == 0); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { Count(false); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Count(false);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Count(false);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Count(false);
  }
  void OnMapEnd() override {}

 private:
  void Count(bool null) {
    ++events_;
    only_null_ = events_ == 1 && null;
  }

  std::string_view input_;
  int events_ = 0;
  bool only_null_ = false;
  bool explicit_start_ = false;
  int line_ = 0;
};

}  // namespace

std::expected<NodeTree, std::string> ParseSingleDocument(std::string_view yaml) {
  // Without the byte order mark yaml-cpp's offsets are offsets into yaml.
  if (yaml.starts_with("\xEF\xBB\xBF")) yaml.remove_prefix(3);
  ViewBuffer buffer(yaml);
  std::istream stream(&buffer);
  TreeBuilder builder(yaml);
  try {
    YAML::Parser parser(stream);
    if (!parser.HandleNextDocument(builder)) return NodeTree{};
    if (builder.error()) return std::unexpected(*builder.error());
    for (;;) {
      DocumentProbe probe(yaml);
      if (!parser.HandleNextDocument(probe)) break;
      if (!probe.explicit_start()) {
        // libyaml wants "---" before every document after the first.
        return std::unexpected(ParserLinePrefix(probe.line()) +
                               "did not find expected <document start>");
      }
      if (!probe.empty()) {
        return std::unexpected(ScannerLinePrefix(probe.line()) +
                               "expected a single document in the stream, but found another "
                               "document");
      }
    }
  } catch (const YAML::DeepRecursion& e) {
    return std::unexpected(DescribeParseFailure(yaml, {e.msg, e.mark.line, e.mark.pos, true}));
  } catch (const YAML::Exception& e) {
    if (builder.error()) return std::unexpected(*builder.error());
    return std::unexpected(DescribeParseFailure(yaml, {e.msg, e.mark.line, e.mark.pos, false}));
  }
  return builder.Take();
}

}  // namespace apimachinery::yaml::internal
