#pragma once
// The sizes and limits Kubernetes' CEL integration reasons with (k8s.io/apiserver/pkg/apis/cel
// and pkg/cel/limits.go, and the apiextensions validation limits), shared by the schema types
// (the worst-case sizes of values), the static cost estimator and the CRD checks.

#include <cstdint>

namespace apiextensions::cel {

// The largest request body, hence the largest custom resource: every size a schema leaves
// unbounded is derived from it.
inline constexpr int64_t kMaxRequestSizeBytes = 3 * 1024 * 1024;

// The smallest JSON encodings of the scalar kinds ("", true, 0, "0s", "2006-01-02",
// "2006-01-02T15:04:05Z") and the largest of the formatted strings.
inline constexpr int64_t kMinStringSize = 2;
inline constexpr int64_t kMinBoolSize = 4;
inline constexpr int64_t kMinNumberSize = 1;
inline constexpr int64_t kMinDynSize = 1;  // x-kubernetes-int-or-string: 0
inline constexpr int64_t kMinDurationSizeJSON = 3;
inline constexpr int64_t kJSONDateSize = 12;
inline constexpr int64_t kMinDatetimeSizeJSON = 21;
inline constexpr int64_t kMaxDurationSizeJSON = 32;
inline constexpr int64_t kMaxDatetimeSizeJSON = 32;

// Static estimates a CRD may not exceed: each rule and messageExpression (its estimated cost
// times the number of times it can run for one object), and the sum over one
// openAPIV3Schema.
inline constexpr uint64_t kStaticEstimatedCostLimit = 10000000;
inline constexpr uint64_t kStaticEstimatedCRDCostLimit = 100000000;

}  // namespace apiextensions::cel
