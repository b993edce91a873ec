#pragma once
// persistentvolumeclaim-protection-controller and persistentvolume-protection-controller,
// as upstream's pvcprotection and pvprotection controllers: the finalizers
// kubernetes.io/pvc-protection and kubernetes.io/pv-protection (which the
// StorageObjectInUseProtection admission plugin puts on new claims and volumes) are added to
// those that lack them, and removed from one being deleted once nothing uses it: a claim
// when no scheduled pod that has not finished mounts it (checked in the informer's cache,
// then with a live list of the namespace's pods), a volume when it is not Bound.
//
// Threads: the handlers run on the informers' strands and only enqueue; the syncs run on
// each queue's strand.

#include <expected>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/controller_context.h"

namespace controller::volume::protection {

inline constexpr char kPVCFinalizer[] = "kubernetes.io/pvc-protection";
inline constexpr char kPVFinalizer[] = "kubernetes.io/pv-protection";

// Whether the object lacks `finalizer` and is not being deleted (it needs one), or is being
// deleted and has it (it may need it removed).
bool NeedsFinalizer(const nlohmann::json& object, const std::string& finalizer);
bool MayRelease(const nlohmann::json& object, const std::string& finalizer);
// Whether the pod keeps the claim `claim` (in its namespace) in use: scheduled, not
// Succeeded or Failed, with a volume of the claim (or a generic ephemeral volume whose claim
// it is).
bool PodUsesClaim(const nlohmann::json& pod, const std::string& claim);

std::expected<InitResult, std::string> StartPVCProtectionController(ControllerContext& ctx);
std::expected<InitResult, std::string> StartPVProtectionController(ControllerContext& ctx);

}  // namespace controller::volume::protection
