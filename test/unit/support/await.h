#pragma once
// Runs one coroutine to completion on a private loop, from a synchronous test, and returns
// its result (rethrowing its exception).

#include <utility>  // before Asio, see pkg/genericserver/server/awaitable.h

#include <exception>
#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "pkg/genericserver/server/awaitable.h"

namespace testsupport {

template <class T>
T AwaitNow(Awaitable<T> awaitable) {
  boost::asio::io_context io;
  std::optional<T> result;
  std::exception_ptr error;
  boost::asio::co_spawn(boost::asio::make_strand(io), std::move(awaitable),
                        [&](std::exception_ptr e, T value) {
                          error = e;
                          if (!e) result.emplace(std::move(value));
                        });
  io.run();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

}  // namespace testsupport
