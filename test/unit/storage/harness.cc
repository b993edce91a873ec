#include "test/unit/storage/harness.h"

#include <stdexcept>

#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/store.h"

namespace storagetest {

const std::vector<Backend>& AllBackends() {
  static const std::vector<Backend> backends = {
      {"memory",
       [] { return std::make_shared<storage::Store>(storage::MemoryKV::New(), "/registry"); }},
  };
  return backends;
}

const Backend& FindBackend(const std::string& name) {
  for (const Backend& b : AllBackends()) {
    if (b.name == name) return b;
  }
  throw std::runtime_error("no backend " + name);
}

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (const Backend& b : AllBackends()) names.push_back(b.name);
  return names;
}

std::string ConfigMap(const std::string& name, const std::string& value, const std::string& uid,
                      const std::map<std::string, std::string>& labels) {
  nlohmann::ordered_json j;
  j["kind"] = "ConfigMap";
  j["apiVersion"] = "v1";
  j["metadata"]["name"] = name;
  j["metadata"]["uid"] = uid;
  if (!labels.empty()) j["metadata"]["labels"] = labels;
  j["data"]["value"] = value;
  return j.dump();
}

nlohmann::json Parse(const storage::ObjectPtr& o) { return nlohmann::json::parse(*o->json); }

std::string RV(const storage::ObjectPtr& o) {
  return Parse(o)["metadata"]["resourceVersion"].get<std::string>();
}

}  // namespace storagetest
