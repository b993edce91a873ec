// The garbage collector (pkg/controller/garbagecollector): owner references compared and
// ordered, the dependency graph kept from informer events (virtual owners, namespace
// checks, foreground and orphan transitions), the patch bodies, the REST mapper, and the
// collector's decisions driven against a fake metadata client.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/garbagecollector/absent_owner_cache.h"
#include "pkg/controller/garbagecollector/collector.h"
#include "pkg/controller/garbagecollector/graph.h"
#include "pkg/controller/garbagecollector/graph_builder.h"
#include "pkg/controller/garbagecollector/object_client.h"
#include "pkg/controller/garbagecollector/object_meta.h"
#include "pkg/controller/garbagecollector/patch.h"
#include "pkg/controller/garbagecollector/rest_mapper.h"

namespace asio = boost::asio;
namespace gc = controller::garbagecollector;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

gc::OwnerReference Ref(std::string api_version, std::string kind, std::string name, std::string uid,
                       std::optional<bool> block = std::nullopt) {
  gc::OwnerReference r;
  r.api_version = std::move(api_version);
  r.kind = std::move(kind);
  r.name = std::move(name);
  r.uid = std::move(uid);
  r.block_owner_deletion = block;
  return r;
}

gc::ObjectMeta Meta(std::string uid, std::string ns, std::string name,
                    std::vector<gc::OwnerReference> owners = {},
                    std::vector<std::string> finalizers = {}, bool deleting = false) {
  gc::ObjectMeta m;
  m.uid = std::move(uid);
  m.namespace_name = std::move(ns);
  m.name = std::move(name);
  m.resource_version = "7";
  m.owner_references = std::move(owners);
  m.finalizers = std::move(finalizers);
  m.being_deleted = deleting;
  return m;
}

gc::GraphEvent Event(gc::EventType type, std::string api_version, std::string kind,
                     gc::ObjectMeta object, std::optional<gc::ObjectMeta> old = std::nullopt) {
  gc::GraphEvent e;
  e.type = type;
  e.api_version = std::move(api_version);
  e.kind = std::move(kind);
  e.object = std::move(object);
  e.old_object = std::move(old);
  return e;
}

// Records what the graph builder asks for.
struct Recorded {
  std::vector<std::string> deletes, rate_limited, orphans;
  std::vector<std::pair<gc::ObjectRef, std::string>> warnings;
  gc::GraphActions Actions() {
    return gc::GraphActions{
        [this](const std::string& uid) { deletes.push_back(uid); },
        [this](const std::string& uid) { rate_limited.push_back(uid); },
        [this](const std::string& uid) { orphans.push_back(uid); },
        [this](const gc::ObjectRef& d, const std::string& m) { warnings.emplace_back(d, m); }};
  }
  bool Deleted(const std::string& uid) const {
    return std::find(deletes.begin(), deletes.end(), uid) != deletes.end();
  }
};

client::ApiResource Resource(std::string group, std::string version, std::string resource,
                             std::string kind, bool namespaced) {
  client::ApiResource r;
  r.gvr = {std::move(group), std::move(version), std::move(resource)};
  r.kind = std::move(kind);
  r.namespaced = namespaced;
  r.verbs = {"create", "delete", "get", "list", "patch", "watch"};
  return r;
}

gc::RestMapper TestMapper() {
  client::DiscoveryResult d;
  d.resources = {Resource("", "v1", "configmaps", "ConfigMap", true),
                 Resource("", "v1", "pods", "Pod", true),
                 Resource("", "v1", "namespaces", "Namespace", false),
                 Resource("apps", "v1", "replicasets", "ReplicaSet", true),
                 Resource("apps", "v1", "deployments", "Deployment", true),
                 Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
                 Resource("example.com", "v1", "widgets", "Widget", true)};
  gc::ServedVersions served = {{"", {"v1"}},
                               {"apps", {"v1"}},
                               {"rbac.authorization.k8s.io", {"v1"}},
                               {"example.com", {"v1", "v1beta1"}}};
  return gc::RestMapper(d, served);
}

// An in-memory metadata client: objects by (resource, namespace, name), every call kept.
struct Call {
  std::string method, resource, ns, name, content_type, body;
  gc::DeleteOptions options;
};

class FakeObjects : public gc::ObjectClient {
 public:
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, gc::ObjectMeta> objects;
  std::set<std::string> no_strategic;  // resources answering 415 to strategic merge patches
  std::vector<Call> calls;
  std::string fail_patch_of;  // a name whose patches fail with 500

  void Put(const std::string& resource, const gc::ObjectMeta& m) {
    objects[{resource, m.namespace_name, m.name}] = m;
  }
  std::vector<Call> Of(const std::string& method) const {
    std::vector<Call> out;
    for (const Call& c : calls) {
      if (c.method == method) out.push_back(c);
    }
    return out;
  }

  Awaitable<client::Result<gc::ObjectMeta>> Get(client::GroupVersionResource gvr, std::string ns,
                                                std::string name) override {
    calls.push_back(Call{"GET", gvr.resource, ns, name, "", "", {}});
    auto it = objects.find({gvr.resource, ns, name});
    if (it == objects.end()) co_return std::unexpected(NotFound(name));
    co_return it->second;
  }
  Awaitable<client::Result<void>> Delete(client::GroupVersionResource gvr, std::string ns,
                                         std::string name, gc::DeleteOptions options) override {
    calls.push_back(Call{"DELETE", gvr.resource, ns, name, "", "", options});
    auto it = objects.find({gvr.resource, ns, name});
    if (it == objects.end()) co_return std::unexpected(NotFound(name));
    if (!options.precondition_uid.empty() && options.precondition_uid != it->second.uid) {
      co_return std::unexpected(client::ApiError{409, "Conflict", "Precondition failed"});
    }
    objects.erase(it);
    co_return client::Result<void>();
  }
  Awaitable<client::Result<gc::ObjectMeta>> Patch(client::GroupVersionResource gvr, std::string ns,
                                                  std::string name, std::string content_type,
                                                  std::string body) override {
    calls.push_back(Call{"PATCH", gvr.resource, ns, name, content_type, body, {}});
    if (name == fail_patch_of) {
      co_return std::unexpected(client::ApiError{500, "InternalError", "boom"});
    }
    if (content_type == gc::kStrategicMergePatch && no_strategic.contains(gvr.resource)) {
      co_return std::unexpected(client::ApiError{415, "UnsupportedMediaType", "no"});
    }
    auto it = objects.find({gvr.resource, ns, name});
    if (it == objects.end()) co_return std::unexpected(NotFound(name));
    co_return it->second;
  }

 private:
  static client::ApiError NotFound(const std::string& name) {
    return client::ApiError{404, "NotFound", "\"" + name + "\" not found"};
  }
};

// A collector on a strand of a test io_context, with the fake client and the test mapper.
struct Fixture {
  asio::io_context ioc;
  std::shared_ptr<FakeObjects> objects = std::make_shared<FakeObjects>();
  std::vector<std::pair<gc::ObjectRef, std::string>> warnings;
  std::shared_ptr<gc::GarbageCollector> collector;

  Fixture() {
    collector = gc::GarbageCollector::New(
        gc::GarbageCollector::Strand(asio::make_strand(ioc.get_executor())), objects,
        [this](const gc::ObjectRef& d, const std::string& m) { warnings.emplace_back(d, m); });
    OnStrand([this] { collector->SetMapper(TestMapper()); });
  }
  ~Fixture() {
    OnStrand([this] {
      collector->attempt_to_delete()->ShutDown();
      collector->attempt_to_orphan()->ShutDown();
    });
    ioc.restart();
    ioc.run_for(2s);
  }

  // Runs `body` (a coroutine) on the collector's strand, then whatever it posted.
  template <class F>
  void Run(F body) {
    bool finished = false;
    asio::co_spawn(
        collector->strand(),
        [&]() -> Awaitable<void> {
          co_await body();
          finished = true;
        },
        [](std::exception_ptr e) {
          if (e) std::rethrow_exception(e);
        });
    ioc.restart();
    while (!finished && ioc.run_one_for(5s) > 0) {
    }
    ioc.poll();
    REQUIRE(finished);
  }
  template <class F>
  void OnStrand(F fn) {
    Run([&]() -> Awaitable<void> {
      fn();
      co_return;
    });
  }
  void Process(const gc::GraphEvent& e) {
    OnStrand([&] { collector->ProcessEvent(e); });
  }
  gc::WorkAction AttemptToDelete(const std::string& uid) {
    gc::WorkAction action = gc::WorkAction::kForget;
    Run([&]() -> Awaitable<void> { action = co_await collector->AttemptToDeleteWorker(uid); });
    return action;
  }
  gc::WorkAction AttemptToOrphan(const std::string& uid) {
    gc::WorkAction action = gc::WorkAction::kForget;
    Run([&]() -> Awaitable<void> { action = co_await collector->AttemptToOrphanWorker(uid); });
    return action;
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------

TEST_CASE("garbage collector: object metadata and identities", "[controller][gc]") {
  json object = json::parse(R"({"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata",
    "metadata":{"name":"web-1","namespace":"default","uid":"u1","resourceVersion":"42",
      "deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["orphan","x"],
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"o1",
        "controller":true,"blockOwnerDeletion":false},
        {"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"o2"}]}})");
  gc::ObjectMeta m = gc::ParseObjectMeta(object);
  CHECK(m.uid == "u1");
  CHECK(m.namespace_name == "default");
  CHECK(m.resource_version == "42");
  CHECK(m.being_deleted);
  CHECK(m.HasFinalizer(gc::kFinalizerOrphan));
  CHECK_FALSE(m.HasFinalizer(gc::kFinalizerDeleteDependents));
  REQUIRE(m.owner_references.size() == 2);
  CHECK(m.owner_references[0].controller == std::optional<bool>(true));
  CHECK(m.owner_references[0].block_owner_deletion == std::optional<bool>(false));
  CHECK_FALSE(m.owner_references[1].block_owner_deletion.has_value());
  CHECK(gc::OwnerReferenceJson(m.owner_references[1]).dump() ==
        R"({"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"o2"})");

  const gc::ObjectRef ref = gc::RefOf(m.owner_references[0], "default");
  CHECK(ref.String() == "[apps/v1/ReplicaSet, namespace: default, name: web, uid: o1]");
  CHECK(gc::MatchesCoordinates(m.owner_references[0], ref));
  CHECK_FALSE(gc::MatchesCoordinates(m.owner_references[1], ref));
  // Kind first, then apiVersion, namespace, name.
  CHECK(gc::ReferenceLess({"v9", "A", "z", "z", "z"}, {"v1", "B", "a", "a", "a"}));
  CHECK(gc::ReferenceLess({"v1", "A", "a", "b", "1"}, {"v1", "A", "b", "a", "1"}));
  CHECK_FALSE(gc::ReferenceLess(ref, ref));
}

TEST_CASE("garbage collector: owner reference diffs by uid", "[controller][gc]") {
  const auto a = Ref("v1", "ConfigMap", "a", "1");
  const auto b = Ref("v1", "ConfigMap", "b", "2", true);
  auto b_unset = b;
  b_unset.block_owner_deletion.reset();
  const auto c = Ref("v1", "ConfigMap", "c", "3");
  gc::ReferenceDiff d = gc::DiffReferences({a, b}, {b_unset, c});
  REQUIRE(d.added.size() == 1);
  CHECK(d.added[0].uid == "3");
  REQUIRE(d.removed.size() == 1);
  CHECK(d.removed[0].uid == "1");
  REQUIRE(d.changed.size() == 1);  // true -> unset is a change
  CHECK(d.changed[0].first.Blocking());
  CHECK_FALSE(d.changed[0].second.Blocking());
  CHECK(gc::DiffReferences({a, b}, {b, a}).empty());
}

TEST_CASE("garbage collector: deletion transitions", "[controller][gc]") {
  const auto live = Meta("u", "ns", "n", {}, {"foregroundDeletion"});
  const auto deleting = Meta("u", "ns", "n", {}, {"foregroundDeletion"}, true);
  CHECK(gc::DeletionStartsWithFinalizer(nullptr, deleting, gc::kFinalizerDeleteDependents));
  CHECK(gc::DeletionStartsWithFinalizer(&live, deleting, gc::kFinalizerDeleteDependents));
  CHECK_FALSE(gc::DeletionStartsWithFinalizer(&deleting, deleting, gc::kFinalizerDeleteDependents));
  CHECK_FALSE(gc::DeletionStartsWithFinalizer(nullptr, deleting, gc::kFinalizerOrphan));
  CHECK_FALSE(gc::DeletionStartsWithFinalizer(nullptr, live, gc::kFinalizerDeleteDependents));
}

TEST_CASE("garbage collector: dependents partitioned by the owner identity they give",
          "[controller][gc]") {
  auto dep = [](std::string uid, std::string ns, std::vector<gc::OwnerReference> owners) {
    auto n = std::make_shared<gc::Node>();
    n->identity = {"v1", "Pod", std::move(ns), uid, uid};
    n->owners = std::move(owners);
    return n;
  };
  const auto good = dep("d1", "a", {Ref("v1", "ConfigMap", "owner", "o")});
  const auto other_kind = dep("d2", "a", {Ref("v1", "Secret", "owner", "o")});
  const auto other_ns = dep("d3", "b", {Ref("v1", "ConfigMap", "owner", "o")});
  const gc::ObjectRef owner{"v1", "ConfigMap", "a", "owner", "o"};
  gc::Partition p = gc::PartitionDependents({good, other_kind, other_ns}, owner);
  REQUIRE(p.matching.size() == 1);
  CHECK(p.matching[0]->identity.uid == "d1");
  REQUIRE(p.nonmatching.size() == 2);

  // After `owner` proved absent, the next identity in (kind, apiVersion, namespace, name)
  // order is tried: the ConfigMap in b, then the Secret in a.
  auto alternate = gc::AlternateOwnerIdentity(p.nonmatching, owner);
  REQUIRE(alternate);
  CHECK(alternate->String() == "[v1/ConfigMap, namespace: b, name: owner, uid: o]");
  auto next = gc::AlternateOwnerIdentity(p.nonmatching, *alternate);
  REQUIRE(next);
  CHECK(next->String() == "[v1/Secret, namespace: a, name: owner, uid: o]");
  // Past the last one, the first again.
  auto wrapped = gc::AlternateOwnerIdentity(p.nonmatching, *next);
  REQUIRE(wrapped);
  CHECK(wrapped->String() == "[v1/ConfigMap, namespace: b, name: owner, uid: o]");
  CHECK_FALSE(gc::AlternateOwnerIdentity({good}, owner));
}

TEST_CASE("garbage collector: graph with virtual owners, observed, then deleted",
          "[controller][gc]") {
  Recorded r;
  gc::AbsentOwnerCache absent;
  gc::GraphBuilder b(r.Actions(), absent);
  const auto owner_ref = Ref("apps/v1", "ReplicaSet", "web", "rs1", true);
  b.Process(Event(gc::EventType::kAdd, "v1", "Pod", Meta("p1", "default", "web-1", {owner_ref})));

  auto owner = b.graph().Find("rs1");
  REQUIRE(owner);
  CHECK(owner->is_virtual);
  CHECK(owner->identity.String() ==
        "[apps/v1/ReplicaSet, namespace: default, name: web, uid: rs1]");
  CHECK(owner->dependents.contains("p1"));
  CHECK(r.deletes == std::vector<std::string>{"rs1"});  // the virtual owner gets verified

  // A second dependent of the same, now known, owner: nothing to verify.
  b.Process(Event(gc::EventType::kAdd, "v1", "Pod", Meta("p2", "default", "web-2", {owner_ref})));
  CHECK(r.deletes.size() == 1);

  b.Process(Event(gc::EventType::kAdd, "apps/v1", "ReplicaSet", Meta("rs1", "default", "web")));
  CHECK_FALSE(b.graph().Find("rs1")->is_virtual);
  CHECK(b.graph().Find("rs1") == owner);  // same coordinates: the node is kept

  // The owner's deletion: its dependents are checked and it is remembered as absent.
  r.deletes.clear();
  b.Process(Event(gc::EventType::kDelete, "apps/v1", "ReplicaSet", Meta("rs1", "default", "web")));
  CHECK_FALSE(b.graph().Find("rs1"));
  CHECK(r.Deleted("p1"));
  CHECK(r.Deleted("p2"));
  CHECK(absent.Has({"apps/v1", "ReplicaSet", "default", "web", "rs1"}));

  // A dependent dropping a blocking reference unblocks the owner waiting for it.
  b.Process(Event(gc::EventType::kAdd, "apps/v1", "ReplicaSet", Meta("rs2", "default", "api")));
  const auto blocking = Ref("apps/v1", "ReplicaSet", "api", "rs2", true);
  b.Process(Event(gc::EventType::kAdd, "v1", "Pod", Meta("p3", "default", "api-1", {blocking})));
  r.deletes.clear();
  auto unblocked = blocking;
  unblocked.block_owner_deletion = false;
  b.Process(
      Event(gc::EventType::kUpdate, "v1", "Pod", Meta("p3", "default", "api-1", {unblocked})));
  CHECK(r.deletes == std::vector<std::string>{"rs2"});
  CHECK(b.graph().Find("rs2")->dependents.contains("p3"));
  r.deletes.clear();
  b.Process(Event(gc::EventType::kUpdate, "v1", "Pod", Meta("p3", "default", "api-1")));
  CHECK(r.deletes.empty());  // a non-blocking reference removed unblocks nothing
  CHECK_FALSE(b.graph().Find("rs2")->dependents.contains("p3"));
}

TEST_CASE("garbage collector: foreground and orphan deletions start", "[controller][gc]") {
  Recorded r;
  gc::AbsentOwnerCache absent;
  gc::GraphBuilder b(r.Actions(), absent);
  const auto owner = Meta("d1", "ns", "app");
  b.Process(Event(gc::EventType::kAdd, "apps/v1", "Deployment", owner));
  b.Process(Event(gc::EventType::kAdd, "apps/v1", "ReplicaSet",
                  Meta("rs1", "ns", "app-1", {Ref("apps/v1", "Deployment", "app", "d1", true)})));
  r.deletes.clear();

  const auto foreground = Meta("d1", "ns", "app", {}, {"foregroundDeletion"}, true);
  b.Process(Event(gc::EventType::kUpdate, "apps/v1", "Deployment", foreground, owner));
  auto node = b.graph().Find("d1");
  CHECK(node->deleting_dependents);
  CHECK(node->being_deleted);
  CHECK(r.deletes == std::vector<std::string>{"rs1", "d1"});
  CHECK(node->BlockingDependents().size() == 1);

  // The dependent's deletion lets the owner finish.
  r.deletes.clear();
  b.Process(Event(gc::EventType::kDelete, "apps/v1", "ReplicaSet",
                  Meta("rs1", "ns", "app-1", {Ref("apps/v1", "Deployment", "app", "d1", true)})));
  CHECK(r.deletes == std::vector<std::string>{"d1"});
  CHECK(node->dependents.empty());

  const auto cm = Meta("c1", "ns", "cm");
  b.Process(Event(gc::EventType::kAdd, "v1", "ConfigMap", cm));
  b.Process(Event(gc::EventType::kUpdate, "v1", "ConfigMap",
                  Meta("c1", "ns", "cm", {}, {"orphan"}, true), cm));
  CHECK(r.orphans == std::vector<std::string>{"c1"});
  // Seen again in the same state: no new transition.
  b.Process(Event(gc::EventType::kUpdate, "v1", "ConfigMap",
                  Meta("c1", "ns", "cm", {}, {"orphan"}, true),
                  Meta("c1", "ns", "cm", {}, {"orphan"}, true)));
  CHECK(r.orphans.size() == 1);
}

TEST_CASE("garbage collector: owner references to another namespace are reported",
          "[controller][gc]") {
  Recorded r;
  gc::AbsentOwnerCache absent;
  gc::GraphBuilder b(r.Actions(), absent);
  b.Process(Event(gc::EventType::kAdd, "v1", "ConfigMap", Meta("o1", "a", "owner")));

  // Observed owner first, then a dependent in another namespace.
  b.Process(Event(gc::EventType::kAdd, "v1", "Secret",
                  Meta("s1", "b", "dep", {Ref("v1", "ConfigMap", "owner", "o1")})));
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].first.String() == "[v1/Secret, namespace: b, name: dep, uid: s1]");
  CHECK(r.warnings[0].second ==
        "ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: o1] does not exist in "
        "namespace \"b\"");
  CHECK(r.Deleted("s1"));

  // A cluster-scoped dependent of the same namespaced owner.
  b.Process(Event(gc::EventType::kAdd, "rbac.authorization.k8s.io/v1", "ClusterRole",
                  Meta("cr1", "", "role", {Ref("v1", "ConfigMap", "owner", "o1")})));
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[1].second ==
        "ownerRef [v1/ConfigMap, namespace: , name: owner, uid: o1] does not exist in namespace "
        "\"\"");

  // Dependent first (the owner virtual, in the dependent's namespace), then the owner
  // observed elsewhere: reported then, and the virtual node gets the observed identity.
  r.warnings.clear();
  r.deletes.clear();
  b.Process(Event(gc::EventType::kAdd, "v1", "Secret",
                  Meta("s2", "b", "dep2", {Ref("v1", "ConfigMap", "owner2", "o2")})));
  CHECK(b.graph().Find("o2")->identity.namespace_name == "b");
  r.deletes.clear();
  b.Process(Event(gc::EventType::kAdd, "v1", "ConfigMap", Meta("o2", "a", "owner2")));
  auto o2 = b.graph().Find("o2");
  CHECK_FALSE(o2->is_virtual);
  CHECK(o2->identity.namespace_name == "a");
  CHECK(o2->dependents.contains("s2"));
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].second ==
        "ownerRef [v1/ConfigMap, namespace: b, name: owner2, uid: o2] does not exist in "
        "namespace \"b\"");
  CHECK(r.Deleted("s2"));
}

TEST_CASE("garbage collector: virtual delete events and alternate owner identities",
          "[controller][gc]") {
  Recorded r;
  gc::AbsentOwnerCache absent;
  gc::GraphBuilder b(r.Actions(), absent);
  // Two dependents naming uid o with different kinds.
  b.Process(Event(gc::EventType::kAdd, "v1", "Pod",
                  Meta("p1", "ns", "a", {Ref("v1", "ConfigMap", "owner", "o")})));
  b.Process(Event(gc::EventType::kAdd, "v1", "Pod",
                  Meta("p2", "ns", "b", {Ref("v1", "Secret", "owner", "o")})));
  r.deletes.clear();

  gc::GraphEvent gone = Event(gc::EventType::kDelete, "v1", "ConfigMap", Meta("o", "ns", "owner"));
  gone.is_virtual = true;
  b.Process(gone);
  // Kept, under the other identity, and verified again with backoff; p1 is checked.
  auto node = b.graph().Find("o");
  REQUIRE(node);
  CHECK(node->identity.kind == "Secret");
  CHECK(r.rate_limited == std::vector<std::string>{"o"});
  CHECK(r.deletes == std::vector<std::string>{"p1"});
  CHECK(absent.Has({"v1", "ConfigMap", "ns", "owner", "o"}));

  // The other identity is absent too: p2 is checked, and while p1 still names the uid
  // otherwise the node stays, back to p1's identity.
  gc::GraphEvent gone_too = Event(gc::EventType::kDelete, "v1", "Secret", Meta("o", "ns", "owner"));
  gone_too.is_virtual = true;
  b.Process(gone_too);
  REQUIRE(b.graph().Find("o"));
  CHECK(b.graph().Find("o")->identity.kind == "ConfigMap");
  CHECK(r.deletes.back() == "p2");
  CHECK(r.rate_limited.size() == 2);

  // Once both dependents are gone, the next virtual delete event removes the node.
  b.Process(Event(gc::EventType::kDelete, "v1", "Pod",
                  Meta("p1", "ns", "a", {Ref("v1", "ConfigMap", "owner", "o")})));
  b.Process(Event(gc::EventType::kDelete, "v1", "Pod",
                  Meta("p2", "ns", "b", {Ref("v1", "Secret", "owner", "o")})));
  CHECK(b.graph().Find("o")->dependents.empty());
  b.Process(gone);
  CHECK_FALSE(b.graph().Find("o"));
  CHECK(b.graph().size() == 0);
}

TEST_CASE("garbage collector: patch bodies", "[controller][gc]") {
  CHECK(gc::DeleteOwnerRefsStrategicPatch("d", {"o1", "o2"}) ==
        R"({"metadata":{"ownerReferences":[{"$patch":"delete","uid":"o1"},)"
        R"({"$patch":"delete","uid":"o2"}],"uid":"d"}})");
  auto m = Meta("d", "ns", "n",
                {Ref("v1", "ConfigMap", "a", "o1"), Ref("v1", "ConfigMap", "b", "o2", true)});
  CHECK(gc::DeleteOwnerRefsMergePatch(m, {"o1"}) ==
        R"({"metadata":{"ownerReferences":[{"apiVersion":"v1","blockOwnerDeletion":true,)"
        R"("kind":"ConfigMap","name":"b","uid":"o2"}],"resourceVersion":"7"}})");
  CHECK(gc::DeleteOwnerRefsMergePatch(m, {"o1", "o2"}) ==
        R"({"metadata":{"ownerReferences":null,"resourceVersion":"7"}})");
  CHECK(gc::UnblockOwnerRefsStrategicPatch("d", m.owner_references) ==
        R"({"metadata":{"ownerReferences":[{"apiVersion":"v1","blockOwnerDeletion":false,)"
        R"("kind":"ConfigMap","name":"b","uid":"o2"}],"uid":"d"}})");
  CHECK(gc::UnblockOwnerRefsMergePatch(m.owner_references, "9") ==
        R"({"metadata":{"ownerReferences":[{"apiVersion":"v1","blockOwnerDeletion":false,)"
        R"("kind":"ConfigMap","name":"a","uid":"o1"},{"apiVersion":"v1",)"
        R"("blockOwnerDeletion":false,"kind":"ConfigMap","name":"b","uid":"o2"}],)"
        R"("resourceVersion":"9"}})");
  auto f = Meta("d", "ns", "n", {}, {"a", "foregroundDeletion", "b"});
  CHECK(gc::RemoveFinalizerMergePatch(f, "foregroundDeletion") ==
        R"({"metadata":{"finalizers":["a","b"],"resourceVersion":"7"}})");
  CHECK(gc::RemoveFinalizerMergePatch(Meta("d", "ns", "n", {}, {"orphan"}), "orphan") ==
        R"({"metadata":{"finalizers":null,"resourceVersion":"7"}})");
}

TEST_CASE("garbage collector: REST mapper and absent-owner cache", "[controller][gc]") {
  gc::RestMapper m = TestMapper();
  auto rs = m.Map("apps/v1", "ReplicaSet");
  REQUIRE(rs);
  CHECK(rs->gvr.String() == "replicasets.v1.apps");
  CHECK(rs->namespaced);
  auto ns = m.Map("v1", "Namespace");
  REQUIRE(ns);
  CHECK_FALSE(ns->namespaced);
  auto beta = m.Map("example.com/v1beta1", "Widget");  // served, not preferred
  REQUIRE(beta);
  CHECK(beta->gvr.String() == "widgets.v1beta1.example.com");
  CHECK_FALSE(m.Map("apps/v1beta1", "ReplicaSet"));  // not served
  CHECK_FALSE(m.Map("v1", "Nothing"));
  CHECK(gc::RestMappingError("v1", "Nothing") == "unable to get REST mapping for v1/Nothing.");

  json groups = json::parse(R"({"groups":[{"name":"apps","versions":[{"version":"v1"}]},
    {"name":"x.io","versions":[{"version":"v2"},{"version":"v1"}]}]})");
  gc::ServedVersions served = gc::ParseServedVersions(groups);
  CHECK(served[""] == std::set<std::string>{"v1"});
  CHECK(served["x.io"] == std::set<std::string>{"v1", "v2"});

  gc::AbsentOwnerCache cache(2);
  const gc::ObjectRef a{"v1", "A", "", "a", "1"}, b{"v1", "B", "", "b", "2"},
      c{"v1", "C", "", "c", "3"};
  cache.Add(a);
  cache.Add(b);
  CHECK(cache.Has(a));  // a is now the most recent
  cache.Add(c);         // evicts b
  CHECK(cache.Has(a));
  CHECK_FALSE(cache.Has(b));
  CHECK(cache.Has(c));
  CHECK(cache.size() == 2);
}

TEST_CASE("garbage collector: a dependent whose owner is gone is deleted in the background",
          "[controller][gc]") {
  Fixture f;
  const auto pod = Meta("p1", "default", "web-1", {Ref("apps/v1", "ReplicaSet", "web", "rs1")});
  f.objects->Put("pods", pod);
  f.Process(Event(gc::EventType::kAdd, "v1", "Pod", pod));

  CHECK(f.AttemptToDelete("p1") == gc::WorkAction::kForget);
  auto deletes = f.objects->Of("DELETE");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].resource == "pods");
  CHECK(deletes[0].ns == "default");
  CHECK(deletes[0].options.precondition_uid == "p1");
  CHECK(deletes[0].options.propagation_policy == "Background");
  // The owner was looked up in the dependent's namespace and is now known absent.
  auto gets = f.objects->Of("GET");
  REQUIRE(gets.size() == 2);
  CHECK(gets[1].resource == "replicasets");
  CHECK(gets[1].ns == "default");
  bool absent = false;
  f.OnStrand([&] {
    absent = f.collector->absent_owners().Has({"apps/v1", "ReplicaSet", "default", "web", "rs1"});
  });
  CHECK(absent);

  // The virtual owner: not found, so a virtual delete event drops it from the graph.
  CHECK(f.AttemptToDelete("rs1") == gc::WorkAction::kForget);
  bool in_graph = true;
  f.OnStrand([&] { in_graph = f.collector->graph().Find("rs1") != nullptr; });
  CHECK_FALSE(in_graph);
}

TEST_CASE("garbage collector: the policy follows the dependent's own finalizers",
          "[controller][gc]") {
  Fixture f;
  f.objects->Put("configmaps",
                 Meta("c1", "ns", "a", {Ref("v1", "ConfigMap", "x", "gone")}, {"orphan"}));
  f.objects->Put("configmaps", Meta("c2", "ns", "b", {Ref("v1", "ConfigMap", "x", "gone")},
                                    {"foregroundDeletion"}));
  f.objects->Put("configmaps", Meta("c3", "ns", "c"));
  for (const char* uid : {"c1", "c2", "c3"}) {
    for (const auto& [key, m] : f.objects->objects) {
      if (m.uid == uid) f.Process(Event(gc::EventType::kAdd, "v1", "ConfigMap", m));
    }
  }
  f.AttemptToDelete("c1");
  f.AttemptToDelete("c2");
  f.AttemptToDelete("c3");  // no owners: never deleted
  auto deletes = f.objects->Of("DELETE");
  REQUIRE(deletes.size() == 2);
  CHECK(deletes[0].options.propagation_policy == "Orphan");
  CHECK(deletes[1].options.propagation_policy == "Foreground");
  // The second lookup of the absent owner came from the cache.
  int owner_gets = 0;
  for (const Call& c : f.objects->Of("GET")) owner_gets += c.name == "x";
  CHECK(owner_gets == 1);
}

TEST_CASE("garbage collector: dangling references are removed when a solid owner remains",
          "[controller][gc]") {
  Fixture f;
  f.objects->Put("deployments", Meta("d1", "ns", "app"));
  const auto rs =
      Meta("rs1", "ns", "app-1",
           {Ref("apps/v1", "Deployment", "app", "d1"), Ref("apps/v1", "Deployment", "old", "d0")});
  f.objects->Put("replicasets", rs);
  f.Process(Event(gc::EventType::kAdd, "apps/v1", "ReplicaSet", rs));

  CHECK(f.AttemptToDelete("rs1") == gc::WorkAction::kForget);
  CHECK(f.objects->Of("DELETE").empty());
  auto patches = f.objects->Of("PATCH");
  REQUIRE(patches.size() == 1);
  CHECK(patches[0].content_type == gc::kStrategicMergePatch);
  CHECK(patches[0].body == gc::DeleteOwnerRefsStrategicPatch("rs1", {"d0"}));

  // A custom resource refuses strategic merge patches: a JSON merge patch follows.
  f.objects->calls.clear();
  f.objects->no_strategic.insert("widgets");
  const auto w =
      Meta("w1", "ns", "w",
           {Ref("apps/v1", "Deployment", "app", "d1"), Ref("apps/v1", "Deployment", "old", "d0")});
  f.objects->Put("widgets", w);
  f.Process(Event(gc::EventType::kAdd, "example.com/v1", "Widget", w));
  CHECK(f.AttemptToDelete("w1") == gc::WorkAction::kForget);
  patches = f.objects->Of("PATCH");
  REQUIRE(patches.size() == 2);
  CHECK(patches[1].content_type == gc::kMergePatch);
  CHECK(patches[1].body == gc::DeleteOwnerRefsMergePatch(w, {"d0"}));
}

TEST_CASE("garbage collector: foreground deletion of owners and their dependents",
          "[controller][gc]") {
  Fixture f;
  const auto owner = Meta("d1", "ns", "app", {}, {"foregroundDeletion"}, true);
  const auto rs = Meta("rs1", "ns", "app-1", {Ref("apps/v1", "Deployment", "app", "d1", true)});
  const auto pod =
      Meta("p1", "ns", "app-1-x", {Ref("apps/v1", "ReplicaSet", "app-1", "rs1", true)});
  const auto lone = Meta("rs2", "ns", "app-2", {Ref("apps/v1", "Deployment", "app", "d1")});
  f.objects->Put("deployments", owner);
  f.objects->Put("replicasets", rs);
  f.objects->Put("replicasets", lone);
  f.objects->Put("pods", pod);
  f.Process(Event(gc::EventType::kAdd, "apps/v1", "Deployment", owner));
  f.Process(Event(gc::EventType::kAdd, "apps/v1", "ReplicaSet", rs));
  f.Process(Event(gc::EventType::kAdd, "apps/v1", "ReplicaSet", lone));
  f.Process(Event(gc::EventType::kAdd, "v1", "Pod", pod));

  // The owner waits: its blocking dependent is queued, the finalizer stays.
  CHECK(f.AttemptToDelete("d1") == gc::WorkAction::kForget);
  CHECK(f.objects->Of("PATCH").empty());

  // A dependent with dependents of its own goes in the foreground; one without in the
  // background (no owner of it is solid).
  CHECK(f.AttemptToDelete("rs1") == gc::WorkAction::kForget);
  CHECK(f.AttemptToDelete("rs2") == gc::WorkAction::kForget);
  auto deletes = f.objects->Of("DELETE");
  REQUIRE(deletes.size() == 2);
  CHECK(deletes[0].name == "app-1");
  CHECK(deletes[0].options.propagation_policy == "Foreground");
  CHECK(deletes[1].name == "app-2");
  CHECK(deletes[1].options.propagation_policy == "Background");

  // Once no dependent blocks it, the owner's foregroundDeletion finalizer is removed.
  f.Process(Event(gc::EventType::kDelete, "apps/v1", "ReplicaSet", rs));
  f.objects->calls.clear();
  CHECK(f.AttemptToDelete("d1") == gc::WorkAction::kForget);
  auto patches = f.objects->Of("PATCH");
  REQUIRE(patches.size() == 1);
  CHECK(patches[0].content_type == gc::kMergePatch);
  CHECK(patches[0].name == "app");
  CHECK(patches[0].body == R"({"metadata":{"finalizers":null,"resourceVersion":"7"}})");
}

TEST_CASE("garbage collector: invalid owner scopes are not collected", "[controller][gc]") {
  Fixture f;
  // A cluster-scoped dependent naming a namespaced kind: dropped without a lookup.
  const auto role = Meta("cr1", "", "role", {Ref("v1", "ConfigMap", "owner", "o1")});
  f.objects->Put("clusterroles", role);
  f.Process(Event(gc::EventType::kAdd, "rbac.authorization.k8s.io/v1", "ClusterRole", role));
  CHECK(f.AttemptToDelete("cr1") == gc::WorkAction::kForget);
  CHECK(f.objects->Of("DELETE").empty());
  for (const Call& c : f.objects->Of("GET")) CHECK(c.resource != "configmaps");

  // An owner in another namespace is absent as far as the dependent is concerned.
  f.objects->Put("configmaps", Meta("o2", "a", "owner"));
  const auto secret_dep = Meta("p9", "b", "dep", {Ref("v1", "ConfigMap", "owner", "o2")});
  f.objects->Put("pods", secret_dep);
  f.Process(Event(gc::EventType::kAdd, "v1", "Pod", secret_dep));
  CHECK(f.AttemptToDelete("p9") == gc::WorkAction::kForget);
  auto deletes = f.objects->Of("DELETE");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].name == "dep");

  // An unknown kind is retried (discovery may learn it), not deleted.
  const auto odd = Meta("p10", "b", "odd", {Ref("unknown.io/v1", "Thing", "t", "t1")});
  f.objects->Put("pods", odd);
  f.Process(Event(gc::EventType::kAdd, "v1", "Pod", odd));
  CHECK(f.AttemptToDelete("p10") == gc::WorkAction::kRequeue);
  CHECK(f.objects->Of("DELETE").size() == 1);
}

TEST_CASE("garbage collector: orphaning removes the owner from its dependents first",
          "[controller][gc]") {
  Fixture f;
  const auto owner = Meta("rs1", "ns", "web", {}, {"orphan"}, true);
  f.objects->Put("replicasets", owner);
  f.Process(Event(gc::EventType::kAdd, "apps/v1", "ReplicaSet", owner));
  for (std::string uid : {"p1", "p2"}) {
    const auto pod = Meta(uid, "ns", "web-" + uid, {Ref("apps/v1", "ReplicaSet", "web", "rs1")});
    f.objects->Put("pods", pod);
    f.Process(Event(gc::EventType::kAdd, "v1", "Pod", pod));
  }
  size_t orphans = 0;
  f.OnStrand([&] { orphans = f.collector->attempt_to_orphan()->Len(); });
  CHECK(orphans == 1);

  CHECK(f.AttemptToOrphan("rs1") == gc::WorkAction::kForget);
  auto patches = f.objects->Of("PATCH");
  REQUIRE(patches.size() == 3);
  std::set<std::string> bodies{patches[0].body, patches[1].body};
  CHECK(bodies == std::set<std::string>{gc::DeleteOwnerRefsStrategicPatch("p1", {"rs1"}),
                                        gc::DeleteOwnerRefsStrategicPatch("p2", {"rs1"})});
  CHECK(patches[2].resource == "replicasets");
  CHECK(patches[2].body == R"({"metadata":{"finalizers":null,"resourceVersion":"7"}})");

  // Dependents and owner gone meanwhile need nothing more (the merge patch fallback finds
  // one pod missing, the finalizer's owner is missing).
  f.objects->calls.clear();
  f.objects->objects.erase({"replicasets", "ns", "web"});
  f.objects->no_strategic.insert("pods");
  f.objects->objects.erase({"pods", "ns", "web-p1"});
  CHECK(f.AttemptToOrphan("rs1") == gc::WorkAction::kForget);
  CHECK(f.objects->Of("PATCH").size() == 3);  // two refused, one merge patch

  // A dependent that cannot be patched keeps the finalizer: retried.
  f.objects->calls.clear();
  f.objects->Put("replicasets", owner);
  f.objects->no_strategic.clear();
  f.objects->fail_patch_of = "web-p2";
  CHECK(f.AttemptToOrphan("rs1") == gc::WorkAction::kRequeue);
  for (const Call& c : f.objects->Of("PATCH")) CHECK(c.resource == "pods");
}
