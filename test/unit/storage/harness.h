#pragma once
// Runs storage coroutines to completion from synchronous Catch2 tests, and makes fresh
// stores of every backend for the shared suite.

#include <utility>  // before Asio, see pkg/genericserver/server/awaitable.h

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/storage/interface.h"
#include "test/unit/support/await.h"

namespace storagetest {

// Runs one coroutine on a private loop and returns its result (rethrowing exceptions).
template <class T>
T Run(Awaitable<T> awaitable) {
  return testsupport::AwaitNow(std::move(awaitable));
}

// Runs io on `threads` threads until it runs out of work. False when it still had work
// after `limit` (something waits for ever, e.g. a lost wake-up): io is then stopped.
bool RunThreads(boost::asio::io_context& io, int threads, std::chrono::milliseconds limit);

// A named way to make an empty store. Stores made by one Backend share nothing.
struct Backend {
  std::string name;
  std::function<std::shared_ptr<storage::Interface>()> make;
};
// Every backend the suite runs against (memory, sqlite, etcd3, and each behind the cacher).
const std::vector<Backend>& AllBackends();
const Backend& FindBackend(const std::string& name);
// Whether the backend is a watch cache in front of a store ("cacher-*").
bool IsCached(const std::string& backend);
std::vector<std::string> BackendNames();

// A fresh directory under /tmp; the caller removes it.
std::string MakeTempDir(const std::string& tag);

// {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":..,"uid":..,"labels":..},"data":..}
std::string ConfigMap(const std::string& name, const std::string& value,
                      const std::string& uid = "uid-1",
                      const std::map<std::string, std::string>& labels = {});
nlohmann::json Parse(const storage::ObjectPtr& o);
std::string RV(const storage::ObjectPtr& o);

}  // namespace storagetest
