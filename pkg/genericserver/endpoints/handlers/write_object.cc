#include "pkg/genericserver/endpoints/handlers/write_object.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/messages.h"
#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/genericserver/endpoints/handlers/field_validation.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/genericserver/server/responses.h"

namespace endpoints::handlers {

using nlohmann::json;

namespace {

// Lists bigger than this are sent in chunks as they are assembled.
constexpr size_t kStreamListAbove = 1 << 20;
constexpr size_t kChunk = 256 << 10;

std::string Dump(const json& j, bool pretty) { return (pretty ? j.dump(2) : j.dump()) + "\n"; }

json ListMetadata(const storage::ListResult& list) {
  json meta = {{"resourceVersion", std::to_string(list.revision)}};
  if (!list.continue_token.empty()) meta["continue"] = list.continue_token;
  if (list.remaining_item_count) meta["remainingItemCount"] = *list.remaining_item_count;
  return meta;
}

std::optional<registry::IncludeObject> Include(const RequestContext& ctx) {
  return registry::ParseIncludeObject(ctx.request.query.Get("includeObject").value_or(""));
}

Awaitable<void> Send(ResponseWriter& out, int code, const std::string& type, std::string body) {
  genericserver::Response r;
  r.status = code;
  r.headers.Set("Content-Type", type);
  r.body = std::move(body);
  co_await out.Respond(std::move(r));
}

// The request's warnings as Warning headers, each once (upstream's recorder drops repeats).
void SendWarnings(RequestContext& ctx, ResponseWriter& out) {
  std::vector<std::string> unique;
  for (std::string& w : ctx.warnings) {
    if (std::find(unique.begin(), unique.end(), w) == unique.end()) unique.push_back(std::move(w));
  }
  ctx.warnings.clear();
  AddWarnings(out, unique);
}

// How Go's %T names upstream's internal type of a kind: "*core.ConfigMap",
// "*coordination.Lease".
std::string GoTypeName(const registry::ResourceSpec& spec, const std::string& kind) {
  const std::string package =
      spec.group.empty() ? "core" : spec.group.substr(0, spec.group.find('.'));
  return "*" + package + "." + kind;
}

}  // namespace

std::string ContentType(const OutputTarget& target) {
  const std::string base = target.protobuf ? kProtobufType : "application/json";
  switch (target.kind) {
    case Output::kYAML:
      return "application/yaml";
    case Output::kTable:
      return base + ";as=Table;v=" + target.meta_version + ";g=meta.k8s.io";
    case Output::kPartialObjectMetadata:
      return base + ";as=PartialObjectMetadata" + (target.list ? "List" : "") +
             ";v=" + target.meta_version + ";g=meta.k8s.io";
    case Output::kJSON:
      break;
  }
  return base;
}

std::shared_ptr<const std::string> ProtobufMessage(const storage::Object& object) {
  auto cached = std::atomic_load(&object.protobuf);
  if (cached) return cached;
  auto message = apimachinery::protobuf::EncodeMessageOf(json::parse(*object.json));
  if (!message) return nullptr;
  cached = std::make_shared<const std::string>(std::move(*message));
  std::atomic_store(&object.protobuf, cached);
  return cached;
}

bool ServesProtobuf(const registry::ResourceSpec& spec) {
  return apimachinery::protobuf::KnowsKind(spec.GroupVersion(), spec.kind);
}

bool Pretty(const RequestContext& ctx) {
  if (auto p = ctx.request.query.Get("pretty")) return *p == "true" || *p == "1";
  std::string_view agent = ctx.request.headers.Get("User-Agent").value_or("");
  return agent.starts_with("curl") || agent.starts_with("Wget") || agent.starts_with("Mozilla/5.0");
}

Awaitable<std::optional<OutputTarget>> Negotiate(RequestContext& ctx, ResponseWriter& out,
                                                 const Scope& scope, bool streaming) {
  const bool protobuf = ServesProtobuf(scope.spec);
  // Requests to act (the reviews, evictions, bindings, tokens) have no Table form.
  const bool tables =
      !scope.spec.create_action && !(scope.subresource && scope.subresource->action);
  auto target =
      NegotiateOutput(ctx.request.headers.Get("Accept").value_or(""), streaming, protobuf, tables);
  if (!target) {
    co_await genericserver::WriteStatus(
        out, apimachinery::NewNotAcceptable(SupportedOutputTypes(protobuf, streaming)));
  }
  co_return target;
}

Awaitable<void> WriteError(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                           const apimachinery::Status& status) {
  SendWarnings(ctx, out);
  auto target = NegotiateOutput(ctx.request.headers.Get("Accept").value_or(""), false,
                                ServesProtobuf(scope.spec));
  if (target && (target->kind == Output::kYAML || target->protobuf)) {
    OutputTarget document_target = *target;
    document_target.kind = target->kind == Output::kYAML ? Output::kYAML : Output::kJSON;
    const json document = json::parse(apimachinery::EncodeStatus(status));
    co_await WriteDocument(ctx, out, document_target, status.code, document);
    co_return;
  }
  co_await genericserver::WriteStatus(out, status);
}

namespace {

// A document in the target's form. `as_target`: the document is what the target asks for
// (a Table, PartialObjectMetadata) and its content type says so; otherwise (a Status, an
// object) plain JSON or protobuf.
Awaitable<void> Emit(RequestContext& ctx, ResponseWriter& out, const OutputTarget& target, int code,
                     const json& document, bool as_target) {
  SendWarnings(ctx, out);
  if (target.kind == Output::kYAML) {
    co_await Send(out, code, "application/yaml", apimachinery::yaml::JSONToYAML(document));
    co_return;
  }
  if (target.protobuf) {
    // Every document written in protobuf has a message (a Table is never negotiated in
    // protobuf), so JSON is only a safety net.
    if (auto body = apimachinery::protobuf::EncodeObject(document)) {
      const std::string type = as_target ? ContentType(target) : kProtobufType;
      co_await Send(out, code, type, std::move(*body));
      co_return;
    }
  }
  OutputTarget json_target = target;
  json_target.protobuf = false;
  const std::string type = as_target ? ContentType(json_target) : "application/json";
  co_await Send(out, code, type, Dump(document, Pretty(ctx)));
}

}  // namespace

Awaitable<void> WriteDocument(RequestContext& ctx, ResponseWriter& out, const OutputTarget& target,
                              int code, const json& document) {
  co_await Emit(ctx, out, target, code, document, false);
}

Awaitable<void> WriteObjectMetadata(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                                    const OutputTarget& target, int code, const json& object) {
  if (target.list) {
    co_await WriteError(ctx, out, scope,
                        apimachinery::NewNotAcceptable(
                            "you requested PartialObjectMetadataList, but the requested "
                            "object is not a list (" +
                            GoTypeName(scope.spec, object.value("kind", scope.spec.kind)) + ")"));
    co_return;
  }
  co_await Emit(ctx, out, target, code,
                registry::PartialObjectMetadata(object, target.meta_version), true);
}

Awaitable<void> WriteObject(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                            const OutputTarget& target, int code, const storage::Object& object) {
  SendWarnings(ctx, out);
  switch (target.kind) {
    case Output::kJSON:
      if (target.protobuf) {
        if (auto message = ProtobufMessage(object)) {
          co_await Send(out, code, kProtobufType,
                        apimachinery::protobuf::EncodeObjectFromMessage(scope.spec.GroupVersion(),
                                                                        scope.spec.kind, *message));
        } else {
          co_await Emit(ctx, out, target, code, json::parse(*object.json), true);
        }
      } else if (!Pretty(ctx)) {
        co_await Send(out, code, "application/json", *object.json + "\n");
      } else {
        co_await Send(out, code, "application/json", Dump(json::parse(*object.json), true));
      }
      co_return;
    case Output::kYAML:
      co_await Send(out, code, "application/yaml",
                    apimachinery::yaml::JSONToYAML(json::parse(*object.json)));
      co_return;
    case Output::kTable: {
      auto include = Include(ctx);
      if (!include) {
        co_await WriteError(ctx, out, scope,
                            apimachinery::NewBadRequest("invalid includeObject value"));
        co_return;
      }
      const json parsed = json::parse(*object.json);
      json rows = json::array({registry::TableRow(scope.spec, parsed, *include, target.meta_version,
                                                  std::chrono::system_clock::now())});
      json meta = {{"resourceVersion", parsed["metadata"].value("resourceVersion", "")}};
      co_await Send(out, code, ContentType(target),
                    Dump(registry::Table(scope.spec, std::move(rows), std::move(meta),
                                         target.meta_version, true),
                         Pretty(ctx)));
      co_return;
    }
    case Output::kPartialObjectMetadata:
      co_await WriteObjectMetadata(ctx, out, scope, target, code, json::parse(*object.json));
      co_return;
  }
}

Awaitable<void> WriteList(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                          const OutputTarget& target, const storage::ListResult& list) {
  if (target.kind == Output::kPartialObjectMetadata && !target.list) {
    co_await WriteError(ctx, out, scope,
                        apimachinery::NewNotAcceptable(
                            "you requested PartialObjectMetadata, but the requested object is "
                            "a list (" +
                            GoTypeName(scope.spec, scope.spec.list_kind) + ")"));
    co_return;
  }
  const bool pretty = Pretty(ctx);
  if (target.kind == Output::kJSON && target.protobuf) {
    // The items' cached messages, joined under the list's metadata.
    std::vector<std::shared_ptr<const std::string>> messages;
    for (const auto& item : list.items) {
      auto message = ProtobufMessage(*item);
      if (!message) break;
      messages.push_back(std::move(message));
    }
    if (messages.size() == list.items.size()) {
      auto body = apimachinery::protobuf::EncodeList(
          scope.spec.GroupVersion(), scope.spec.list_kind, ListMetadata(list), messages);
      if (body) {
        co_await Send(out, 200, kProtobufType, std::move(*body));
        co_return;
      }
    }
  }
  if (target.kind == Output::kJSON && !pretty && !target.protobuf) {
    // The stored bytes of each item, joined: no parse, no encode.
    const std::string head = "{\"apiVersion\":\"" + scope.spec.GroupVersion() + "\",\"items\":[";
    const std::string tail = "],\"kind\":\"" + scope.spec.list_kind +
                             "\",\"metadata\":" + ListMetadata(list).dump() + "}\n";
    size_t total = head.size() + tail.size();
    for (const auto& item : list.items) total += item->json->size() + 1;
    if (total <= kStreamListAbove) {
      std::string body;
      body.reserve(total);
      body += head;
      for (size_t i = 0; i < list.items.size(); ++i) {
        if (i) body += ',';
        body += *list.items[i]->json;
      }
      body += tail;
      co_await Send(out, 200, "application/json", std::move(body));
      co_return;
    }
    genericserver::Headers headers;
    headers.Set("Content-Type", "application/json");
    if (!co_await out.StartStream(200, std::move(headers))) co_return;
    std::string chunk = head;
    for (size_t i = 0; i < list.items.size(); ++i) {
      if (i) chunk += ',';
      chunk += *list.items[i]->json;
      if (chunk.size() >= kChunk) {
        if (!co_await out.WriteChunk(chunk)) co_return;
        chunk.clear();
      }
    }
    chunk += tail;
    if (!co_await out.WriteChunk(chunk)) co_return;
    co_await out.FinishStream();
    co_return;
  }
  const auto now = std::chrono::system_clock::now();
  json items = json::array();
  auto include = Include(ctx);
  if (target.kind == Output::kTable && !include) {
    co_await WriteError(ctx, out, scope,
                        apimachinery::NewBadRequest("invalid includeObject value"));
    co_return;
  }
  for (const auto& item : list.items) {
    json parsed = json::parse(*item->json);
    switch (target.kind) {
      case Output::kTable:
        items.push_back(registry::TableRow(scope.spec, parsed, *include, target.meta_version, now));
        break;
      case Output::kPartialObjectMetadata:
        items.push_back(registry::PartialObjectMetadata(parsed, target.meta_version));
        break;
      default:
        items.push_back(std::move(parsed));
    }
  }
  json document;
  if (target.kind == Output::kTable) {
    document = registry::Table(scope.spec, std::move(items), ListMetadata(list),
                               target.meta_version, true);
  } else if (target.kind == Output::kPartialObjectMetadata) {
    document = {{"apiVersion", "meta.k8s.io/" + target.meta_version},
                {"kind", "PartialObjectMetadataList"},
                {"metadata", ListMetadata(list)},
                {"items", std::move(items)}};
  } else {
    document = {{"apiVersion", scope.spec.GroupVersion()},
                {"kind", scope.spec.list_kind},
                {"metadata", ListMetadata(list)},
                {"items", std::move(items)}};
  }
  co_await Emit(ctx, out, target, 200, document, true);
}

}  // namespace endpoints::handlers
