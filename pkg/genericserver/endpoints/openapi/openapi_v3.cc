// InstallOpenAPIV3: the /openapi/v3 index and documents, with upstream's HTTP behaviour
// (kube-openapi handler3 behind the kube-aggregator):
// - GET /openapi/v3: {"paths":{"<key>":{"serverRelativeURL":"/openapi/v3/<key>?hash=<H>"}}}
//   for every group-version with resources and the root documents (api, apis, apis/<group>,
//   version); no ETag; Content-Type as Go's http.ServeContent sniffs JSON (text/plain).
// - GET /openapi/v3/<key>: the document as application/json, ETag "<H>", Vary: Accept,
//   Last-Modified; If-None-Match -> 304. With ?hash=<H>: Cache-Control "public, immutable"
//   and Expires a year ahead; with a stale hash: 301 to the current URL. Unknown key: an empty
//   404 (the aggregator's). Accept must allow JSON: 406 (empty) otherwise; upstream would
//   answer the protobuf form, which is not implemented here.

#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"

#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/negotiation.h"
#include "pkg/genericserver/endpoints/openapi/document_cache.h"
#include "pkg/genericserver/endpoints/openapi/root_documents.h"
#include "pkg/genericserver/endpoints/openapi/routes.h"
#include "pkg/genericserver/endpoints/openapi/serving.h"
#include "pkg/genericserver/registry/resource_spec.h"
#include "pkg/genericserver/server/cacheable.h"

namespace endpoints::openapi {
namespace {

constexpr std::string_view kPrefix = "/openapi/v3/";

// What a document is built from: a group-version of a group, or nothing (root documents).
struct Source {
  const APIGroupInfo* group = nullptr;
  std::string version;
  std::string root_key;                         // set for root documents
  std::shared_ptr<const std::string> external;  // set for external documents
};

std::string Key(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

std::map<std::string, Source> Sources(const std::vector<APIGroupInfo>& groups,
                                      const ExternalDocuments& external) {
  std::map<std::string, Source> sources;
  std::vector<std::string> names;
  for (const APIGroupInfo& group : groups) {
    bool served = false;
    for (const auto& [version, specs] : group.specs) {
      if (specs.empty()) continue;
      served = true;
      sources.try_emplace(Key(group.group.name, version), Source{&group, version, "", nullptr});
    }
    if (served) names.push_back(group.group.name);
  }
  for (const std::string& key : RootDocumentKeys(names)) {
    sources.try_emplace(key, Source{nullptr, "", key, nullptr});
  }
  for (const auto& [key, body] : external) {
    if (body) sources.try_emplace(key, Source{nullptr, "", "", body});
  }
  return sources;
}

std::string HttpTime(std::time_t t, const char* zone) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S ", &tm);
  return std::string(buf, n) + zone;
}

// time.Now().AddDate(1, 0, 0).Format(time.RFC1123), in UTC.
std::string OneYearAhead() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  tm.tm_year += 1;
  return HttpTime(timegm(&tm), "UTC");
}

class Service {
 public:
  Service(std::function<std::vector<APIGroupInfo>()> groups,
          std::function<ExternalDocuments()> external)
      : groups_(std::move(groups)), external_(std::move(external)) {}

  Awaitable<void> ServeIndex(genericserver::RequestContext&, genericserver::ResponseWriter& out) {
    std::vector<APIGroupInfo> groups = groups_();
    std::map<std::string, Source> sources = Sources(groups, External());
    const nlohmann::json* shared = SharedSchemas(groups);
    nlohmann::json paths = nlohmann::json::object();
    std::set<std::string> keys;
    for (const auto& [key, source] : sources) {
      std::shared_ptr<const CachedDocument> document = Document(key, source, shared);
      paths[key] = {{"serverRelativeURL", std::string(kPrefix) + key + "?hash=" + document->hash}};
      keys.insert(key);
    }
    cache_.Retain(keys);
    nlohmann::json index = {{"paths", std::move(paths)}};
    genericserver::Response r;
    r.headers.Set("Content-Type", "text/plain; charset=utf-8");
    r.headers.Set("Last-Modified", HttpTime(std::time(nullptr), "GMT"));
    r.body = index.dump();
    co_await out.Respond(std::move(r));
  }

  Awaitable<void> ServeDocument(genericserver::RequestContext& ctx,
                                genericserver::ResponseWriter& out) {
    const std::string key = ctx.request.path.substr(kPrefix.size());
    std::vector<APIGroupInfo> groups = groups_();
    std::map<std::string, Source> sources = Sources(groups, External());
    auto source = sources.find(key);
    if (source == sources.end()) {
      genericserver::Response not_found;
      not_found.status = 404;
      co_await out.Respond(std::move(not_found));
      co_return;
    }
    out.ExtraHeaders().Set("Vary", "Accept");
    if (!AcceptsJSON(ctx.request.headers.Get("Accept"))) {
      genericserver::Response not_acceptable;
      not_acceptable.status = 406;
      co_await out.Respond(std::move(not_acceptable));
      co_return;
    }
    std::shared_ptr<const CachedDocument> document =
        Document(key, source->second, SharedSchemas(groups));
    const std::string url = std::string(kPrefix) + key + "?hash=" + document->hash;
    std::optional<std::string> hash = ctx.request.query.Get("hash");
    if (hash && !hash->empty() && *hash != document->hash) {
      genericserver::Response moved;
      moved.status = 301;
      moved.headers.Set("Content-Type", "application/json");
      moved.headers.Set("ETag", "\"" + document->hash + "\"");
      moved.headers.Set("Location", url);
      co_await out.Respond(std::move(moved));
      co_return;
    }
    // Set on the writer's extra fields so that they replace the filters' no-cache default.
    if (hash && !hash->empty()) {
      out.ExtraHeaders().Set("Cache-Control", "public, immutable");
      out.ExtraHeaders().Set("Expires", OneYearAhead());
    } else {
      out.ExtraHeaders().Set("Cache-Control", "no-cache, private");
    }
    // Go's 304 drops Last-Modified when there is an ETag; only a 200 carries it.
    if (!ctx.request.headers.Get("If-None-Match")) {
      out.ExtraHeaders().Set(
          "Last-Modified",
          HttpTime(std::chrono::system_clock::to_time_t(document->modified), "GMT"));
    }
    genericserver::Cacheable response;
    response.content_type = "application/json";
    response.body = document->body;
    response.etag = document->hash;
    // Vary is already among the extra fields (a second one would be a duplicate).
    co_await genericserver::WriteCacheable(ctx, out, std::move(response));
  }

 private:
  ExternalDocuments External() const { return external_ ? external_() : ExternalDocuments(); }

  std::shared_ptr<const CachedDocument> Document(const std::string& key, const Source& source,
                                                 const nlohmann::json* shared) {
    std::vector<std::shared_ptr<const void>> inputs;
    if (source.external) {
      inputs.push_back(source.external);
      return cache_.Get(key, std::move(inputs), [&] { return *source.external; });
    }
    if (source.group) {
      // Non-owning: the shared schemas are static data.
      inputs.emplace_back(std::shared_ptr<const void>(), shared);
      for (const registry::ResourceSpecPtr& spec : source.group->specs.at(source.version)) {
        inputs.push_back(spec);
      }
    }
    return cache_.Get(key, std::move(inputs), [&] {
      nlohmann::json document =
          source.group ? BuildGroupVersionDocument(*source.group, source.version, shared)
                       : BuildRootDocument(source.root_key);
      return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    });
  }

  std::function<std::vector<APIGroupInfo>()> groups_;
  std::function<ExternalDocuments()> external_;
  DocumentCache cache_;
};

class IndexHandler final : public genericserver::Handler {
 public:
  explicit IndexHandler(std::shared_ptr<Service> service) : service_(std::move(service)) {}
  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    co_await service_->ServeIndex(ctx, out);
  }

 private:
  std::shared_ptr<Service> service_;
};

class DocumentHandler final : public genericserver::Handler {
 public:
  explicit DocumentHandler(std::shared_ptr<Service> service) : service_(std::move(service)) {}
  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    co_await service_->ServeDocument(ctx, out);
  }

 private:
  std::shared_ptr<Service> service_;
};

}  // namespace

void InstallOpenAPIV3(genericserver::PathMux& mux,
                      std::function<std::vector<APIGroupInfo>()> groups,
                      std::function<ExternalDocuments()> external) {
  auto service = std::make_shared<Service>(std::move(groups), std::move(external));
  mux.Handle("/openapi/v3", std::make_unique<IndexHandler>(service));
  mux.HandlePrefix(std::string(kPrefix), std::make_unique<DocumentHandler>(service));
}

}  // namespace endpoints::openapi
