#include "pkg/genericserver/apimachinery/schema/prune.h"

#include <set>

#include <nlohmann/json.hpp>

namespace apimachinery::schema {

using nlohmann::json;

const json* Resolve(const json& node, const json& components) {
  const json* n = &node;
  for (int depth = 0; depth < 16; ++depth) {
    if (auto ref = n->find("$ref"); ref != n->end() && ref->is_string()) {
      const std::string target = ref->get<std::string>();
      const std::string prefix = "#/components/schemas/";
      if (!target.starts_with(prefix)) return nullptr;
      auto it = components.find(target.substr(prefix.size()));
      if (it == components.end()) return nullptr;
      n = &*it;
      continue;
    }
    if (auto all = n->find("allOf");
        all != n->end() && all->is_array() && all->size() == 1 && !n->contains("properties")) {
      n = &(*all)[0];
      continue;
    }
    return n;
  }
  return nullptr;
}

namespace {

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void Walk(json& value, const json* schema, const json& components, const std::string& path,
          std::vector<std::string>& unknown) {
  if (!schema) return;
  if (schema->value("x-kubernetes-preserve-unknown-fields", false)) return;
  if (value.is_object()) {
    auto props = schema->find("properties");
    auto extra = schema->find("additionalProperties");
    const bool has_props = props != schema->end() && props->is_object();
    if (!has_props && extra == schema->end()) return;  // free-form
    for (auto it = value.begin(); it != value.end();) {
      const std::string key = it.key();
      const json* child = nullptr;
      if (has_props) {
        if (auto p = props->find(key); p != props->end()) child = Resolve(*p, components);
      }
      if (!child && extra != schema->end()) {
        if (extra->is_boolean()) {
          if (extra->get<bool>()) {
            ++it;
            continue;
          }
        } else {
          child = Resolve(*extra, components);
        }
      }
      if (!child && !(has_props && props->contains(key))) {
        unknown.push_back(Join(path, key));
        it = value.erase(it);
        continue;
      }
      Walk(it.value(), child, components, Join(path, key), unknown);
      ++it;
    }
    return;
  }
  if (value.is_array()) {
    auto items = schema->find("items");
    if (items == schema->end()) return;
    const json* item = Resolve(*items, components);
    for (size_t i = 0; i < value.size(); ++i) {
      Walk(value[i], item, components, path + "[" + std::to_string(i) + "]", unknown);
    }
  }
}

// A SAX handler that tracks the keys of each open object and the path to it.
class DuplicateFinder : public json::json_sax_t {
 public:
  std::vector<std::string> found;

  bool null() override { return Scalar(); }
  bool boolean(bool) override { return Scalar(); }
  bool number_integer(json::number_integer_t) override { return Scalar(); }
  bool number_unsigned(json::number_unsigned_t) override { return Scalar(); }
  bool number_float(json::number_float_t, const std::string&) override { return Scalar(); }
  bool string(json::string_t&) override { return Scalar(); }
  bool binary(json::binary_t&) override { return Scalar(); }
  bool start_object(std::size_t) override {
    frames_.push_back({true});
    return true;
  }
  bool key(json::string_t& k) override {
    Frame& f = frames_.back();
    f.key = k;
    if (!f.keys.insert(k).second) found.push_back(PathOfCurrent());
    return true;
  }
  bool end_object() override { return End(); }
  bool start_array(std::size_t) override {
    frames_.push_back({false});
    return true;
  }
  bool end_array() override { return End(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  // Each container keeps only its own step (its current key or index), so deep nesting
  // costs memory in proportion to the depth; a path is spelled out only for a duplicate.
  struct Frame {
    bool object;
    std::string key{};  // objects: the current member
    size_t index = 0;   // arrays: the current element
    std::set<std::string> keys{};
  };
  // "a.b[2].c": the path of the member whose key was just read.
  std::string PathOfCurrent() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.object) {
        if (!path.empty()) path += '.';
        path += f.key;
      } else {
        path += "[" + std::to_string(f.index) + "]";
      }
    }
    return path;
  }
  bool Scalar() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }
  bool End() {
    frames_.pop_back();
    return Scalar();
  }
  std::vector<Frame> frames_;
};

}  // namespace

std::vector<std::string> PruneUnknownFields(json& object, const json& components,
                                            const std::string& root) {
  std::vector<std::string> unknown;
  auto it = components.find(root);
  if (it == components.end()) return unknown;
  Walk(object, Resolve(*it, components), components, "", unknown);
  return unknown;
}

std::vector<std::string> DuplicateFields(std::string_view text) {
  DuplicateFinder finder;
  json::sax_parse(text, &finder, json::input_format_t::json, false);
  return finder.found;
}

}  // namespace apimachinery::schema
