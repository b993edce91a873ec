#include "pkg/apiextensions/schema/openapi.h"

#include <cmath>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/formats.h"
#include "pkg/apiextensions/schema/openapi_parts.h"
#include "pkg/apiextensions/schema/schema_node.h"
#include "pkg/apiextensions/schema/values.h"
#include "pkg/genericserver/apimachinery/regex/regex.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::schema {

namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

using namespace openapi;  // NOLINT(build/namespaces): the pieces the Validator is built of

class Validator {
 public:
  Result Validate(const json* s, const json& data, const std::string& path) {
    Result result;
    if (!s || !s->is_object()) return result;  // a nil *SchemaValidator validates nothing
    const NodeInfo info = Info(*s);
    const GoKind kind = KindOf(data);

    if (kind == GoKind::kNull) {
      result.Merge(Type(info, data, path));
      result.Merge(Enum(*s, data, path));
      return result;
    }
    auto run = [&](Result r) {
      result.Merge(std::move(r));
      ++result.matches;
    };
    if (!info.types.empty() || !info.format.empty()) run(Type(info, data, path));
    run(SchemaProps(*s, data, path));
    if (kind == GoKind::kString) {
      run(String(*s, data.get_ref<const std::string&>(), path));
      if (!info.format.empty()) run(Format(info, data.get_ref<const std::string&>(), path));
    }
    if (kind == GoKind::kInt64 || kind == GoKind::kFloat64) run(Number(*s, data, path));
    if (kind == GoKind::kSlice) run(Slice(*s, data, path));
    run(Enum(*s, data, path));
    if (kind == GoKind::kMap) run(Object(*s, data, path));
    ++result.matches;
    return result;
  }

 private:
  // typeValidator.
  Result Type(const NodeInfo& info, const json& data, const std::string& path) {
    Result r;
    const GoKind kind = KindOf(data);
    if (kind == GoKind::kNull) {
      if (!info.types.empty() && !Contains(info.types, "null") && !info.nullable) {
        r.Add(InvalidType(path, Join(info.types), "null"));
        return r;
      }
      r.matches = 1;
      return r;
    }
    std::string sch_type, format;
    switch (kind) {
      case GoKind::kBool:
        sch_type = "boolean";
        break;
      case GoKind::kString:
        sch_type = "string";
        break;
      case GoKind::kInt64:
        sch_type = "integer", format = "int64";
        break;
      case GoKind::kFloat64:
        sch_type = "number", format = "float64";
        break;
      case GoKind::kSlice:
        sch_type = "array";
        break;
      case GoKind::kMap:
        sch_type = "object";
        break;
      case GoKind::kNull:
        break;
    }
    const bool is_float_int = sch_type == "number" && IsFloat64AJSONInteger(AsFloat64(data)) &&
                              Contains(info.types, "integer");
    const bool is_int_float = sch_type == "integer" && Contains(info.types, "number");
    const bool string_or_slice = kind == GoKind::kString || kind == GoKind::kSlice;
    if (!string_or_slice && !info.format.empty() &&
        !(Contains(info.types, sch_type) || format == info.format || is_float_int ||
          is_int_float)) {
      r.Add(InvalidType(path, info.format, format));
      return r;
    }
    if (!(Contains(info.types, "number") || Contains(info.types, "integer")) &&
        !info.format.empty() && string_or_slice) {
      r.matches = 1;
      return r;
    }
    if (!(Contains(info.types, sch_type) || is_float_int || is_int_float)) {
      r.Add(InvalidType(path, Join(info.types), sch_type));
      return r;
    }
    r.matches = 1;
    return r;
  }

  // schemaPropsValidator.
  Result SchemaProps(const json& s, const json& data, const std::string& path) {
    Result main;
    auto list = [&](const char* key) -> const json* {
      auto it = s.find(key);
      if (it == s.end() || !it->is_array() || it->empty()) return nullptr;
      return &*it;
    };
    if (const json* any_of = list("anyOf")) {
      std::optional<Result> best, first_success;
      bool succeeded = false;
      for (const json& sub : *any_of) {
        Result r = Validate(&sub, data, path);
        if (r.Valid()) {
          best.reset();
          succeeded = true;
          if (!first_success) first_success = std::move(r);
          break;
        }
        if (!best || r.matches > best->matches) best = std::move(r);
      }
      if (!succeeded) {
        main.Add(Composite(v::GoQuote(path) + " must validate at least one schema (anyOf)"));
      }
      if (best) {
        main.Merge(std::move(*best));
      } else if (first_success) {
        main.Merge(std::move(*first_success));
      }
    }
    if (const json* one_of = list("oneOf")) {
      std::optional<Result> best, first_success;
      int validated = 0;
      for (const json& sub : *one_of) {
        Result r = Validate(&sub, data, path);
        if (r.Valid()) {
          ++validated;
          best.reset();
          if (!first_success) first_success = std::move(r);
          continue;
        }
        if (validated == 0 && (!best || r.matches > best->matches)) best = std::move(r);
      }
      if (validated != 1) {
        const std::string additional =
            validated == 0 ? "Found none valid"
                           : "Found " + std::to_string(validated) + " valid alternatives";
        main.Add(Composite(v::GoQuote(path) + " must validate one and only one schema (oneOf). " +
                           additional));
        if (best) main.Merge(std::move(*best));
      } else if (first_success) {
        main.Merge(std::move(*first_success));
      }
    }
    if (const json* all_of = list("allOf")) {
      size_t validated = 0;
      for (const json& sub : *all_of) {
        Result r = Validate(&sub, data, path);
        if (r.Valid()) ++validated;
        main.Merge(std::move(r));
      }
      if (validated != all_of->size()) {
        main.Add(Composite(v::GoQuote(path) + " must validate all the schemas (allOf)" +
                           (validated == 0 ? ". None validated" : "")));
      }
    }
    if (auto it = s.find("not"); it != s.end() && it->is_object()) {
      if (Validate(&*it, data, path).Valid()) {
        main.Add(Composite(v::GoQuote(path) + " must not validate the schema (not)"));
      }
    }
    ++main.matches;
    return main;
  }

  // stringValidator: the first failing check only.
  Result String(const json& s, const std::string& data, const std::string& path) {
    Result r;
    size_t runes = 0;
    for (size_t i = 0; i < data.size(); i += v::DecodeRune(std::string_view(data).substr(i)).size) {
      ++runes;
    }
    if (auto max = Integer(s, "maxLength"); max && static_cast<int64_t>(runes) > *max) {
      std::string message =
          path + kIn + " should be at most " + std::to_string(*max) + " chars long";
      v::FieldError f = v::FieldTooLong(FieldPath(path), *max);
      r.Add({std::move(message), std::move(f)});
      return r;
    }
    if (auto min = Integer(s, "minLength"); min && static_cast<int64_t>(runes) < *min) {
      r.Add(Invalid(path,
                    path + kIn + " should be at least " + std::to_string(*min) + " chars long",
                    json(data)));
      return r;
    }
    const std::string pattern = node::String(&s, "pattern");
    if (!pattern.empty()) {
      auto re = apimachinery::regex::Regex::CompileCached(pattern);
      if (!re) {
        r.Add(Invalid(path,
                      path + kIn + " should match '" + pattern +
                          ", but pattern is invalid: " + re.error() + "'",
                      json(data)));
        return r;
      }
      if (!(*re)->MatchString(data)) {
        r.Add(Invalid(path, path + kIn + " should match '" + pattern + "'", json(data)));
      }
    }
    return r;
  }

  // formatValidator.
  Result Format(const NodeInfo& info, const std::string& data, const std::string& path) {
    Result r;
    if (!ValidFormat(info.format_name, data)) r.Add(InvalidType(path, info.format, data));
    return r;
  }

  // numberValidator: multipleOf, minimum, maximum, each checked.
  Result Number(const json& s, const json& data, const std::string& path) {
    Result r;
    const bool is_int = KindOf(data) == GoKind::kInt64;
    const int64_t ival = AsInt64(data);
    const double fval = AsFloat64(data);

    auto float_multiple = [&](double factor) {
      if (factor < 0) {
        r.Add(Invalid(
            path,
            "factor MultipleOf declared for " + path + " must be positive: " + GoFloatV(factor),
            json(factor)));
        return;
      }
      const double mult = factor < 1 ? 1 / factor * fval : fval / factor;
      if (!IsFloat64AJSONInteger(mult)) {
        r.Add(Invalid(path, path + kIn + " should be a multiple of " + GoFloatV(factor), data));
      }
    };
    if (auto factor = NumberKeyword(s, "multipleOf")) {
      const int64_t ifactor = GoFloatToInt64(*factor);
      if (is_int && ifactor != 0) {
        if (ifactor < 0) {
          r.Add(InvalidInt(path,
                           "factor MultipleOf declared for " + path +
                               " must be positive: " + std::to_string(ifactor),
                           ifactor));
        } else if ((ival / ifactor) * ifactor != ival) {
          r.Add(Invalid(path, path + kIn + " should be a multiple of " + std::to_string(ifactor),
                        data));
        }
      } else {
        float_multiple(*factor);
      }
    }
    auto bound = [&](const char* key, const char* exclusive_key, bool is_max) {
      auto limit = NumberKeyword(s, key);
      if (!limit) return;
      const bool exclusive = node::Flag(&s, exclusive_key);
      bool fails;
      std::string shown;
      if (is_int) {
        const int64_t l = GoFloatToInt64(*limit);
        fails = is_max ? (exclusive ? ival >= l : ival > l) : (exclusive ? ival <= l : ival < l);
        shown = std::to_string(l);
      } else {
        fails = is_max ? (exclusive ? fval >= *limit : fval > *limit)
                       : (exclusive ? fval <= *limit : fval < *limit);
        shown = GoFloatV(*limit);
      }
      if (!fails) return;
      const char* relation =
          is_max
              ? (exclusive ? " should be less than " : " should be less than or equal to ")
              : (exclusive ? " should be greater than " : " should be greater than or equal to ");
      r.Add(Invalid(path, path + kIn + relation + shown, data));
    };
    bound("minimum", "exclusiveMinimum", false);
    bound("maximum", "exclusiveMaximum", true);
    r.matches = 1;
    return r;
  }

  // schemaSliceValidator.
  Result Slice(const json& s, const json& data, const std::string& path) {
    Result r;
    if (const json* items = node::Items(&s)) {
      for (size_t i = 0; i < data.size(); ++i) {
        r.Merge(Validate(items, data[i], path + "[" + std::to_string(i) + "]"));
      }
    }
    const auto size = static_cast<int64_t>(data.size());
    if (auto min = Integer(s, "minItems"); min && size < *min) {
      r.Add(InvalidInt(
          path, path + kIn + " should have at least " + std::to_string(*min) + " items", size));
    }
    if (auto max = Integer(s, "maxItems"); max && size > *max) {
      std::string message = path + kIn + " should have at most " + std::to_string(*max) + " items";
      r.Add({std::move(message), v::FieldTooMany(FieldPath(path), size, *max)});
    }
    if (node::Flag(&s, "uniqueItems")) {
      bool duplicate = false;
      for (size_t i = 0; i < data.size() && !duplicate; ++i) {
        for (size_t j = 0; j < i && !duplicate; ++j) duplicate = DeepEqual(data[i], data[j]);
      }
      if (duplicate) {
        r.Add(Invalid(path, path + kIn + " shouldn't contain duplicates", json("")));
      }
    }
    ++r.matches;
    return r;
  }

  // basicCommonValidator.
  Result Enum(const json& s, const json& data, const std::string& path) {
    Result r;
    auto it = s.find("enum");
    if (it == s.end() || !it->is_array() || it->empty()) return r;
    for (const json& allowed : *it) {
      if (KindOf(data) != GoKind::kNull && EnumMatches(data, allowed)) return r;
    }
    std::vector<std::string> values;
    for (const json& allowed : *it) {
      values.push_back(allowed.is_string() ? allowed.get<std::string>() : GoJSONMarshal(allowed));
    }
    v::FieldError f = v::FieldNotSupported(FieldPath(path), "", values);
    SetBadValue(f, data);
    r.Add({path + kIn + " should be one of " + EnumList(*it), std::move(f)});
    return r;
  }

  // objectValidator.
  Result Object(const json& s, const json& data, const std::string& path) {
    Result r;
    const auto keys = static_cast<int64_t>(data.size());
    if (auto min = Integer(s, "minProperties"); min && keys < *min) {
      r.Add(InvalidInt(path,
                       path + kIn + " should have at least " + std::to_string(*min) + " properties",
                       keys));
    }
    if (auto max = Integer(s, "maxProperties"); max && keys > *max) {
      std::string message =
          path + kIn + " should have at most " + std::to_string(*max) + " properties";
      r.Add({std::move(message), v::FieldTooMany(FieldPath(path), keys, *max)});
    }
    const node::Additional additional = node::AdditionalProperties(&s);
    if (additional.present && !additional.schema && !additional.allows) {
      for (auto it = data.begin(); it != data.end(); ++it) {
        if (node::Property(&s, it.key())) continue;
        r.Add(Invalid(path, path + "." + it.key() + kIn + " is a forbidden property",
                      json(it.key())));
      }
    } else if (additional.schema) {
      for (auto it = data.begin(); it != data.end(); ++it) {
        if (node::Property(&s, it.key())) continue;
        r.Merge(Validate(additional.schema, it.value(), path + "." + it.key()));
      }
    }
    if (auto props = s.find("properties"); props != s.end() && props->is_object()) {
      for (auto it = props->begin(); it != props->end(); ++it) {
        auto value = data.find(it.key());
        if (value == data.end()) continue;
        const std::string child = path.empty() ? it.key() : path + "." + it.key();
        r.Merge(Validate(&it.value(), *value, child));
      }
    }
    if (auto required = s.find("required"); required != s.end() && required->is_array()) {
      for (const json& key : *required) {
        if (!key.is_string() || data.contains(key.get<std::string>())) continue;
        const std::string name = path + "." + key.get<std::string>();
        r.Add({name + kIn + " is required", v::FieldRequired(FieldPath(name), "")});
      }
    }
    return r;
  }
};

}  // namespace

FieldErrors ValidateValue(const json& schema, const json& value) {
  Validator validator;
  Result result = validator.Validate(&schema, value, "");
  FieldErrors errors;
  std::unordered_set<std::string> seen;
  for (Error& e : result.errors) {
    if (!seen.insert(e.message).second) continue;
    errors.push_back(std::move(e.field));
  }
  return errors;
}

}  // namespace apiextensions::schema
