#pragma once
// An HTTP request as handlers see it: no Beast types, already fully read.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace genericserver {

// Header fields in arrival order; names compare case-insensitively.
class Headers {
 public:
  void Add(std::string name, std::string value);
  // Replaces every field of that name.
  void Set(std::string name, std::string value);
  void Remove(std::string_view name);
  std::optional<std::string_view> Get(std::string_view name) const;
  std::vector<std::string_view> Values(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& Items() const { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// Decoded query parameters, in order; a key may repeat.
class QueryValues {
 public:
  static QueryValues Parse(std::string_view raw_query);
  std::optional<std::string> Get(std::string_view key) const;  // the first value
  std::vector<std::string> Values(std::string_view key) const;
  bool Has(std::string_view key) const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// What the TLS handshake learned about the client certificate, if one was sent. The chain
// is verified against two separate sets of CAs: the client CAs (the certificate is a user)
// and the request-header CAs (the certificate is a front proxy that names the user in
// headers).
struct TlsPeer {
  bool presented = false;
  bool verified = false;                    // chains to a trusted client CA and allows client auth
  std::string verify_error;                 // why not, when presented but not verified
  bool request_header_verified = false;     // chains to a request-header CA, allows client auth
  std::string request_header_verify_error;  // why not (no request-header CA: empty)
  std::string common_name;                  // subject CN
  std::vector<std::string> organizations;   // subject O, in order
};

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: path and query
  std::string path;    // percent-decoded path
  std::string raw_query;
  QueryValues query;
  Headers headers;
  std::string body;
  // The body was over the serving limit and was not read (body is empty); the
  // handler chain answers 413.
  bool body_too_large = false;
  std::string remote_address;  // "ip:port"
  std::shared_ptr<const TlsPeer> peer;
  // Whom a bearer token must be meant for (a TokenReview's spec.audiences, upstream's
  // authenticator.WithAudiences); empty: the server's --api-audiences.
  std::vector<std::string> audiences;

  // Builds method, target, path, raw_query and query from a request target.
  static Request FromTarget(std::string method, std::string target);
};

}  // namespace genericserver
