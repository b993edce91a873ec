#include "pkg/genericserver/audit/backend.h"

namespace audit {
namespace {

class UnionBackend final : public Backend {
 public:
  explicit UnionBackend(std::vector<BackendPtr> backends) : backends_(std::move(backends)) {}
  void ProcessEvent(EventPtr event) override {
    for (const BackendPtr& b : backends_) b->ProcessEvent(event);
  }
  void Shutdown() override {
    for (const BackendPtr& b : backends_) b->Shutdown();
  }

 private:
  std::vector<BackendPtr> backends_;
};

}  // namespace

BackendPtr Union(std::vector<BackendPtr> backends) {
  if (backends.empty()) return nullptr;
  if (backends.size() == 1) return backends.front();
  return std::make_shared<UnionBackend>(std::move(backends));
}

}  // namespace audit
