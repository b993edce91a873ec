#include "pkg/controller/garbagecollector/object_meta.h"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

namespace controller::garbagecollector {

using nlohmann::json;

namespace {

std::string StringField(const json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<bool> BoolField(const json& object, const char* field) {
  auto it = object.find(field);
  if (it == object.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

}  // namespace

std::string ObjectRef::String() const {
  return "[" + api_version + "/" + kind + ", namespace: " + namespace_name + ", name: " + name +
         ", uid: " + uid + "]";
}

ObjectRef RefOf(const OwnerReference& owner, std::string namespace_name) {
  return ObjectRef{owner.api_version, owner.kind, std::move(namespace_name), owner.name, owner.uid};
}

bool MatchesCoordinates(const OwnerReference& ref, const ObjectRef& identity) {
  return ref.uid == identity.uid && ref.name == identity.name && ref.kind == identity.kind &&
         ref.api_version == identity.api_version;
}

bool ReferenceLess(const ObjectRef& a, const ObjectRef& b) {
  return std::tie(a.kind, a.api_version, a.namespace_name, a.name, a.uid) <
         std::tie(b.kind, b.api_version, b.namespace_name, b.name, b.uid);
}

bool ObjectMeta::HasFinalizer(std::string_view finalizer) const {
  return std::find(finalizers.begin(), finalizers.end(), finalizer) != finalizers.end();
}

std::vector<OwnerReference> ParseOwnerReferences(const json& refs) {
  std::vector<OwnerReference> out;
  if (!refs.is_array()) return out;
  for (const json& r : refs) {
    if (!r.is_object()) continue;
    OwnerReference ref;
    ref.api_version = StringField(r, "apiVersion");
    ref.kind = StringField(r, "kind");
    ref.name = StringField(r, "name");
    ref.uid = StringField(r, "uid");
    ref.controller = BoolField(r, "controller");
    ref.block_owner_deletion = BoolField(r, "blockOwnerDeletion");
    out.push_back(std::move(ref));
  }
  return out;
}

ObjectMeta ParseObjectMeta(const json& object) {
  ObjectMeta meta;
  if (!object.is_object()) return meta;
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return meta;
  meta.uid = StringField(*m, "uid");
  meta.name = StringField(*m, "name");
  meta.namespace_name = StringField(*m, "namespace");
  meta.resource_version = StringField(*m, "resourceVersion");
  if (auto refs = m->find("ownerReferences"); refs != m->end()) {
    meta.owner_references = ParseOwnerReferences(*refs);
  }
  if (auto f = m->find("finalizers"); f != m->end() && f->is_array()) {
    for (const json& v : *f) {
      if (v.is_string()) meta.finalizers.push_back(v.get<std::string>());
    }
  }
  auto ts = m->find("deletionTimestamp");
  meta.being_deleted = ts != m->end() && !ts->is_null();
  return meta;
}

json OwnerReferenceJson(const OwnerReference& ref) {
  json out = {
      {"apiVersion", ref.api_version}, {"kind", ref.kind}, {"name", ref.name}, {"uid", ref.uid}};
  if (ref.controller) out["controller"] = *ref.controller;
  if (ref.block_owner_deletion) out["blockOwnerDeletion"] = *ref.block_owner_deletion;
  return out;
}

std::string Describe(const std::vector<OwnerReference>& refs) {
  std::string out = "[";
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i > 0) out += " ";
    out += refs[i].api_version + "/" + refs[i].kind + " " + refs[i].name + " " + refs[i].uid;
  }
  return out + "]";
}

}  // namespace controller::garbagecollector
