// Streaming responses of HttpClient: a POST whose chunked 2xx body is read as it comes and
// handed out a line at a time, reconnected on another endpoint when it breaks.
#include "pkg/genericserver/storage/etcd3/http_client_impl.h"  // first: <utility> before Asio

#include <algorithm>
#include <limits>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/util/log.h"

namespace storage::etcd3 {

namespace {

constexpr size_t kMaxErrorBody = 64 * 1024;
constexpr auto kMinBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::seconds(1);

}  // namespace

void StreamImpl::Close() {
  if (closed_.exchange(true)) return;
  auto client = client_.lock();
  if (!client) return;
  net::post(client->io(), [self = shared_from_this()] { self->Abort(); });
}

void StreamImpl::Abort() {
  if (conn_) conn_->Close();
  if (timer_) timer_->cancel();
}

void HttpClient::Impl::StartStream(std::shared_ptr<StreamImpl> stream) {
  std::lock_guard lock(submit_mu_);
  if (!accepting_) {
    stream->callbacks_.on_end(std::unexpected(Closed()));
    return;
  }
  net::co_spawn(io_, RunStream(std::move(stream)), [](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      KLOG_ERROR << "etcd stream: " << ex.what();
    }
  });
}

Awaitable<void> HttpClient::Impl::RunStream(std::shared_ptr<StreamImpl> s) {
  auto self = shared_from_this();
  streams_.insert(s);
  net::steady_timer timer(io_);
  s->timer_ = &timer;
  std::optional<HttpResult> end;
  std::string failures;
  Clock::time_point down_since = Clock::now();
  Clock::duration backoff = Clock::duration::zero();
  size_t next = preferred_;
  const size_t n = endpoints_.size();
  while (!s->closed() && !stopping_) {
    bool reconnect_now = false;
    for (size_t k = 0; k < n && !s->closed() && !stopping_; ++k) {
      const size_t index = (next + k) % n;
      StreamOutcome o = co_await StreamOnce(*s, index);
      if (o.kind == StreamOutcome::Kind::kStopped) break;
      if (o.kind == StreamOutcome::Kind::kEnded) {
        s->closed_ = true;
        break;
      }
      if (o.kind == StreamOutcome::Kind::kFinal) {
        end = std::move(o.response);
        break;
      }
      if (o.kind == StreamOutcome::Kind::kBroken) {
        // It worked for a while: start over on the next endpoint, at once if it lasted.
        KLOG_V(2) << "etcd stream " << s->path_ << " on " << endpoints_[index].url
                  << " broke: " << o.message;
        failures.clear();
        down_since = Clock::now();
        backoff = o.lasted > std::chrono::seconds(1)
                      ? Clock::duration::zero()
                      : std::clamp<Clock::duration>(backoff * 2, kMinBackoff, kMaxBackoff);
        next = index + 1;
        reconnect_now = true;
        break;
      }
      failures += (failures.empty() ? "" : "; ") + endpoints_[index].url + ": " + o.message;
    }
    if (end || s->closed() || stopping_) break;
    if (!reconnect_now) {
      if (Clock::now() - down_since > options_.stream_retry_for) {
        end = std::unexpected(HttpError{HttpError::Kind::kUnreachable,
                                        "no etcd endpoint answered (" + failures + ")"});
        break;
      }
      backoff = std::clamp<Clock::duration>(backoff * 2, kMinBackoff, kMaxBackoff);
    }
    if (backoff > Clock::duration::zero()) {
      timer.expires_after(backoff);
      beast::error_code ec;
      co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
    }
  }
  s->timer_ = nullptr;
  if (stopping_ && !s->closed()) end = std::unexpected(Closed());
  if (end && !s->closed() && s->callbacks_.on_end) s->callbacks_.on_end(std::move(*end));
  s->callbacks_ = StreamCallbacks();  // drops what the callbacks hold
  streams_.erase(s);
}

Awaitable<HttpClient::Impl::StreamOutcome> HttpClient::Impl::StreamOnce(StreamImpl& s,
                                                                        size_t index) {
  Endpoint& ep = endpoints_[index];
  auto conn = co_await Connect(ep);
  if (!conn) co_return StreamOutcome{StreamOutcome::Kind::kFailed, conn.error(), {}, {}};
  if (s.closed() || stopping_) co_return StreamOutcome{StreamOutcome::Kind::kStopped, "", {}, {}};
  s.conn_ = conn->get();
  StreamOutcome o;
  if ((*conn)->secure) {
    o = co_await StreamOn(*(*conn)->secure, **conn, s, index);
  } else {
    o = co_await StreamOn(*(*conn)->plain, **conn, s, index);
  }
  s.conn_ = nullptr;
  (*conn)->Close();
  co_return o;
}

template <class AsyncStream>
Awaitable<HttpClient::Impl::StreamOutcome> HttpClient::Impl::StreamOn(AsyncStream& stream,
                                                                      Connection& c, StreamImpl& s,
                                                                      size_t index) {
  using Kind = StreamOutcome::Kind;
  const Endpoint& ep = endpoints_[index];
  const auto req = MakeRequest(ep, s.path_, s.callbacks_.body());
  beast::error_code ec;
  c.Tcp().expires_after(options_.request_timeout);
  co_await http::async_write(stream, req, net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return StreamOutcome{Kind::kFailed, ec.message(), {}, {}};
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  co_await http::async_read_header(stream, c.buffer, parser,
                                   net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return StreamOutcome{Kind::kFailed, ec.message(), {}, {}};
  const int status = parser.get().result_int();
  const bool ok = status / 100 == 2;
  const Clock::time_point opened = Clock::now();
  if (ok) {
    preferred_ = index;
    c.Tcp().expires_never();
  }
  std::vector<char> chunk(64 * 1024);
  std::string pending;  // a 2xx body up to its last newline; otherwise the whole body
  while (!parser.is_done() && !s.closed() && !stopping_) {
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    co_await http::async_read_some(stream, c.buffer, parser,
                                   net::redirect_error(net::use_awaitable, ec));
    if (ec == http::error::need_buffer) ec = {};
    pending.append(chunk.data(), chunk.size() - parser.get().body().size);
    if (!ok) {
      if (ec || pending.size() > kMaxErrorBody) break;
      continue;
    }
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(pending.data() + start, nl - start);
      if (line.ends_with('\r')) line.remove_suffix(1);
      if (line.empty()) continue;
      if (s.closed()) co_return StreamOutcome{Kind::kStopped, "", {}, {}};
      const StreamCallbacks::Next next = s.callbacks_.on_line(line);
      if (next == StreamCallbacks::Next::kStop) co_return StreamOutcome{Kind::kEnded, "", {}, {}};
      if (next == StreamCallbacks::Next::kReconnect) {
        co_return StreamOutcome{Kind::kBroken, "reconnect asked", {}, Clock::now() - opened};
      }
    }
    pending.erase(0, start);
    if (ec) break;
  }
  if (s.closed() || stopping_) co_return StreamOutcome{Kind::kStopped, "", {}, {}};
  if (ok) {
    const std::string why = ec ? ec.message() : "the server ended the stream";
    co_return StreamOutcome{Kind::kBroken, why, {}, Clock::now() - opened};
  }
  if (status >= 500) {
    co_return StreamOutcome{
        Kind::kFailed, "HTTP " + std::to_string(status) + " " + pending, {}, {}};
  }
  co_return StreamOutcome{Kind::kFinal, "", HttpResponse{status, std::move(pending), ep.url}, {}};
}
std::shared_ptr<HttpStream> HttpClient::Stream(std::string path, StreamCallbacks callbacks) {
  auto stream = std::make_shared<StreamImpl>(impl_, std::move(path), std::move(callbacks));
  impl_->StartStream(stream);
  return stream;
}

}  // namespace storage::etcd3
