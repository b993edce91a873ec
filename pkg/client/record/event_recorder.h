#pragma once
// Recording core/v1 Events about objects, as client-go's record package: one Event per
// (object, type, reason, message, component), named <object>.<hex nanoseconds>, in the
// object's namespace ("default" for cluster-scoped objects); the same event again within
// ten minutes raises its count and lastTimestamp (a patch) instead of making another; a
// spam filter (a token bucket per object: burst 25, one more every 5 minutes) drops floods.
// Recording never blocks and never fails the caller: writes happen on the recorder's
// strand, one at a time in the order recorded, and their failures are logged.
//
// Threads: Event may be called from any thread; all state lives on the recorder's strand.

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>
#include <nlohmann/json_fwd.hpp>

#include "pkg/client/rest/client.h"

namespace client {

struct ObjectReference {
  std::string api_version, kind, namespace_name, name, uid, resource_version;
};
// The reference to an object that carries apiVersion and kind.
ObjectReference ReferenceTo(const nlohmann::json& object);

inline constexpr char kEventNormal[] = "Normal";
inline constexpr char kEventWarning[] = "Warning";

class EventRecorder : public std::enable_shared_from_this<EventRecorder> {
 public:
  static std::shared_ptr<EventRecorder> New(std::shared_ptr<RestClient> client,
                                            std::string component, std::string host,
                                            boost::asio::any_io_executor io);
  void Event(const ObjectReference& object, std::string type, std::string reason,
             std::string message);

 private:
  EventRecorder(std::shared_ptr<RestClient> client, std::string component, std::string host,
                boost::asio::any_io_executor io);
  Awaitable<void> Drain();
  Awaitable<void> Write(ObjectReference object, std::string type, std::string reason,
                        std::string message);

  std::shared_ptr<RestClient> client_;
  const std::string component_, host_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;

  // Strand-owned.
  struct Pending {
    ObjectReference object;
    std::string type, reason, message;
  };
  std::deque<Pending> pending_;
  bool writing_ = false;  // a Drain is running
  struct Recorded {
    std::string namespace_name, name;
    int64_t count = 0;
    Clock::time_point last;
  };
  std::map<std::tuple<std::string, std::string, std::string, std::string>, Recorded> recorded_;
  struct Bucket {
    double tokens = 25;
    Clock::time_point refilled;
  };
  std::map<std::string, Bucket> buckets_;  // by object uid (or namespace/name)
};

}  // namespace client
