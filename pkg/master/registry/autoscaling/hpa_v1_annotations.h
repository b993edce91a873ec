#pragma once
// The annotations in which an autoscaling/v1 HorizontalPodAutoscaler carries what v1
// cannot say (upstream's pkg/apis/autoscaling/annotations.go): v2's other metrics, every
// current metric, spec.behavior and the status conditions. Their values are written as
// upstream's Go encoding writes its types (v1's MetricSpec, MetricStatus and condition;
// behavior as the internal Go type, field names without json tags) and read back as Go's
// decoding would; text that does not decode is std::nullopt, ignored as upstream ignores it.

#include <array>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace master::resources::hpa_v1 {

inline constexpr const char* kMetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr const char* kCurrentMetricsAnnotation =
    "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr const char* kConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr const char* kBehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";
inline constexpr std::array<const char*, 4> kRoundTripAnnotations = {
    kMetricsAnnotation, kCurrentMetricsAnnotation, kConditionsAnnotation, kBehaviorAnnotation};
// The two that hold status.
inline constexpr std::array<const char*, 2> kStatusAnnotations = {kCurrentMetricsAnnotation,
                                                                  kConditionsAnnotation};

// v2 values (arrays of MetricSpec, MetricStatus, conditions; a behavior) as annotation text.
std::string EncodeMetricSpecs(const nlohmann::json& metrics);
std::string EncodeMetricStatuses(const nlohmann::json& metrics);
std::string EncodeConditions(const nlohmann::json& conditions);
std::string EncodeBehavior(const nlohmann::json& behavior);

// Annotation text back as v2 values.
std::optional<nlohmann::json> DecodeMetricSpecs(const std::string& text);
std::optional<nlohmann::json> DecodeMetricStatuses(const std::string& text);
std::optional<nlohmann::json> DecodeConditions(const std::string& text);
std::optional<nlohmann::json> DecodeBehavior(const std::string& text);

}  // namespace master::resources::hpa_v1
