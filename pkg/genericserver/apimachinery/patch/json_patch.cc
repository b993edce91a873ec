#include "pkg/genericserver/apimachinery/patch/json_patch.h"

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace apimachinery::patch {
namespace {

using json = nlohmann::json;

// Go's word for a JSON value in a json.UnmarshalTypeError.
std::string ValueWord(const json& v) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  return "number";
}

// The checks of upstream's strict decoding into []jsonPatchOp{Op, Path, From string;
// Value interface{}} (fieldValidation Warn, the default, or Strict).
std::optional<PatchError> CheckDecoding(const json& patch) {
  auto bad = [](const std::string& what) {
    return PatchError{PatchErrorKind::kBadRequest, "error decoding patch: json: " + what};
  };
  if (patch.is_null()) return std::nullopt;  // null decodes to an empty patch
  if (!patch.is_array()) {
    return bad("cannot unmarshal " + ValueWord(patch) +
               " into Go value of type []handlers.jsonPatchOp");
  }
  for (const json& op : patch) {
    if (op.is_null()) continue;
    if (!op.is_object()) {
      return bad("cannot unmarshal " + ValueWord(op) +
                 " into Go value of type handlers.jsonPatchOp");
    }
    for (const char* field : {"from", "op", "path"}) {
      auto it = op.find(field);
      if (it != op.end() && !it->is_null() && !it->is_string()) {
        return bad("cannot unmarshal " + ValueWord(*it) + " into Go struct field jsonPatchOp." +
                   field + " of type string");
      }
    }
  }
  return std::nullopt;
}

// A string member of an operation; nullopt when absent or null (v4: "missing").
std::optional<std::string> StringField(const json& op, const char* name) {
  if (!op.is_object()) return std::nullopt;
  auto it = op.find(name);
  if (it == op.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

json Value(const json& op) {
  if (!op.is_object()) return nullptr;
  auto it = op.find("value");
  return it == op.end() ? json(nullptr) : *it;
}

// RFC 6901 unescaping in one pass: ~1 is "/", ~0 is "~".
std::string DecodeKey(std::string_view part) {
  std::string out;
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] == '~' && i + 1 < part.size() && (part[i + 1] == '0' || part[i + 1] == '1')) {
      out += part[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += part[i];
    }
  }
  return out;
}

// Go's strconv.Atoi, with its error text.
std::expected<long long, std::string> Atoi(const std::string& s) {
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  auto fail = [&](const char* why) {
    return std::unexpected("strconv.Atoi: parsing " + json(s).dump() + ": " + why);
  };
  if (digits.empty()) return fail("invalid syntax");
  unsigned long long magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    return fail("invalid syntax");
  }
  const unsigned long long limit = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
  if (ec == std::errc::result_out_of_range || magnitude > limit) return fail("value out of range");
  return negative ? static_cast<long long>(0 - magnitude) : static_cast<long long>(magnitude);
}

std::string InvalidIndex(long long idx) {
  return "Unable to access invalid index: " + std::to_string(idx) + ": invalid index referenced";
}

// The value at `key` of an object or array; nullptr when absent or null.
std::expected<json*, std::string> Get(json& c, const std::string& key) {
  if (c.is_object()) {
    auto it = c.find(key);
    return it == c.end() || it->is_null() ? nullptr : &*it;
  }
  auto idx = Atoi(key);
  if (!idx) return std::unexpected(idx.error());
  long long i = *idx;
  const long long size = static_cast<long long>(c.size());
  if (i < 0) {
    if (i < -size) return std::unexpected(InvalidIndex(i));
    i += size;
  }
  if (i >= size) return std::unexpected(InvalidIndex(i));
  json& v = c[static_cast<size_t>(i)];
  return v.is_null() ? nullptr : &v;
}

std::optional<std::string> Set(json& c, const std::string& key, json value) {
  if (c.is_object()) {
    c[key] = std::move(value);
    return std::nullopt;
  }
  auto idx = Atoi(key);
  if (!idx) return idx.error();
  long long i = *idx;
  const long long size = static_cast<long long>(c.size());
  if (i < 0) {
    if (i < -size) return InvalidIndex(i);
    i += size;
  }
  if (i >= size) return InvalidIndex(i);
  c[static_cast<size_t>(i)] = std::move(value);
  return std::nullopt;
}

std::optional<std::string> Add(json& c, const std::string& key, json value) {
  if (c.is_object()) {
    c[key] = std::move(value);
    return std::nullopt;
  }
  if (key == "-") {
    c.push_back(std::move(value));
    return std::nullopt;
  }
  auto idx = Atoi(key);
  if (!idx) return "value was not a proper array index: '" + key + "': " + idx.error();
  long long i = *idx;
  const long long size = static_cast<long long>(c.size()) + 1;
  if (i >= size) return InvalidIndex(i);
  if (i < 0) {
    if (i < -size) return InvalidIndex(i);
    i += size;
  }
  c.insert(c.begin() + i, std::move(value));
  return std::nullopt;
}

std::optional<std::string> Remove(json& c, const std::string& key) {
  if (c.is_object()) {
    if (!c.contains(key)) return "Unable to remove nonexistent key: " + key + ": missing value";
    c.erase(key);
    return std::nullopt;
  }
  auto idx = Atoi(key);
  if (!idx) return idx.error();
  long long i = *idx;
  const long long size = static_cast<long long>(c.size());
  if (i >= size) return InvalidIndex(i);
  if (i < 0) {
    if (i < -size) return InvalidIndex(i);
    i += size;
  }
  c.erase(c.begin() + i);
  return std::nullopt;
}

// The container holding the last token of `path`, and that token (v4's findObject).
struct Location {
  json* container;
  std::string key;
};

std::optional<Location> FindObject(json& doc, const std::string& path) {
  std::vector<std::string_view> parts;
  std::string_view rest = path;
  for (size_t slash; (slash = rest.find('/')) != std::string_view::npos;) {
    parts.push_back(rest.substr(0, slash));
    rest.remove_prefix(slash + 1);
  }
  parts.push_back(rest);
  if (parts.size() < 2) return std::nullopt;
  json* current = &doc;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    auto next = Get(*current, DecodeKey(parts[i]));
    if (!next || *next == nullptr || !((*next)->is_object() || (*next)->is_array())) {
      return std::nullopt;
    }
    current = *next;
  }
  return Location{current, DecodeKey(parts.back())};
}

const std::string kMissing = ": missing value";

std::optional<std::string> DoAdd(json& doc, const json& op) {
  auto path = StringField(op, "path");
  if (!path) return "add operation failed to decode path" + kMissing;
  auto loc = FindObject(doc, *path);
  if (!loc)
    return "add operation does not apply: doc is missing path: \"" + *path + "\"" + kMissing;
  if (auto err = Add(*loc->container, loc->key, Value(op))) {
    return "error in add for path: '" + *path + "': " + *err;
  }
  return std::nullopt;
}

std::optional<std::string> DoRemove(json& doc, const json& op) {
  auto path = StringField(op, "path");
  if (!path) return "remove operation failed to decode path" + kMissing;
  auto loc = FindObject(doc, *path);
  if (!loc) {
    return "remove operation does not apply: doc is missing path: \"" + *path + "\"" + kMissing;
  }
  if (auto err = Remove(*loc->container, loc->key)) {
    return "error in remove for path: '" + *path + "': " + *err;
  }
  return std::nullopt;
}

std::optional<std::string> DoReplace(json& doc, const json& op) {
  auto path = StringField(op, "path");
  if (!path)
    return "replace operation failed to decode path: operation missing path field" + kMissing;
  if (path->empty()) {
    json value = Value(op);
    if (value.is_object() || value.is_array()) doc = std::move(value);
    return std::nullopt;  // v4 wraps a nil error here: anything else is silently ignored
  }
  auto loc = FindObject(doc, *path);
  if (!loc) return "replace operation does not apply: doc is missing path: " + *path + kMissing;
  if (!Get(*loc->container, loc->key)) {
    return "replace operation does not apply: doc is missing key: " + *path + kMissing;
  }
  if (auto err = Set(*loc->container, loc->key, Value(op))) {
    return "error in remove for path: '" + *path + "': " + *err;
  }
  return std::nullopt;
}

std::optional<std::string> DoMove(json& doc, const json& op) {
  auto from = StringField(op, "from");
  if (!from)
    return "move operation failed to decode from: operation, missing from field" + kMissing;
  auto source = FindObject(doc, *from);
  if (!source)
    return "move operation does not apply: doc is missing from path: " + *from + kMissing;
  auto got = Get(*source->container, source->key);
  if (!got) return "error in move for path: '" + source->key + "': " + got.error();
  json value = *got ? **got : json(nullptr);
  if (auto err = Remove(*source->container, source->key)) {
    return "error in move for path: '" + source->key + "': " + *err;
  }
  auto path = StringField(op, "path");
  if (!path) return "move operation failed to decode path: operation missing path field" + kMissing;
  auto target = FindObject(doc, *path);
  if (!target) {
    return "move operation does not apply: doc is missing destination path: " + *path + kMissing;
  }
  if (auto err = Add(*target->container, target->key, std::move(value))) {
    return "error in move for path: '" + *path + "': " + *err;
  }
  return std::nullopt;
}

std::optional<std::string> DoTest(json& doc, const json& op) {
  auto path = StringField(op, "path");
  if (!path) return "test operation failed to decode path: operation missing path field" + kMissing;
  const std::string failed = "testing value " + *path + " failed: test failed";
  const json value = Value(op);
  if (path->empty()) return doc == value ? std::nullopt : std::optional(failed);
  auto loc = FindObject(doc, *path);
  if (!loc) return "test operation does not apply: is missing path: " + *path + kMissing;
  auto got = Get(*loc->container, loc->key);
  if (!got) return "error in test for path: '" + *path + "': " + got.error();
  if (*got == nullptr) return value.is_null() ? std::nullopt : std::optional(failed);
  if (!op.contains("value") || **got != value) return failed;
  return std::nullopt;
}

std::optional<std::string> DoCopy(json& doc, const json& op) {
  auto from = StringField(op, "from");
  if (!from)
    return "copy operation failed to decode from: operation, missing from field" + kMissing;
  auto source = FindObject(doc, *from);
  if (!source)
    return "copy operation does not apply: doc is missing from path: " + *from + kMissing;
  auto got = Get(*source->container, source->key);
  if (!got) return "error in copy for from: '" + *from + "': " + got.error();
  json value = *got ? **got : json(nullptr);
  auto path = StringField(op, "path");
  if (!path) return "copy operation failed to decode path" + kMissing;
  auto target = FindObject(doc, *path);
  if (!target) {
    return "copy operation does not apply: doc is missing destination path: " + *path + kMissing;
  }
  if (auto err = Add(*target->container, target->key, std::move(value))) {
    return "error while adding value during copy: " + *err;
  }
  return std::nullopt;
}

std::optional<std::string> ApplyOperation(json& doc, const json& op) {
  std::string kind = StringField(op, "op").value_or("unknown");
  if (kind == "add") return DoAdd(doc, op);
  if (kind == "remove") return DoRemove(doc, op);
  if (kind == "replace") return DoReplace(doc, op);
  if (kind == "move") return DoMove(doc, op);
  if (kind == "test") return DoTest(doc, op);
  if (kind == "copy") return DoCopy(doc, op);
  return "Unexpected kind: " + kind;
}

}  // namespace

std::expected<nlohmann::json, PatchError> ApplyJsonPatch(const nlohmann::json& document,
                                                         const nlohmann::json& patch) {
  if (auto err = CheckDecoding(patch)) return std::unexpected(std::move(*err));
  if (patch.is_array() && patch.size() > kMaxJsonPatchOperations) {
    return std::unexpected(
        PatchError{PatchErrorKind::kTooLarge, "The allowed maximum operations in a JSON patch is " +
                                                  std::to_string(kMaxJsonPatchOperations) +
                                                  ", got " + std::to_string(patch.size())});
  }
  if (!document.is_object() && !document.is_array()) {
    return std::unexpected(PatchError{PatchErrorKind::kInternal, "invalid JSON document"});
  }
  json doc = document;
  if (patch.is_null()) return doc;
  for (const json& op : patch) {
    if (auto err = ApplyOperation(doc, op)) {
      return std::unexpected(PatchError{PatchErrorKind::kInvalid, std::move(*err)});
    }
  }
  return doc;
}

}  // namespace apimachinery::patch
