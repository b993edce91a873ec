// WATCH: a chunked stream of newline-delimited {"type":...,"object":...} events, or in
// protobuf of length-prefixed metav1.WatchEvent messages. Ends at
// timeoutSeconds (default: a random 30 to 60 minutes, as upstream), when the client
// goes away, when the server shuts down, or when the storage ends the watch.
#include <random>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/messages.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/genericserver/storage/store.h"

namespace endpoints::handlers {

using nlohmann::json;

namespace {

// timeoutSeconds; absent or 0: a random 30 to 60 minutes, as upstream.
registry::Result<std::chrono::seconds> WatchTimeout(const RequestContext& ctx) {
  int64_t seconds = 0;
  if (auto t = ctx.request.query.Get("timeoutSeconds"); t && !t->empty()) {
    auto parsed = ParseInt(*t);
    if (!parsed) {
      return std::unexpected(apimachinery::NewBadRequest("invalid timeoutSeconds: " + *t));
    }
    seconds = *parsed;
  }
  if (seconds > 0) return std::chrono::seconds(seconds);
  thread_local std::mt19937 rng{std::random_device{}()};
  return std::chrono::seconds(std::uniform_int_distribution<int>(1800, 3599)(rng));
}

// Encodes events in the negotiated form; column definitions go with the first row only.
class EventEncoder {
 public:
  EventEncoder(const Scope& scope, const OutputTarget& target, registry::IncludeObject include)
      : scope_(scope), target_(target), include_(include) {}

  // The content type of the stream: protobuf says it is one; JSON's is that of its objects.
  std::string ContentType() const {
    const std::string type = handlers::ContentType(target_);
    return target_.protobuf ? type + ";stream=watch" : type;
  }

  std::string Encode(const storage::WatchEvent& e) {
    using Type = storage::WatchEvent::Type;
    const std::string type = storage::WatchEventTypeName(e.type);
    if (e.type == Type::kError) {
      apimachinery::Status status =
          e.error && e.error->code == storage::ErrorCode::kTooOldResourceVersion
              ? apimachinery::NewResourceExpired(e.error->message)
              : apimachinery::NewInternalError(e.error ? e.error->message : "watch failed");
      return Frame(type, apimachinery::EncodeStatus(status));
    }
    if (e.type == Type::kBookmark) {
      json bookmark = json::parse(*e.object->json);
      bookmark["kind"] = scope_.spec.kind;
      bookmark["apiVersion"] = scope_.spec.GroupVersion();
      if (target_.kind == Output::kTable) {
        json meta = {{"resourceVersion", bookmark["metadata"].value("resourceVersion", "")}};
        return Frame(type, registry::Table(scope_.spec, json::array(), std::move(meta),
                                           target_.meta_version, false)
                               .dump());
      }
      return Frame(type, bookmark.dump());
    }
    switch (target_.kind) {
      case Output::kTable: {
        const json object = json::parse(*e.object->json);
        json rows =
            json::array({registry::TableRow(scope_.spec, object, include_, target_.meta_version,
                                            std::chrono::system_clock::now())});
        json meta = {{"resourceVersion", object["metadata"].value("resourceVersion", "")}};
        const bool first = !columns_sent_;
        columns_sent_ = true;
        return Frame(type, registry::Table(scope_.spec, std::move(rows), std::move(meta),
                                           target_.meta_version, first)
                               .dump());
      }
      case Output::kPartialObjectMetadata:
        return Frame(type, registry::PartialObjectMetadata(json::parse(*e.object->json),
                                                           target_.meta_version)
                               .dump());
      default:
        if (target_.protobuf) {  // the cached message, shared by every watcher
          if (auto message = ProtobufMessage(*e.object)) {
            return LengthPrefixed(apimachinery::protobuf::EncodeWatchEventFromBody(
                type, apimachinery::protobuf::EncodeObjectFromMessage(scope_.spec.GroupVersion(),
                                                                      scope_.spec.kind, *message)));
          }
        }
        return Frame(type, *e.object->json);  // the stored bytes, shared by every watcher
    }
  }

 private:
  std::string Frame(const std::string& type, const std::string& object) const {
    if (target_.protobuf) return ProtobufFrame(type, object);
    std::string frame;
    frame.reserve(object.size() + type.size() + 24);
    frame += "{\"type\":\"";
    frame += type;
    frame += "\",\"object\":";
    frame += object;
    frame += "}\n";
    return frame;
  }

  // A 4-byte big-endian length, then the WatchEvent message (the object a protobuf body).
  static std::string ProtobufFrame(const std::string& type, const std::string& object) {
    auto event = apimachinery::protobuf::EncodeWatchEvent(type, json::parse(object));
    if (!event) return std::string();  // no message for the kind: not negotiated
    return LengthPrefixed(*event);
  }
  static std::string LengthPrefixed(const std::string& event) {
    std::string frame(4, '\0');
    const auto size = static_cast<std::uint32_t>(event.size());
    for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>(size >> (24 - 8 * i) & 0xff);
    return frame + event;
  }

  const Scope& scope_;
  OutputTarget target_;
  registry::IncludeObject include_;
  bool columns_sent_ = false;
};

}  // namespace

Awaitable<void> ServeWatch(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, true);
  if (!target) co_return;
  auto options = ParseListOptions(ctx, true);
  auto include = registry::ParseIncludeObject(ctx.request.query.Get("includeObject").value_or(""));
  if (!options) {
    co_await WriteError(ctx, out, scope, options.error());
    co_return;
  }
  if (!include) {
    co_await WriteError(ctx, out, scope,
                        apimachinery::NewBadRequest("invalid includeObject value"));
    co_return;
  }
  auto timeout = WatchTimeout(ctx);
  if (!timeout) {
    co_await WriteError(ctx, out, scope, timeout.error());
    co_return;
  }
  if (!scope.name.empty()) {
    // A watch of one object by name: the field selector does the narrowing.
    options->field_selector +=
        (options->field_selector.empty() ? "" : ",") + std::string("metadata.name=") + scope.name;
  }
  auto started = co_await scope.store.Watch(scope.ns, std::move(*options));
  EventEncoder encoder(scope, *target, *include);
  genericserver::Headers headers;
  headers.Set("Content-Type", encoder.ContentType());
  if (!started) {
    // A start too far in the past is answered as upstream does: a stream with one ERROR.
    if (started.error().code != 410) {
      co_await WriteError(ctx, out, scope, started.error());
      co_return;
    }
    if (co_await out.StartStream(200, std::move(headers))) {
      storage::WatchEvent error;
      error.type = storage::WatchEvent::Type::kError;
      error.error = storage::StorageError{storage::ErrorCode::kTooOldResourceVersion, "",
                                          started.error().message, 0, nullptr};
      if (co_await out.WriteChunk(encoder.Encode(error))) co_await out.FinishStream();
    }
    co_return;
  }
  std::shared_ptr<storage::Watcher> watcher = std::move(*started);
  if (!co_await out.StartStream(200, std::move(headers))) {
    watcher->Stop();
    co_return;
  }
  boost::asio::steady_timer deadline(co_await boost::asio::this_coro::executor);
  deadline.expires_after(*timeout);
  deadline.async_wait([watcher](const boost::system::error_code& ec) {
    if (!ec) watcher->Stop();
  });
  uint64_t closer = 0;
  if (scope.lifecycle) closer = scope.lifecycle->OnCloseStreams([watcher] { watcher->Stop(); });
  out.OnClientGone([watcher] { watcher->Stop(); });
  for (;;) {
    auto event = co_await watcher->Next();
    if (!event) break;
    const std::string frame = encoder.Encode(*event);
    if (frame.empty()) continue;                 // (an empty chunk would end the stream)
    if (!co_await out.WriteChunk(frame)) break;  // the client went away
    if (event->type == storage::WatchEvent::Type::kError) break;
  }
  watcher->Stop();
  deadline.cancel();
  if (scope.lifecycle && closer) scope.lifecycle->Unregister(closer);
  co_await out.FinishStream();
}

}  // namespace endpoints::handlers
