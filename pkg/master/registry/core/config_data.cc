#include "pkg/master/registry/core/config_data.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace master::resources {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

bool ConfigKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// Upstream's IsConfigMapKey.
std::vector<std::string> ConfigKeyErrors(const std::string& key) {
  std::vector<std::string> errors;
  if (key.size() > 253) errors.push_back("must be no more than 253 characters");
  bool ok = !key.empty();
  for (char c : key) ok = ok && ConfigKeyChar(c);
  if (!ok) {
    errors.push_back(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
        "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
        "'[-._a-zA-Z0-9]+')");
  }
  if (key == ".") {
    errors.push_back("must not be '.'");
  } else if (key == "..") {
    errors.push_back("must not be '..'");
  } else if (key.starts_with("..")) {
    errors.push_back("must not start with '..'");
  }
  return errors;
}

// The decoded length of standard base64 (padding included in the text).
size_t DecodedLength(const std::string& text) {
  size_t n = text.size();
  size_t pad = 0;
  while (pad < 2 && n > pad && text[n - 1 - pad] == '=') ++pad;
  return n / 4 * 3 - pad;
}

bool Base64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

// Go's base64.StdEncoding: the offset of the first byte it refuses, or -1. Go skips
// '\r' and '\n'.
long IllegalBase64Byte(const std::string& text) {
  std::string clean;
  std::vector<size_t> offsets;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' || text[i] == '\n') continue;
    clean.push_back(text[i]);
    offsets.push_back(i);
  }
  size_t i = 0;
  while (i < clean.size()) {
    // One quantum of four characters, possibly padded at the end.
    size_t j = 0;
    for (; j < 4 && i + j < clean.size(); ++j) {
      const char c = clean[i + j];
      if (c == '=') {
        // Padding: only in the third or fourth position, and then nothing else follows.
        if (j < 2) return static_cast<long>(offsets[i + j]);
        if (j == 2) {
          if (i + 3 >= clean.size()) return static_cast<long>(text.size());
          if (clean[i + 3] != '=') return static_cast<long>(offsets[i + 2]);
          if (i + 4 < clean.size()) return static_cast<long>(offsets[i + 4]);
          return -1;
        }
        if (i + 4 < clean.size()) return static_cast<long>(offsets[i + 4]);
        return -1;
      }
      if (!Base64Char(c)) return static_cast<long>(offsets[i + j]);
    }
    // An unpadded tail: Go reports where its quantum starts.
    if (j < 4) return static_cast<long>(offsets[i]);
    i += 4;
  }
  return -1;
}

}  // namespace

void ValidateDataKeys(const json& object, const std::string& field, registry::FieldErrors& errors) {
  auto it = object.find(field);
  if (it == object.end() || !it->is_object()) return;
  for (auto entry = it->begin(); entry != it->end(); ++entry) {
    for (const std::string& msg : ConfigKeyErrors(entry.key())) {
      errors.push_back(v::FieldInvalid(field + "[" + entry.key() + "]", entry.key(), msg));
    }
  }
}

size_t DataSize(const json& object, const std::string& field, bool base64) {
  auto it = object.find(field);
  if (it == object.end() || !it->is_object()) return 0;
  size_t total = 0;
  for (auto entry = it->begin(); entry != it->end(); ++entry) {
    if (!entry->is_string()) continue;
    const std::string& value = entry->get_ref<const std::string&>();
    total += base64 ? DecodedLength(value) : value.size();
  }
  return total;
}

void ValidateImmutable(const json& object, const json& old,
                       std::initializer_list<const char*> fields, registry::FieldErrors& errors) {
  if (!old.value("immutable", false)) return;
  for (const char* field : fields) {
    const json empty = json::object();
    const json& now = object.contains(field) ? object[field] : empty;
    const json& before = old.contains(field) ? old[field] : empty;
    if (now != before) {
      errors.push_back(v::FieldForbidden(field, "field is immutable when `immutable` is set"));
    }
  }
  if (!object.value("immutable", false)) {
    errors.push_back(v::FieldForbidden("immutable", "field is immutable when `immutable` is set"));
  }
}

std::string CheckBase64Map(const json& object, const std::string& field) {
  auto it = object.find(field);
  if (it == object.end() || !it->is_object()) return "";
  for (auto entry = it->begin(); entry != it->end(); ++entry) {
    if (!entry->is_string()) continue;
    const long bad = IllegalBase64Byte(entry->get_ref<const std::string&>());
    if (bad >= 0) return "illegal base64 data at input byte " + std::to_string(bad);
  }
  return "";
}

void DropEmpty(json& object, const char* field) {
  auto it = object.find(field);
  if (it != object.end() && (it->is_null() || (it->is_object() && it->empty()))) object.erase(it);
}

size_t Count(const json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_object() ? it->size() : 0;
}

}  // namespace master::resources
