#include "pkg/client/rest/client.h"

#include "pkg/client/rest/token_source.h"

#include <algorithm>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/transport/https_client.h"

namespace client {

namespace net = boost::asio;
using nlohmann::json;

using Strand = net::strand<net::any_io_executor>;

// Every operation on the connection runs on its strand (the socket and Beast's deadline
// timer are used from one place), whichever executor the caller is on.
struct PooledConnection {
  Strand strand;
  std::unique_ptr<transport::Connection> connection;
};

namespace {

constexpr uint64_t kMaxBody = uint64_t{1} << 30;

// Runs `fn` (a coroutine factory) on `strand` and resumes the caller on its own executor.
template <class F>
auto OnStrand(const Strand& strand, F fn) {
  return net::co_spawn(strand, std::move(fn), net::use_awaitable);
}

}  // namespace

std::string ApiError::String() const {
  if (code == 0) return message;
  return message.empty() ? "the server answered " + std::to_string(code) : message;
}

ApiError ErrorFromResponse(int status, std::string_view body) {
  ApiError e;
  e.code = status;
  json parsed = json::parse(body, nullptr, false);
  if (parsed.is_object() && parsed.value("kind", "") == "Status") {
    e.reason = parsed.value("reason", "");
    e.message = parsed.value("message", "");
    if (parsed.contains("code") && parsed["code"].is_number_integer()) {
      e.code = parsed["code"].get<int>();
    }
  } else {
    e.message = std::string(body.substr(0, 1024));
  }
  return e;
}

// ---------------------------------------------------------------------------------------
// Stream

Stream::Stream(std::unique_ptr<PooledConnection> connection, Clock::duration idle_timeout)
    : connection_(std::move(connection)), idle_timeout_(idle_timeout) {}
Stream::~Stream() = default;

void Stream::Close() { connection_->connection->Close(); }

Awaitable<std::expected<std::optional<std::string>, std::string>> Stream::Next() {
  while (true) {
    // Scan for the end of the next top-level JSON value.
    for (; scanned_ < buffer_.size(); ++scanned_) {
      const char c = buffer_[scanned_];
      if (in_string_) {
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if (c == '"') {
          in_string_ = false;
        }
        continue;
      }
      if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
        started_ = true;
      } else if (c == '}' || c == ']') {
        if (--depth_ == 0 && started_) {
          std::string doc = buffer_.substr(0, scanned_ + 1);
          buffer_.erase(0, scanned_ + 1);
          scanned_ = 0;
          started_ = false;
          co_return std::optional<std::string>(std::move(doc));
        }
      }
    }
    PooledConnection& pc = *connection_;
    const Clock::time_point deadline = Clock::now() + idle_timeout_;
    auto read_some =
        [&pc, deadline]() -> Awaitable<std::expected<std::optional<std::string>, std::string>> {
      co_return co_await pc.connection->ReadSome(deadline);
    };
    auto piece = co_await OnStrand(pc.strand, read_some);
    if (!piece) co_return std::unexpected(piece.error());
    if (!*piece) co_return std::optional<std::string>();
    buffer_ += **piece;
  }
}

// ---------------------------------------------------------------------------------------
// RestClient

std::expected<std::shared_ptr<RestClient>, std::string> RestClient::New(const RestConfig& config,
                                                                        std::string user_agent,
                                                                        net::any_io_executor io) {
  std::shared_ptr<RestClient> c(new RestClient());
  c->config_ = config;
  c->user_agent_ = std::move(user_agent);
  c->io_ = std::move(io);
  std::string_view rest = config.host;
  if (!rest.starts_with("https://")) {
    return std::unexpected("host " + config.host + ": only https:// servers are supported");
  }
  rest.remove_prefix(8);
  const size_t slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    c->path_prefix_ = std::string(rest.substr(slash));
    while (c->path_prefix_.ends_with('/')) c->path_prefix_.pop_back();
  }
  if (auto split = transport::SplitHostPort(hostport)) {
    c->host_ = split->first;
    c->port_ = split->second;
  } else {
    c->host_ = std::string(hostport);
    if (c->host_.starts_with('[') && c->host_.ends_with(']')) {
      c->host_ = c->host_.substr(1, c->host_.size() - 2);
    }
    c->port_ = "443";
  }
  if (c->host_.empty()) return std::unexpected("host " + config.host + ": no host name");
  c->server_name_ = config.tls_server_name.empty() ? c->host_ : config.tls_server_name;
  transport::TLSClientConfig tls;
  tls.ca_pem = config.ca_pem;
  tls.insecure_skip_verify = config.insecure_skip_tls_verify;
  tls.cert_pem = config.cert_pem;
  tls.key_pem = config.key_pem;
  auto made = transport::TLSClient::New(tls);
  if (!made) return std::unexpected(made.error());
  c->tls_ = std::move(*made);
  c->tokens_ = std::max(1, config.burst);
  c->last_refill_ = Clock::now();
  return c;
}

RestClient::~RestClient() = default;

uint64_t RestClient::RequestCount() const {
  std::lock_guard lock(mu_);
  return requests_;
}

Awaitable<void> RestClient::WaitForToken() {
  Clock::duration wait{};
  {
    std::lock_guard lock(mu_);
    ++requests_;
    if (config_.qps <= 0) co_return;  // unlimited
    const Clock::time_point now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - last_refill_).count();
    last_refill_ = now;
    tokens_ = std::min<double>(std::max(1, config_.burst), tokens_ + elapsed * config_.qps);
    tokens_ -= 1;  // reserved, even if not yet available: later callers wait behind it
    if (tokens_ < 0) {
      wait = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(-tokens_ / config_.qps));
    }
  }
  if (wait > Clock::duration::zero()) {
    net::steady_timer timer(co_await net::this_coro::executor, wait);
    co_await timer.async_wait(net::use_awaitable);
  }
}

Awaitable<std::expected<genericserver::Headers, std::string>> RestClient::Headers(
    std::string accept) const {
  genericserver::Headers headers;
  headers.Set("Host", port_ == "443" ? host_ : host_ + ":" + port_);
  headers.Set("User-Agent", user_agent_);
  if (!accept.empty()) headers.Set("Accept", accept);
  std::string token = config_.bearer_token;
  if (config_.token_source) {
    auto got = co_await config_.token_source->Token();
    if (!got) co_return std::unexpected("getting a token: " + got.error());
    token = std::move(*got);
  }
  if (!token.empty()) headers.Set("Authorization", "Bearer " + token);
  co_return headers;
}

std::unique_ptr<PooledConnection> RestClient::TakeIdle() {
  std::lock_guard lock(mu_);
  if (idle_.empty()) return nullptr;
  auto c = std::move(idle_.back());
  idle_.pop_back();
  return c;
}

void RestClient::PutIdle(std::unique_ptr<PooledConnection> c) {
  std::lock_guard lock(mu_);
  constexpr size_t kMaxIdle = 16;
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(c));
}

Awaitable<std::expected<std::unique_ptr<PooledConnection>, std::string>> RestClient::Connect(
    Clock::time_point deadline) {
  auto pc = std::make_unique<PooledConnection>(
      PooledConnection{net::make_strand(io_), std::unique_ptr<transport::Connection>()});
  auto dial = [this, deadline]()
      -> Awaitable<std::expected<std::unique_ptr<transport::Connection>, std::string>> {
    co_return co_await transport::Connection::Dial(tls_, host_, port_, server_name_, deadline);
  };
  auto dialed = co_await OnStrand(pc->strand, dial);
  if (!dialed) co_return std::unexpected(dialed.error());
  pc->connection = std::move(*dialed);
  co_return pc;
}

namespace {

struct Exchange {
  bool sent = false;  // the request left (a failure after it may have been processed)
  std::expected<transport::ResponseHead, std::string> head = std::unexpected(std::string());
};

}  // namespace

Awaitable<Result<RawResponse>> RestClient::Do(std::string method, std::string target,
                                              std::string body, std::string content_type,
                                              std::string accept, Clock::duration timeout) {
  co_await WaitForToken();
  const Clock::time_point deadline = Clock::now() + timeout;
  auto made_headers = co_await Headers(accept);
  if (!made_headers) {
    co_return std::unexpected(ApiError{0, "", method + " " + target + ": " + made_headers.error()});
  }
  genericserver::Headers headers = std::move(*made_headers);
  if (!content_type.empty()) headers.Set("Content-Type", content_type);
  const std::string path = path_prefix_ + target;
  const bool idempotent =
      method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE";
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<PooledConnection> pc = attempt == 0 ? TakeIdle() : nullptr;
    const bool reused = pc != nullptr;
    if (!pc) {
      auto made = co_await Connect(deadline);
      if (!made)
        co_return std::unexpected(ApiError{0, "", method + " " + target + ": " + made.error()});
      pc = std::move(*made);
    }
    transport::Connection& conn = *pc->connection;
    auto send_and_read_head = [&]() -> Awaitable<Exchange> {
      Exchange x;
      auto sent = co_await conn.Send(method, path, headers, body, deadline);
      if (!sent) {
        x.head = std::unexpected(sent.error());
        co_return x;
      }
      x.sent = true;
      x.head = co_await conn.ReadHead(deadline);
      co_return x;
    };
    auto exchange = co_await OnStrand(pc->strand, send_and_read_head);
    if (!exchange.head) {
      // A kept-alive connection the server closed meanwhile: try once on a new one.
      if (reused && (!exchange.sent || idempotent)) continue;
      co_return std::unexpected(
          ApiError{0, "", method + " " + target + ": " + exchange.head.error()});
    }
    auto read_body = [&]() -> Awaitable<std::expected<std::string, std::string>> {
      co_return co_await conn.ReadAll(kMaxBody, deadline);
    };
    auto all = co_await OnStrand(pc->strand, read_body);
    if (!all) {
      co_return std::unexpected(ApiError{0, "", method + " " + target + ": " + all.error()});
    }
    RawResponse r;
    r.status = exchange.head->status;
    r.content_type = std::string(exchange.head->headers.Get("Content-Type").value_or(""));
    r.body = std::move(*all);
    if (exchange.head->keep_alive) PutIdle(std::move(pc));
    co_return r;
  }
}

Awaitable<Result<json>> RestClient::Json(std::string method, std::string target, const json* body,
                                         std::string content_type, Clock::duration timeout) {
  std::string payload = body ? body->dump() : std::string();
  std::string type = body ? std::move(content_type) : std::string();
  auto r = co_await Do(std::move(method), std::move(target), std::move(payload), std::move(type),
                       "application/json", timeout);
  if (!r) co_return std::unexpected(r.error());
  if (r->status < 200 || r->status > 299) {
    co_return std::unexpected(ErrorFromResponse(r->status, r->body));
  }
  if (r->body.empty()) co_return json::object();
  json parsed = json::parse(r->body, nullptr, false);
  if (parsed.is_discarded()) {
    co_return std::unexpected(ApiError{0, "", "the server's answer is not JSON"});
  }
  co_return parsed;
}

Awaitable<Result<json>> RestClient::Get(std::string target) {
  return Json("GET", std::move(target));
}
Awaitable<Result<json>> RestClient::Post(std::string target, const json& body) {
  return Json("POST", std::move(target), &body);
}
Awaitable<Result<json>> RestClient::Put(std::string target, const json& body) {
  return Json("PUT", std::move(target), &body);
}
Awaitable<Result<json>> RestClient::Delete(std::string target, const json* options) {
  return Json("DELETE", std::move(target), options);
}
Awaitable<Result<json>> RestClient::Patch(std::string target, const json& patch,
                                          std::string content_type) {
  return Json("PATCH", std::move(target), &patch, std::move(content_type));
}

Awaitable<Result<std::unique_ptr<Stream>>> RestClient::OpenStream(std::string target,
                                                                  std::string accept,
                                                                  Clock::duration idle_timeout) {
  co_await WaitForToken();
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(30);
  auto made = co_await Connect(deadline);
  if (!made) co_return std::unexpected(ApiError{0, "", "GET " + target + ": " + made.error()});
  std::unique_ptr<PooledConnection> pc = std::move(*made);
  auto made_headers = co_await Headers(accept);
  if (!made_headers) {
    co_return std::unexpected(ApiError{0, "", "GET " + target + ": " + made_headers.error()});
  }
  genericserver::Headers headers = std::move(*made_headers);
  transport::Connection& conn = *pc->connection;
  const std::string path = path_prefix_ + target;
  auto open = [&]() -> Awaitable<std::expected<transport::ResponseHead, std::string>> {
    auto sent = co_await conn.Send("GET", path, headers, "", deadline);
    if (!sent) co_return std::unexpected(sent.error());
    co_return co_await conn.ReadHead(deadline);
  };
  auto head = co_await OnStrand(pc->strand, open);
  if (!head) co_return std::unexpected(ApiError{0, "", "GET " + target + ": " + head.error()});
  if (head->status != 200) {
    auto read_error = [&]() -> Awaitable<std::expected<std::string, std::string>> {
      co_return co_await conn.ReadAll(1 << 20, deadline);
    };
    auto all = co_await OnStrand(pc->strand, read_error);
    co_return std::unexpected(ErrorFromResponse(head->status, all ? *all : std::string()));
  }
  co_return std::make_unique<Stream>(std::move(pc), idle_timeout);
}

}  // namespace client
