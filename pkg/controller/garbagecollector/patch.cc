#include "pkg/controller/garbagecollector/patch.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace controller::garbagecollector {

using nlohmann::json;

namespace {

// An empty list is sent as null: the merge patch then drops the field, as upstream's
// marshalled nil slices do.
json ListOrNull(json list) { return list.empty() ? json(nullptr) : list; }

}  // namespace

std::string DeleteOwnerRefsStrategicPatch(const std::string& dependent_uid,
                                          const std::vector<std::string>& owner_uids) {
  json refs = json::array();
  for (const std::string& uid : owner_uids) refs.push_back({{"$patch", "delete"}, {"uid", uid}});
  json patch = {{"metadata", {{"ownerReferences", refs}, {"uid", dependent_uid}}}};
  return patch.dump();
}

std::string DeleteOwnerRefsMergePatch(const ObjectMeta& current,
                                      const std::vector<std::string>& owner_uids) {
  json refs = json::array();
  for (const OwnerReference& ref : current.owner_references) {
    if (std::find(owner_uids.begin(), owner_uids.end(), ref.uid) != owner_uids.end()) continue;
    refs.push_back(OwnerReferenceJson(ref));
  }
  json patch = {{"metadata",
                 {{"ownerReferences", ListOrNull(std::move(refs))},
                  {"resourceVersion", current.resource_version}}}};
  return patch.dump();
}

std::string UnblockOwnerRefsStrategicPatch(const std::string& uid,
                                           const std::vector<OwnerReference>& owners) {
  json refs = json::array();
  for (OwnerReference ref : owners) {
    if (!ref.Blocking()) continue;
    ref.block_owner_deletion = false;
    refs.push_back(OwnerReferenceJson(ref));
  }
  json meta = {{"uid", uid}};
  if (!refs.empty()) meta["ownerReferences"] = std::move(refs);
  json patch = {{"metadata", std::move(meta)}};
  return patch.dump();
}

std::string UnblockOwnerRefsMergePatch(const std::vector<OwnerReference>& owners,
                                       const std::string& resource_version) {
  json refs = json::array();
  for (OwnerReference ref : owners) {
    ref.block_owner_deletion = false;
    refs.push_back(OwnerReferenceJson(ref));
  }
  json patch = {
      {"metadata",
       {{"ownerReferences", ListOrNull(std::move(refs))}, {"resourceVersion", resource_version}}}};
  return patch.dump();
}

std::string RemoveFinalizerMergePatch(const ObjectMeta& current, const std::string& finalizer) {
  json rest = json::array();
  for (const std::string& f : current.finalizers) {
    if (f != finalizer) rest.push_back(f);
  }
  json patch = {{"metadata",
                 {{"finalizers", ListOrNull(std::move(rest))},
                  {"resourceVersion", current.resource_version}}}};
  return patch.dump();
}

}  // namespace controller::garbagecollector
