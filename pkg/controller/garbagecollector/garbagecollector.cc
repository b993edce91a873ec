#include "pkg/controller/garbagecollector/garbagecollector.h"

#include <boost/asio/strand.hpp>

#include "pkg/client/record/event_recorder.h"
#include "pkg/controller/garbagecollector/collector.h"
#include "pkg/controller/garbagecollector/object_client.h"

namespace controller::garbagecollector {

namespace {

constexpr char kClientName[] = "generic-garbage-collector";
constexpr char kEventComponent[] = "garbage-collector-controller";

}  // namespace

std::expected<controller::InitResult, std::string> StartGarbageCollectorController(
    controller::ControllerContext& ctx) {
  if (!ctx.options.enable_garbage_collector) {
    return controller::InitResult{.started = false, .skip_reason = "garbage collector is disabled"};
  }
  std::shared_ptr<client::RestClient> client =
      ctx.client_for ? ctx.client_for(kClientName) : nullptr;
  if (!client) client = ctx.client;
  if (!client) return std::unexpected(std::string("garbage collector: no API client"));
  // Upstream's collector client: twice the QPS and burst of the others.
  client::RestConfig config = client->config();
  config.qps *= 2;
  config.burst *= 2;
  auto doubled =
      client::RestClient::New(config, "kube-controller-manager/generic-garbage-collector", ctx.io);
  if (!doubled) return std::unexpected(doubled.error());
  client = std::move(*doubled);

  // Upstream's collector has an event broadcaster of its own, with this source component.
  auto recorder = client::EventRecorder::New(client, kEventComponent, "", ctx.io);
  GarbageCollector::WarnFunc warn = [recorder](const ObjectRef& dependent,
                                               const std::string& message) {
    client::ObjectReference ref;
    ref.api_version = dependent.api_version;
    ref.kind = dependent.kind;
    ref.namespace_name = dependent.namespace_name;
    ref.name = dependent.name;
    ref.uid = dependent.uid;
    recorder->Event(ref, client::kEventWarning, "OwnerRefInvalidNamespace", message);
  };
  auto gc = GarbageCollector::New(GarbageCollector::Strand(boost::asio::make_strand(ctx.io)),
                                  NewRestObjectClient(client), std::move(warn));
  const int workers = ctx.options.concurrent_gc_syncs > 0 ? ctx.options.concurrent_gc_syncs : 1;
  gc->Run(client, workers, ctx.informers_started);
  return controller::InitResult{.started = true};
}

}  // namespace controller::garbagecollector
