// The conversion webhook client: the CRD's webhook settings (upstream's
// webhookClientConfigForCRD) over the shared transport::WebhookClient.
#include "pkg/apiextensions/conversion/webhook.h"

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/conversion/review.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/transport/webhook_client.h"
#include "pkg/util/uuid.h"

namespace apiextensions::conversion {

namespace {

using json = nlohmann::json;

const json* Field(const json* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

std::string StringField(const json* object, std::string_view key) {
  const json* v = Field(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// isEmptyUnstructuredObject: nothing but apiVersion and kind.
bool IsEmptyObject(const json& object) {
  return object.is_object() && object.size() == 2 && object.contains("apiVersion") &&
         object.contains("kind");
}

}  // namespace

struct WebhookConverter::Impl {
  std::shared_ptr<const transport::WebhookClient> client;
};

WebhookConverter::WebhookConverter(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const std::string& WebhookConverter::url() const { return impl_->client->url(); }

std::expected<std::shared_ptr<WebhookConverter>, std::string> WebhookConverter::New(
    const json& crd, ServiceResolver resolve_service, util::Duration timeout) {
  const std::string crd_name = StringField(Field(&crd, "metadata"), "name");
  const json* conversion = Field(Field(&crd, "spec"), "conversion");
  const std::string strategy = StringField(conversion, "strategy");
  if (strategy != "Webhook") {
    return std::unexpected("CustomResourceDefinition " + crd_name +
                           " does not use a conversion webhook (strategy " +
                           apimachinery::validation::GoQuote(strategy) + ")");
  }
  const json* webhook = Field(conversion, "webhook");
  if (webhook == nullptr || !webhook->is_object()) {
    return std::unexpected("CustomResourceDefinition " + crd_name +
                           ": spec.conversion.webhook is required for the Webhook strategy");
  }
  // createConversionReviewObjects: the first version of the list this side speaks. Upstream
  // speaks v1beta1 too; this server only v1.
  bool v1 = false, v1beta1 = false;
  if (const json* versions = Field(webhook, "conversionReviewVersions");
      versions != nullptr && versions->is_array()) {
    for (const json& ver : *versions) {
      if (ver == "v1") v1 = true;
      if (ver == "v1beta1") v1beta1 = true;
    }
  }
  if (!v1) {
    if (v1beta1) {
      return std::unexpected("conversionReviewVersions of CustomResourceDefinition " + crd_name +
                             ": only v1 ConversionReviews are supported by this server");
    }
    return std::unexpected("no supported conversion review versions");
  }

  const json* client_config = Field(webhook, "clientConfig");
  auto client = transport::WebhookClient::New(
      client_config != nullptr ? *client_config : json::object(),
      "conversion_webhook_for_" + crd_name, std::move(resolve_service), timeout);
  if (!client) return std::unexpected(client.error());
  auto impl = std::make_shared<Impl>();
  impl->client = std::move(*client);
  return std::shared_ptr<WebhookConverter>(new WebhookConverter(std::move(impl)));
}

Awaitable<std::expected<std::vector<json>, std::string>> WebhookConverter::Convert(
    std::vector<json> objects, std::string desired_api_version) const {
  // Held by the coroutine: the converter may go away while a call runs.
  std::shared_ptr<const Impl> impl = impl_;
  auto to_gv = ParseGroupVersion(desired_api_version);
  if (!to_gv) co_return std::unexpected(to_gv.error());
  const std::string to = GroupVersionString(*to_gv);
  if (objects.size() == 1 && IsEmptyObject(objects[0])) {
    objects[0]["apiVersion"] = to;
    co_return objects;
  }
  std::vector<size_t> indexes;
  std::vector<json> sent;
  for (size_t i = 0; i < objects.size(); ++i) {
    const json* api_version = Field(&objects[i], "apiVersion");
    if (api_version != nullptr && api_version->is_string() && *api_version == to) continue;
    indexes.push_back(i);
    sent.push_back(objects[i]);
  }
  if (indexes.empty()) co_return objects;

  const std::string label = ObjectGVKString(sent.front());
  const bool single = objects.size() == 1;
  const std::string uid = util::NewUUID();
  std::string body =
      NewConversionReview(uid, to, sent).dump(-1, ' ', false, json::error_handler_t::replace);
  auto answer = co_await transport::WebhookClient::Post(impl->client, std::move(body));
  if (!answer) {
    co_return std::unexpected("conversion webhook for " + label + " failed: Post " +
                              apimachinery::validation::GoQuote(impl->client->url()) + ": " +
                              answer.error());
  }
  auto converted = ReadConversionAnswer(*answer, uid, to, sent, single, label);
  if (!converted) co_return std::unexpected(converted.error());
  for (size_t k = 0; k < indexes.size(); ++k) objects[indexes[k]] = std::move((*converted)[k]);
  co_return objects;
}

}  // namespace apiextensions::conversion
