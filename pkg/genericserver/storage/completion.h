#pragma once
// Bridges work done on another thread (the sqlite writer, an HTTP client) back into the
// coroutine that waits for it. Include from .cc files only.

#include <functional>
#include <memory>
#include <optional>

#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/genericserver/server/awaitable.h"

namespace storage {

// Suspends the calling coroutine and calls start(done); done(value), called once from
// any thread, resumes the coroutine on its own executor (its strand) with value.
//
// The foreign thread keeps nothing that refers to the coroutine's executor: it holds
// only the io_context's plain executor, and the handler, the strand and the work guard
// (which keeps io_context::run() from returning meanwhile) are released on an I/O
// thread. So the io_context may be destroyed as soon as its run() returns. The
// coroutine must run on an io_context.
template <class T>
Awaitable<T> AwaitCallback(std::function<void(std::function<void(T)>)> start) {
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&, void(T)>(
      [start = std::move(start)](auto handler) mutable {
        using Handler = decltype(handler);
        auto& io = static_cast<boost::asio::io_context&>(boost::asio::query(
            boost::asio::get_associated_executor(handler), boost::asio::execution::context));
        struct State {
          std::optional<Handler> handler;
          std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>
              work;
        };
        auto state = std::make_shared<State>();
        state->handler.emplace(std::move(handler));
        state->work.emplace(io.get_executor());
        start([state, io_executor = io.get_executor()](T value) {
          boost::asio::post(io_executor, [state, value = std::move(value)]() mutable {
            Handler h = std::move(*state->handler);
            state->handler.reset();
            state->work.reset();
            auto strand = boost::asio::get_associated_executor(h);
            boost::asio::dispatch(strand, [h = std::move(h), value = std::move(value)]() mutable {
              h(std::move(value));
            });
          });
        });
      },
      boost::asio::use_awaitable);
}

}  // namespace storage
