#pragma once
// The whole server chain over memory storage, driven in-process through its filtered
// handler, with the `default` namespace created: what the built-in kind tests talk to.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cmd/kube-apiserver/app/server.h"
#include "test/unit/support/handler_harness.h"

namespace testing {

class Chain {
 public:
  explicit Chain(master::Config master = {});
  ~Chain();
  // One request; headers as "Name: value". JSON bodies by default.
  Recorded Do(std::string method, std::string target, std::string body = "",
              std::vector<std::string> headers = {});
  // POST a JSON object and require 201; returns what was stored.
  nlohmann::json Create(const std::string& collection, const nlohmann::json& object);

 private:
  genericserver::CompletedConfig config_;
  std::unique_ptr<storage::StorageFactory> storage_;
  std::unique_ptr<app::ServerChain> chain_;
};

}  // namespace testing
