#pragma once
// Bridges work done on another thread (the sqlite writer, an HTTP client) back into the
// coroutine that waits for it. Include from .cc files only.

#include <functional>
#include <memory>

#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/genericserver/server/awaitable.h"

namespace storage {

// Suspends the calling coroutine and calls start(done); done(value), called once from
// any thread, resumes the coroutine on its own executor with value. The coroutine's
// executor counts as busy meanwhile, so its io_context does not run out of work.
template <class T>
Awaitable<T> AwaitCallback(std::function<void(std::function<void(T)>)> start) {
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&, void(T)>(
      [start = std::move(start)](auto handler) mutable {
        using Handler = decltype(handler);
        auto executor = boost::asio::prefer(boost::asio::get_associated_executor(handler),
                                            boost::asio::execution::outstanding_work.tracked);
        auto shared = std::make_shared<Handler>(std::move(handler));
        start([shared, executor](T value) {
          boost::asio::post(executor, [shared, value = std::move(value)]() mutable {
            (*shared)(std::move(value));
          });
        });
      },
      boost::asio::use_awaitable);
}

}  // namespace storage
