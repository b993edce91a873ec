#pragma once
// The coroutine type every handler and filter returns. Only Asio's small awaitable
// header is pulled in here; Beast stays inside secure_serving.cc.

#include <utility>  // before Asio: g++ 12 needs std::exchange for Asio's coroutines

#include <boost/asio/awaitable.hpp>

template <class T = void>
using Awaitable = boost::asio::awaitable<T>;
