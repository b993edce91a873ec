#include "pkg/genericserver/endpoints/discovery_handler.h"

#include "pkg/genericserver/endpoints/negotiation.h"
#include "pkg/genericserver/server/cacheable.h"

namespace endpoints {

std::string NegotiateDiscovery(std::string_view accept) {
  for (const MediaType& m : ParseAccept(accept)) {
    if (m.q <= 0) continue;
    const std::string essence = m.Essence();
    if (essence == "*/*" || essence == "application/*") return "";
    if (essence != "application/json") continue;
    const std::string v = m.Param("v");
    if (m.Param("g") == "apidiscovery.k8s.io" && m.Param("as") == "APIGroupDiscoveryList" &&
        (v == "v2" || v == "v2beta1")) {
      return "apidiscovery.k8s.io/" + v;
    }
    if (m.Param("as").empty()) return "";
  }
  return "";
}

genericserver::HandlerPtr NewDiscoveryHandler(DiscoveryDocuments documents) {
  return genericserver::MakeHandler(
      [documents = std::move(documents)](genericserver::RequestContext& ctx,
                                         genericserver::ResponseWriter& out) -> Awaitable<void> {
        auto accept = ctx.request.headers.Get("Accept");
        const std::string api_version = NegotiateDiscovery(accept ? *accept : "");
        genericserver::Cacheable response;
        response.vary_accept = true;
        if (api_version.empty()) {
          response.content_type = "application/json";
          response.body = documents.legacy();
        } else {
          const std::string version = api_version.substr(api_version.find('/') + 1);
          response.content_type =
              "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList";
          response.body = EncodeAPIGroupDiscoveryList(documents.groups(), api_version);
        }
        co_await genericserver::WriteCacheable(ctx, out, std::move(response));
      });
}

}  // namespace endpoints
