#pragma once
// The core/v1 group-version handler over memory storage, driven in-process: what every
// verb handler test talks to.

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "pkg/genericserver/endpoints/installer.h"
#include "pkg/genericserver/storage/factory.h"
#include "test/unit/support/handler_harness.h"

namespace testing {

class CoreAPI {
 public:
  CoreAPI();
  ~CoreAPI();

  // One request through request-info resolution and the handler; headers as "Name: value".
  Recorded Do(std::string method, std::string target, std::string body = "",
              std::vector<std::string> headers = {});
  // The same with `alongside` running meanwhile (a watch and the writes it should see).
  Recorded DoWhile(std::string method, std::string target,
                   std::function<Awaitable<void>()> alongside,
                   std::vector<std::string> headers = {});
  // Creates a configmap in namespace "default" and returns it.
  nlohmann::json CreateConfigMap(const std::string& name, const nlohmann::json& data = {{"k", "v"}},
                                 const nlohmann::json& labels = nlohmann::json::object());
  registry::Store& Store(const std::string& plural);

 private:
  genericserver::RequestContext Request(std::string method, std::string target, std::string body,
                                        const std::vector<std::string>& headers);
  boost::asio::io_context io_;
  std::unique_ptr<storage::StorageFactory> storage_;
  std::map<std::string, std::shared_ptr<registry::Store>> stores_;
  std::unique_ptr<endpoints::GroupVersionHandler> handler_;
};

}  // namespace testing
