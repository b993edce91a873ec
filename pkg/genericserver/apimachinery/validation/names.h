#pragma once
// Name and value checks of upstream's k8s.io/apimachinery/pkg/util/validation (Kubernetes 1.32
// wording), and the label and annotation checks object metadata validation runs
// (apimachinery/pkg/apis/meta/v1/validation.ValidateLabels, api/validation.ValidateAnnotations).
//
// The Is* checks return upstream's messages, in upstream's order; empty means valid.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace apimachinery::validation {

inline constexpr size_t kDNS1123LabelMaxLength = 63;
inline constexpr size_t kDNS1123SubdomainMaxLength = 253;
inline constexpr size_t kDNS1035LabelMaxLength = 63;
inline constexpr size_t kQualifiedNameMaxLength = 63;
inline constexpr size_t kLabelValueMaxLength = 63;
inline constexpr size_t kTotalAnnotationSizeLimitBytes = 256 * 1024;

// "must be no more than N characters".
std::string MaxLenError(size_t length);
// "<msg> (e.g. 'a',  or 'b', regex used for validation is '<regex>')", upstream's RegexError
// (the doubled space before "or" is upstream's).
std::string RegexError(std::string_view msg, std::string_view regex,
                       const std::vector<std::string_view>& examples);
// "must be non-empty".
std::string EmptyError();

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 bytes. A valid subdomain with dots is answered
// "must not contain dots" instead of the regex message.
std::vector<std::string> IsDNS1123Label(std::string_view value);
// Dot-separated DNS-1123 labels, at most 253 bytes.
std::vector<std::string> IsDNS1123Subdomain(std::string_view value);
// [a-z]([-a-z0-9]*[a-z0-9])?, at most 63 bytes (Service names).
std::vector<std::string> IsDNS1035Label(std::string_view value);
// A label or annotation key: [prefix/]name, the prefix a DNS-1123 subdomain, the name at most 63
// bytes of ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]. Messages start "prefix part " or
// "name part ", or "a qualified name ..." for more than one '/'.
std::vector<std::string> IsQualifiedName(std::string_view value);
// Empty, or a qualified name part; at most 63 bytes.
std::vector<std::string> IsValidLabelValue(std::string_view value);

// metav1 validation.ValidateLabels: one FieldValueInvalid at `field_path` per message, the bad
// value being the key (for key errors) or the value. Keys are checked in the map's order (upstream
// ranges over a Go map, in random order). Labels have no total size limit upstream.
std::vector<FieldError> ValidateLabels(const std::map<std::string, std::string>& labels,
                                       std::string_view field_path = "metadata.labels");

// ValidateAnnotations: every key must be a qualified name once lower-cased (the error shows the
// key as given); keys plus values may total at most 256 KiB, else one FieldValueTooLong
// "may not be more than 262144 bytes" at `field_path`.
std::vector<FieldError> ValidateAnnotations(const std::map<std::string, std::string>& annotations,
                                            std::string_view field_path = "metadata.annotations");

}  // namespace apimachinery::validation
