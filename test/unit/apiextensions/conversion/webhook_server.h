#pragma once
// A conversion webhook for the tests: HTTPS on 127.0.0.1 (an ephemeral port), one request per
// connection, run on its own thread. The handler sees each ConversionReview and says what to
// answer; RenameField is a working converter between example.com/v1 (spec.host) and
// example.com/v2 (spec.hostname).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/pki/pki.h"

namespace conversion_test {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  bool hang = false;  // read the request, then never answer (the connection stays open)
};

// One request as the server saw it.
struct Seen {
  std::string target;  // request line target: path?query
  std::string host;    // Host header
  std::string sni;     // TLS server name the client sent ("" for none)
  std::string content_type;
  std::string user_agent;
  nlohmann::json review;  // the parsed body (discarded when it did not parse)
};

using Handler = std::function<Reply(const nlohmann::json& review)>;

class WebhookServer {
 public:
  WebhookServer(const pki::KeyPair& serving, Handler handler);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  int port() const;
  std::vector<Seen> seen() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

// The answer of a working webhook: every object renamed between v1's spec.host and v2's
// spec.hostname and given the desired apiVersion, the uid echoed, result Success.
nlohmann::json ConvertedReview(const nlohmann::json& review);
Reply RenameField(const nlohmann::json& review);
Reply JsonReply(const nlohmann::json& review);

// A port on 127.0.0.1 nothing listens on (bound, then released).
int UnusedPort();

}  // namespace conversion_test
