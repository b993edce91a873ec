#include "pkg/genericserver/storage/versioner.h"

#include <nlohmann/json.hpp>

namespace storage {
namespace {

// Walks JSON text without building anything. Positions are offsets into the text.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  // A string token, unescaped only as far as comparing keys needs (escapes kept raw).
  bool String(std::string_view* raw) {
    if (!Eat('"')) return false;
    size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\') ++pos_;
      ++pos_;
    }
    if (pos_ >= s_.size()) return false;
    *raw = s_.substr(start, pos_ - start);
    ++pos_;
    return true;
  }
  // Skips any value; nesting is tracked with a depth counter.
  bool SkipValue() {
    SkipSpace();
    if (pos_ >= s_.size()) return false;
    char c = s_[pos_];
    if (c == '"') {
      std::string_view ignored;
      return String(&ignored);
    }
    if (c == '{' || c == '[') {
      int depth = 0;
      while (pos_ < s_.size()) {
        char d = s_[pos_];
        if (d == '"') {
          std::string_view ignored;
          if (!String(&ignored)) return false;
          continue;
        }
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') {
          if (--depth == 0) {
            ++pos_;
            return true;
          }
        }
        ++pos_;
      }
      return false;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '}' && s_[pos_] != ']' &&
           s_[pos_] != ' ' && s_[pos_] != '\n' && s_[pos_] != '\t' && s_[pos_] != '\r') {
      ++pos_;
    }
    return pos_ > start;
  }
  size_t pos() const { return pos_; }
  void set_pos(size_t p) { pos_ = p; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

struct Member {
  size_t start = 0;        // the opening quote of the key
  size_t value_start = 0;  // first character of the value
  size_t end = 0;          // one past the value
  bool found = false;
};

// Finds member `name` of the object starting at the scanner's position ('{').
// On success the scanner stands after the object's closing brace; open is the offset of
// '{', members the number of members.
bool FindMember(Scanner& sc, std::string_view name, Member* out, size_t* open, int* members) {
  sc.SkipSpace();
  *open = sc.pos();
  *members = 0;
  if (!sc.Eat('{')) return false;
  if (sc.Eat('}')) return true;
  for (;;) {
    sc.SkipSpace();
    size_t start = sc.pos();
    std::string_view key;
    if (!sc.String(&key) || !sc.Eat(':')) return false;
    sc.SkipSpace();
    size_t value_start = sc.pos();
    if (!sc.SkipValue()) return false;
    ++*members;
    if (key == name && !out->found) *out = {start, value_start, sc.pos(), true};
    if (sc.Eat(',')) continue;
    return sc.Eat('}');
  }
}

}  // namespace

std::optional<std::string> WithResourceVersion(std::string_view json, int64_t revision) {
  Scanner top(json);
  Member metadata;
  size_t top_open = 0;
  int top_members = 0;
  if (!FindMember(top, "metadata", &metadata, &top_open, &top_members)) return std::nullopt;
  const std::string rv_member =
      revision ? "\"resourceVersion\":\"" + std::to_string(revision) + "\"" : "";
  std::string out;
  out.reserve(json.size() + rv_member.size() + 16);
  if (!metadata.found) {
    if (!revision) return std::string(json);
    out.append(json.substr(0, top_open + 1));
    out += "\"metadata\":{" + rv_member + "}";
    if (top_members) out += ",";
    out.append(json.substr(top_open + 1));
    return out;
  }
  Scanner meta(json);
  meta.set_pos(metadata.value_start);
  Member rv;
  size_t meta_open = 0;
  int meta_members = 0;
  if (!FindMember(meta, "resourceVersion", &rv, &meta_open, &meta_members)) return std::nullopt;
  if (rv.found && revision) {  // replace the value
    out.append(json.substr(0, rv.value_start));
    out += "\"" + std::to_string(revision) + "\"";
    out.append(json.substr(rv.end));
    return out;
  }
  if (rv.found) {  // remove the member and one comma beside it
    size_t from = rv.start, to = rv.end;
    Scanner after(json);
    after.set_pos(to);
    if (after.Eat(',')) {
      to = after.pos();
    } else {
      size_t p = from;
      while (p > meta_open + 1 && json[p - 1] != ',') --p;
      if (p > meta_open + 1) from = p - 1;
    }
    out.append(json.substr(0, from));
    out.append(json.substr(to));
    return out;
  }
  if (!revision) return std::string(json);
  out.append(json.substr(0, meta_open + 1));
  out += rv_member;
  if (meta_members) out += ",";
  out.append(json.substr(meta_open + 1));
  return out;
}

std::optional<MetaFields> ReadMetaFields(std::string_view json) {
  Scanner top(json);
  Member metadata;
  size_t open = 0;
  int members = 0;
  if (!FindMember(top, "metadata", &metadata, &open, &members)) return std::nullopt;
  MetaFields fields;
  if (!metadata.found) return fields;
  auto value = [&](std::string_view name) -> std::string {
    Scanner meta(json);
    meta.set_pos(metadata.value_start);
    Member m;
    size_t o = 0;
    int n = 0;
    if (!FindMember(meta, name, &m, &o, &n) || !m.found) return "";
    // Decode the string properly (escapes); non-strings read as empty.
    auto parsed =
        nlohmann::json::parse(json.substr(m.value_start, m.end - m.value_start), nullptr, false);
    return parsed.is_string() ? parsed.get<std::string>() : "";
  };
  fields.uid = value("uid");
  fields.resource_version = value("resourceVersion");
  return fields;
}

}  // namespace storage
