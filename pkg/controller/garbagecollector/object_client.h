#pragma once
// The garbage collector's metadata client: GET an object's metadata (as
// PartialObjectMetadata), DELETE it with a uid precondition and a propagation policy, PATCH
// it. An interface so that the collector's decisions can be driven by a fake in tests; the
// real one speaks to the API server through a client::RestClient.
//
// Threads: calls may come from any strand; the REST implementation keeps no state besides
// the (thread-safe) RestClient. Each call's coroutine runs on the caller's executor.

#include <memory>
#include <string>

#include "pkg/client/rest/client.h"
#include "pkg/client/rest/resource.h"
#include "pkg/controller/garbagecollector/object_meta.h"
#include "pkg/genericserver/server/awaitable.h"

namespace controller::garbagecollector {

struct DeleteOptions {
  std::string precondition_uid;    // preconditions.uid, if not empty
  std::string propagation_policy;  // Orphan, Foreground, Background; empty: the default
};

class ObjectClient {
 public:
  virtual ~ObjectClient() = default;
  // `namespace_name` empty for cluster-scoped resources.
  virtual Awaitable<client::Result<ObjectMeta>> Get(client::GroupVersionResource gvr,
                                                    std::string namespace_name,
                                                    std::string name) = 0;
  virtual Awaitable<client::Result<void>> Delete(client::GroupVersionResource gvr,
                                                 std::string namespace_name, std::string name,
                                                 DeleteOptions options) = 0;
  virtual Awaitable<client::Result<ObjectMeta>> Patch(client::GroupVersionResource gvr,
                                                      std::string namespace_name, std::string name,
                                                      std::string content_type,
                                                      std::string body) = 0;
};

std::shared_ptr<ObjectClient> NewRestObjectClient(std::shared_ptr<client::RestClient> client);

}  // namespace controller::garbagecollector
