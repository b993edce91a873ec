#include "pkg/controller/volume/protection/protection.h"

#include <algorithm>

#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"
#include "pkg/controller/worker.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace controller::volume::protection {

using nlohmann::json;

namespace {

const client::GroupVersionResource kClaims{"", "v1", "persistentvolumeclaims"};
const client::GroupVersionResource kVolumes{"", "v1", "persistentvolumes"};
const client::GroupVersionResource kPods{"", "v1", "pods"};
constexpr char kMergePatch[] = "application/merge-patch+json";

const json& At(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::vector<std::string> Finalizers(const json& object) {
  std::vector<std::string> out;
  const json& list = At(At(object, "metadata"), "finalizers");
  if (!list.is_array()) return out;
  for (const json& f : list) {
    if (f.is_string()) out.push_back(f.get<std::string>());
  }
  return out;
}

bool HasFinalizer(const json& object, const std::string& finalizer) {
  const std::vector<std::string> all = Finalizers(object);
  return std::find(all.begin(), all.end(), finalizer) != all.end();
}

bool BeingDeleted(const json& object) {
  return !At(At(object, "metadata"), "deletionTimestamp").is_null();
}

// A merge patch setting the finalizers, conditional on the resourceVersion read.
json FinalizersPatch(const json& object, std::vector<std::string> finalizers) {
  json list = finalizers.empty() ? json() : json(std::move(finalizers));
  return {
      {"metadata",
       {{"finalizers", std::move(list)}, {"resourceVersion", Meta(object, "resourceVersion")}}}};
}

// Adds or removes the finalizer on the object at `path`.
Awaitable<SyncResult> SetFinalizer(const std::shared_ptr<client::RestClient>& api,
                                   const std::string& path, const json& object,
                                   const std::string& finalizer, bool add) {
  std::vector<std::string> finalizers = Finalizers(object);
  if (add) {
    finalizers.push_back(finalizer);
  } else {
    finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), finalizer),
                     finalizers.end());
  }
  auto patched =
      co_await api->Patch(path, FinalizersPatch(object, std::move(finalizers)), kMergePatch);
  if (!patched && !patched.error().IsNotFound())
    co_return std::unexpected(patched.error().String());
  KLOG_V(3) << (add ? "\"Added protection finalizer\"" : "\"Removed protection finalizer\"")
            << " object=" << util::Quote(path);
  co_return SyncResult();
}

// The claims a pod names (its claim volumes and generic ephemeral volumes).
std::vector<std::string> ClaimsOf(const json& pod) {
  std::vector<std::string> out;
  const json& volumes = At(At(pod, "spec"), "volumes");
  if (!volumes.is_array()) return out;
  for (const json& v : volumes) {
    if (const json& claim = At(At(v, "persistentVolumeClaim"), "claimName"); claim.is_string()) {
      out.push_back(claim.get<std::string>());
    } else if (!At(v, "ephemeral").is_null() && At(v, "name").is_string()) {
      out.push_back(Meta(pod, "name") + "-" + At(v, "name").get<std::string>());
    }
  }
  return out;
}

}  // namespace

bool NeedsFinalizer(const json& object, const std::string& finalizer) {
  return !BeingDeleted(object) && !HasFinalizer(object, finalizer);
}

bool MayRelease(const json& object, const std::string& finalizer) {
  return BeingDeleted(object) && HasFinalizer(object, finalizer);
}

bool PodUsesClaim(const json& pod, const std::string& claim) {
  const json& node = At(At(pod, "spec"), "nodeName");
  if (!node.is_string() || node.get<std::string>().empty()) return false;
  const json& phase = At(At(pod, "status"), "phase");
  if (phase == "Succeeded" || phase == "Failed") return false;
  const std::vector<std::string> claims = ClaimsOf(pod);
  return std::find(claims.begin(), claims.end(), claim) != claims.end();
}

std::expected<InitResult, std::string> StartPVCProtectionController(ControllerContext& ctx) {
  auto claims = ctx.informers->ForResource(kClaims);
  auto pods = ctx.informers->ForResource(kPods);
  auto queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto api = ctx.client_for("pvc-protection-controller");

  client::ResourceEventHandler on_claim;
  const auto claim_changed = [queue](const client::ObjectPtr& claim) {
    if (NeedsFinalizer(*claim, kPVCFinalizer) || MayRelease(*claim, kPVCFinalizer)) {
      Enqueue(queue, client::KeyOf(*claim));
    }
  };
  on_claim.on_add = claim_changed;
  on_claim.on_update = [claim_changed](const client::ObjectPtr&, const client::ObjectPtr& c) {
    claim_changed(c);
  };
  claims->AddEventHandler(std::move(on_claim));
  // A pod that goes away or finishes may release the claims it names.
  client::ResourceEventHandler on_pod;
  const auto pod_changed = [queue](const client::ObjectPtr& pod) {
    for (const std::string& claim : ClaimsOf(*pod)) {
      Enqueue(queue, Meta(*pod, "namespace") + "/" + claim);
    }
  };
  on_pod.on_update = [pod_changed](const client::ObjectPtr&, const client::ObjectPtr& p) {
    pod_changed(p);
  };
  on_pod.on_delete = pod_changed;
  pods->AddEventHandler(std::move(on_pod));

  SyncFunc sync = [claims, pods, api](const std::string& key) -> Awaitable<SyncResult> {
    client::ObjectPtr claim = claims->Get(key);
    if (!claim) co_return SyncResult();
    const auto [ns, name] = client::SplitKey(key);
    const std::string path = client::ResourcePath(kClaims, ns, name);
    if (NeedsFinalizer(*claim, kPVCFinalizer)) {
      co_return co_await SetFinalizer(api, path, *claim, kPVCFinalizer, true);
    }
    if (!MayRelease(*claim, kPVCFinalizer)) co_return SyncResult();
    for (const client::ObjectPtr& pod : pods->ByIndex(client::kNamespaceIndex, ns)) {
      if (PodUsesClaim(*pod, name)) co_return SyncResult();  // its deletion brings it back
    }
    // The cache may lag: ask the API server before letting the claim go.
    auto listed = co_await api->Get(client::ResourcePath(kPods, ns, ""));
    if (!listed) co_return std::unexpected(listed.error().String());
    for (const json& pod : At(*listed, "items")) {
      if (PodUsesClaim(pod, name)) co_return SyncResult();
    }
    co_return co_await SetFinalizer(api, path, *claim, kPVCFinalizer, false);
  };
  KLOG_INFO << "\"Starting PVC protection controller\"";
  RunWorkers(queue, 1, "PVC protection", std::move(sync), {claims, pods});
  return InitResult{true};
}

std::expected<InitResult, std::string> StartPVProtectionController(ControllerContext& ctx) {
  auto volumes = ctx.informers->ForResource(kVolumes);
  auto queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto api = ctx.client_for("pv-protection-controller");

  client::ResourceEventHandler on_volume;
  const auto changed = [queue](const client::ObjectPtr& volume) {
    if (NeedsFinalizer(*volume, kPVFinalizer) || MayRelease(*volume, kPVFinalizer)) {
      Enqueue(queue, client::KeyOf(*volume));
    }
  };
  on_volume.on_add = changed;
  on_volume.on_update = [changed](const client::ObjectPtr&, const client::ObjectPtr& v) {
    changed(v);
  };
  volumes->AddEventHandler(std::move(on_volume));

  SyncFunc sync = [volumes, api](const std::string& key) -> Awaitable<SyncResult> {
    client::ObjectPtr volume = volumes->Get(key);
    if (!volume) co_return SyncResult();
    const std::string path = client::ResourcePath(kVolumes, "", client::SplitKey(key).second);
    if (NeedsFinalizer(*volume, kPVFinalizer)) {
      co_return co_await SetFinalizer(api, path, *volume, kPVFinalizer, true);
    }
    if (!MayRelease(*volume, kPVFinalizer)) co_return SyncResult();
    // A Bound volume stays until the binder releases it.
    if (At(At(*volume, "status"), "phase") == "Bound") co_return SyncResult();
    co_return co_await SetFinalizer(api, path, *volume, kPVFinalizer, false);
  };
  KLOG_INFO << "\"Starting PV protection controller\"";
  RunWorkers(queue, 1, "PV protection", std::move(sync), {volumes});
  return InitResult{true};
}

}  // namespace controller::volume::protection
