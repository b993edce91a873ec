#pragma once
// Scalar resolution as go-yaml v2 (which sigs.k8s.io/yaml uses) does it: YAML 1.1 booleans
// (y, yes, on, ...), nulls (~, null, empty), integers in Go's base-0 syntax (0x, 0o, 0b,
// leading-zero octal, underscores), floats, .inf/.nan, and explicit !!tags. Internal to
// apimachinery/yaml.

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace apimachinery::yaml::internal {

inline constexpr std::string_view kYAMLTagPrefix = "tag:yaml.org,2002:";

enum class ScalarKind {
  kNull,
  kBool,
  kInt,
  kUint,  // integers above the int64 range
  kFloat,
  kString,     // the scalar's text, unchanged
  kTimestamp,  // kept as its text, as go-yaml does when decoding into interface{}
  kBinary,     // !!binary: the text is base64
};

struct ResolvedScalar {
  ScalarKind kind = ScalarKind::kString;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;
  double floating = 0;
};

// Resolves a scalar's text. tag is "" for a plain scalar without a tag; otherwise the full tag
// ("tag:yaml.org,2002:int", "!foo"). Non-standard tags leave the text a string. Fails, with
// go-yaml's message ("cannot decode !!str `abc` as a !!int"), when an explicit standard tag
// does not fit the text.
std::expected<ResolvedScalar, std::string> Resolve(std::string_view tag, std::string_view text);

// True when s, written as a plain scalar, would not read back as the string s (it would be a
// bool, number, null, timestamp, ...). go-yaml double-quotes such strings.
bool NeedsQuotes(std::string_view s);

// The same for go-yaml v3 writing a node tagged !!str: YAML 1.2's booleans (only true and
// false), no base-60 floats; "yes" and "on" stay plain.
bool NeedsQuotesV3(std::string_view s);

// "!!int" for "tag:yaml.org,2002:int"; other tags unchanged.
std::string ShortTag(std::string_view tag);

}  // namespace apimachinery::yaml::internal
