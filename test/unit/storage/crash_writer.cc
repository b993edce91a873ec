// A child process for the crash test: writes as fast as it can into a sqlite store and
// prints "<key> <revision>" for every write the store acknowledged, until it is killed.
#include <utility>  // before Asio

#include <cstdio>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DB TAG\n", argv[0]);
    return 2;
  }
  storage::SqliteOptions options;
  options.path = argv[1];
  const std::string tag = argv[2];
  auto kv = storage::SqliteKV::Open(options);
  if (!kv) {
    std::fprintf(stderr, "%s\n", kv.error().c_str());
    return 1;
  }
  boost::asio::io_context io;
  for (int w = 0; w < 16; ++w) {
    boost::asio::co_spawn(
        boost::asio::make_strand(io),
        [kv = *kv, tag, w]() -> Awaitable<void> {
          for (long n = 0;; ++n) {
            std::string key = "/crash/" + tag + "/" + std::to_string(w) + "/" + std::to_string(n);
            std::string value =
                R"({"metadata":{"name":")" + key + R"("},"n":)" + std::to_string(n) + "}";
            auto r = co_await kv->Create(key, value);
            if (!r || !r->succeeded) {
              std::fprintf(stderr, "write %s failed\n", key.c_str());
              continue;
            }
            // One write(2) per line, flushed: what is printed was acknowledged.
            std::printf("%s %lld\n", key.c_str(), static_cast<long long>(r->revision));
            std::fflush(stdout);
          }
        },
        boost::asio::detached);
  }
  io.run();
}
