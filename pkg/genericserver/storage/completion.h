#pragma once
// Bridges work done on another thread (the sqlite writer, an HTTP client) back into the
// coroutine that waits for it. Include from .cc files only.

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/genericserver/server/awaitable.h"

namespace storage {

// Posts fn to an io_context from a foreign thread, holding work on it until the post has
// returned. Asio signals a waiting I/O thread after it unlocked its queue: without the
// guard, the I/O thread could run fn, run out of work and return from run(), and the
// io_context be destroyed, while this thread is still signalling its condition variable
// (ThreadSanitizer saw it). The caller must know the io_context alive at the call (work
// of its own, such as AwaitCallback's guard, released by fn or later).
template <class F>
void PostFromForeignThread(const boost::asio::io_context::executor_type& executor, F&& fn) {
  auto guard = boost::asio::make_work_guard(executor);
  boost::asio::post(executor, std::forward<F>(fn));
}

// Completions made on one thread between construction and destruction are collected and
// then posted with one post per io_context instead of one each: a writer that completes
// a batch of writes wakes each I/O loop once. Not thread-safe: one per thread at a time.
class CompletionBatch {
 public:
  CompletionBatch() : previous_(current_) { current_ = this; }
  ~CompletionBatch() {
    current_ = previous_;
    for (auto& [executor, fns] : pending_) {
      PostFromForeignThread(executor, [fns = std::move(fns)]() mutable {
        for (auto& fn : fns) fn();
      });
    }
  }
  CompletionBatch(const CompletionBatch&) = delete;
  CompletionBatch& operator=(const CompletionBatch&) = delete;

  static CompletionBatch* Current() { return current_; }
  void Add(const boost::asio::io_context::executor_type& executor, std::function<void()> fn) {
    for (auto& [e, fns] : pending_) {
      if (e == executor) {
        fns.push_back(std::move(fn));
        return;
      }
    }
    pending_.push_back({executor, {std::move(fn)}});
  }

 private:
  static inline thread_local CompletionBatch* current_ = nullptr;
  CompletionBatch* previous_;
  std::vector<std::pair<boost::asio::io_context::executor_type, std::vector<std::function<void()>>>>
      pending_;
};

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
          std::function<void()> resume = [state, value = std::move(value)]() mutable {
            Handler h = std::move(*state->handler);
            state->handler.reset();
            state->work.reset();
            auto strand = boost::asio::get_associated_executor(h);
            boost::asio::dispatch(strand, [h = std::move(h), value = std::move(value)]() mutable {
              h(std::move(value));
            });
          };
          if (CompletionBatch* batch = CompletionBatch::Current()) {
            batch->Add(io_executor, std::move(resume));
          } else {
            PostFromForeignThread(io_executor, std::move(resume));
          }
        });
      },
      boost::asio::use_awaitable);
}

}  // namespace storage
