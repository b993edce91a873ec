#include "pkg/genericserver/endpoints/openapi/openapi_v2.h"

#include <expected>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/negotiation.h"
#include "pkg/genericserver/endpoints/openapi/document_cache.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v2_proto.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"
#include "pkg/genericserver/endpoints/openapi/root_documents.h"
#include "pkg/genericserver/endpoints/openapi/serving.h"
#include "pkg/genericserver/endpoints/openapi/swagger.h"
#include "pkg/genericserver/endpoints/openapi/swagger_merge.h"
#include "pkg/genericserver/registry/resource_spec.h"
#include "pkg/genericserver/server/cacheable.h"
#include "pkg/util/log.h"

namespace endpoints::openapi {
namespace {

using nlohmann::json;

constexpr std::string_view kProtobufType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

enum class Form { kJSON, kProtobuf };

// Upstream's three forms, in the order each Accept clause is tried against them.
struct Offer {
  std::string_view subtype;
  Form form;
};
constexpr Offer kOffers[] = {
    {"json", Form::kJSON},
    {"com.github.proto-openapi.spec.v2@v1.0+protobuf", Form::kProtobuf},
    {"com.github.proto-openapi.spec.v2.v1.0+protobuf", Form::kProtobuf},
};

// The first form a clause of Accept (by q, then order; q=0 clauses count too, as upstream's
// goautoneg use has it) allows; nullopt: 406.
std::optional<Form> Negotiate(std::optional<std::string_view> accept) {
  const std::string_view text = accept && !accept->empty() ? *accept : "*/*";
  for (const MediaType& clause : ParseAccept(text)) {
    for (const Offer& offer : kOffers) {
      if ((clause.type == "application" || clause.type == "*") &&
          (clause.subtype == offer.subtype || clause.subtype == "*")) {
        return offer.form;
      }
    }
  }
  return std::nullopt;
}

// The protobuf form of one JSON document.
struct Encoded {
  std::shared_ptr<const CachedDocument> from;
  std::expected<std::string, std::string> body;
};

class Handler final : public genericserver::Handler {
 public:
  Handler(std::function<std::vector<APIGroupInfo>()> groups,
          std::function<std::vector<ExternalV2Document>()> external)
      : groups_(std::move(groups)), external_(std::move(external)) {}

  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    const std::optional<Form> form = Negotiate(ctx.request.headers.Get("Accept"));
    if (!form) {
      genericserver::Response not_acceptable;
      not_acceptable.status = 406;
      not_acceptable.headers.Set("Vary", "Accept");
      co_await out.Respond(std::move(not_acceptable));
      co_return;
    }
    std::shared_ptr<const CachedDocument> document = Document();
    genericserver::Cacheable response;
    response.etag = document->hash;
    response.vary_accept = true;
    response.last_modified = document->modified;
    if (*form == Form::kJSON) {
      response.content_type = "application/json";
      response.body = document->body;
    } else {
      std::shared_ptr<const Encoded> encoded = Protobuf(document);
      if (!encoded->body) {
        genericserver::Response unavailable;
        unavailable.status = 503;
        unavailable.headers.Set("Vary", "Accept");
        co_await out.Respond(std::move(unavailable));
        co_return;
      }
      response.content_type = std::string(kProtobufType);
      response.body = *encoded->body;
    }
    co_await genericserver::WriteCacheable(ctx, out, std::move(response));
  }

 private:
  // The JSON document, rebuilt when the specs or the remote documents changed.
  std::shared_ptr<const CachedDocument> Document() {
    std::vector<APIGroupInfo> groups = groups_();
    std::vector<ExternalV2Document> external =
        external_ ? external_() : std::vector<ExternalV2Document>();
    const json* shared = SharedSchemas(groups);
    std::vector<std::shared_ptr<const void>> inputs;
    inputs.emplace_back(std::shared_ptr<const void>(), shared);  // static data: not owned
    for (const APIGroupInfo& group : groups) {
      for (const auto& [version, specs] : group.specs) {
        for (const registry::ResourceSpecPtr& spec : specs) inputs.push_back(spec);
      }
    }
    for (const ExternalV2Document& document : external) inputs.push_back(document.body);
    return cache_.Get("v2", std::move(inputs), [&] { return Build(groups, external, shared); });
  }

  static std::string Build(const std::vector<APIGroupInfo>& groups,
                           const std::vector<ExternalV2Document>& external, const json* shared) {
    std::vector<json> v3;
    std::vector<std::string> names;
    json definitions_v2 = json::object();
    for (const APIGroupInfo& group : groups) {
      bool served = false;
      for (const auto& [version, specs] : group.specs) {
        if (specs.empty()) continue;
        served = true;
        v3.push_back(BuildGroupVersionDocument(group, version, shared));
        for (const registry::ResourceSpecPtr& spec : specs) {
          if (spec && spec->definitions_v2) definitions_v2.update(*spec->definitions_v2);
        }
      }
      if (served) names.push_back(group.group.name);
    }
    for (const std::string& key : RootDocumentKeys(names)) v3.push_back(BuildRootDocument(key));
    json document = ToSwagger(v3, &definitions_v2);
    for (const ExternalV2Document& remote : external) {
      if (!remote.body) continue;
      json parsed = json::parse(*remote.body, nullptr, false);
      // As upstream skips a document it could not download.
      if (parsed.is_discarded()) continue;
      MergeSwagger(document, parsed, "/apis/" + remote.group + "/" + remote.version + "/");
    }
    return document.dump(-1, ' ', false, json::error_handler_t::replace);
  }

  // The protobuf form of `document`, encoded from its JSON text (so that both say the same,
  // in valid UTF-8) the first time it is asked for.
  std::shared_ptr<const Encoded> Protobuf(const std::shared_ptr<const CachedDocument>& document) {
    {
      std::lock_guard lock(mu_);
      if (encoded_ && encoded_->from == document) return encoded_;
    }
    auto encoded = std::make_shared<Encoded>(Encoded{document, std::string()});
    const json parsed = json::parse(document->body, nullptr, false);
    encoded->body = parsed.is_discarded() ? std::unexpected("the JSON does not parse")
                                          : EncodeOpenAPIV2Proto(parsed);
    if (!encoded->body) {
      KLOG_ERROR << "/openapi/v2 has no protobuf form: " << encoded->body.error();
    }
    std::lock_guard lock(mu_);
    encoded_ = encoded;
    return encoded_;
  }

  std::function<std::vector<APIGroupInfo>()> groups_;
  std::function<std::vector<ExternalV2Document>()> external_;
  DocumentCache cache_;
  std::mutex mu_;
  std::shared_ptr<const Encoded> encoded_;  // of the last document asked for in protobuf
};

}  // namespace

void InstallOpenAPIV2(genericserver::PathMux& mux,
                      std::function<std::vector<APIGroupInfo>()> groups,
                      std::function<std::vector<ExternalV2Document>()> external) {
  mux.Handle("/openapi/v2", std::make_unique<Handler>(std::move(groups), std::move(external)));
}

}  // namespace endpoints::openapi
