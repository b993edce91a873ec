#include "pkg/genericserver/authn/token_file.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace authn {
namespace {

// Reads one CSV record (RFC 4180: quoted fields, "" inside quotes) starting at pos.
// Returns false at the end of input; blank lines are skipped.
std::expected<bool, std::string> ReadRecord(std::string_view s, size_t& pos, int& line,
                                            std::vector<std::string>& fields) {
  fields.clear();
  while (pos < s.size() && (s[pos] == '\n' || s[pos] == '\r')) {
    if (s[pos] == '\n') ++line;
    ++pos;
  }
  if (pos >= s.size()) return false;
  ++line;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (; pos < s.size(); ++pos) {
    char c = s[pos];
    if (quoted) {
      if (c == '"') {
        if (pos + 1 < s.size() && s[pos + 1] == '"') {
          field.push_back('"');
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      was_quoted = false;
    } else if (c == '\n') {
      break;
    } else if (c == '\r' && pos + 1 < s.size() && s[pos + 1] == '\n') {
      // part of a CRLF line end
    } else if (was_quoted) {
      return std::unexpected("record on line " + std::to_string(line) +
                             ": extraneous or missing \" in quoted-field");
    } else {
      field.push_back(c);
    }
  }
  if (quoted) {
    return std::unexpected("record on line " + std::to_string(line) +
                           ": extraneous or missing \" in quoted-field");
  }
  fields.push_back(std::move(field));
  if (pos < s.size()) ++pos;  // the '\n'
  return true;
}

}  // namespace

std::expected<std::shared_ptr<TokenFileAuthenticator>, std::string> TokenFileAuthenticator::Load(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected("open " + path + ": no such file or not readable");
  std::ostringstream contents;
  contents << in.rdbuf();
  return Parse(contents.str(), path);
}

std::expected<std::shared_ptr<TokenFileAuthenticator>, std::string> TokenFileAuthenticator::Parse(
    std::string_view contents, const std::string& path) {
  auto auth = std::make_shared<TokenFileAuthenticator>();
  size_t pos = 0;
  int line = 0, record = 0;
  std::vector<std::string> fields;
  for (;;) {
    auto more = ReadRecord(contents, pos, line, fields);
    if (!more) return std::unexpected("token file '" + path + "': " + more.error());
    if (!*more) break;
    if (fields.size() < 3) {
      return std::unexpected("token file '" + path +
                             "' must have at least 3 columns (token, user name, user uid), found " +
                             std::to_string(fields.size()));
    }
    ++record;
    if (fields[0].empty()) {
      KLOG_WARNING << "empty token has been found in token file '" << path << "', record number '"
                   << record << "'";
      continue;
    }
    if (auth->tokens_.contains(fields[0])) {
      KLOG_WARNING << "duplicate token has been found in token file '" << path
                   << "', record number '" << record << "'";
    }
    UserInfo user;
    user.name = fields[1];
    user.uid = fields[2];
    if (fields.size() >= 4) user.groups = util::Split(fields[3], ',');
    auth->tokens_[fields[0]] = std::move(user);
  }
  return auth;
}

std::string_view BearerToken(const genericserver::Request& request) {
  auto header = request.headers.Get("Authorization");
  if (!header) return {};
  std::string_view auth = util::TrimSpace(*header);
  size_t space = auth.find(' ');
  if (space == std::string_view::npos) return {};
  if (!util::EqualsIgnoreCase(auth.substr(0, space), "bearer")) return {};
  std::string_view token = auth.substr(space + 1);
  return token.substr(0, token.find(' '));
}

AuthenticateResult TokenFileAuthenticator::Authenticate(
    const genericserver::Request& request) const {
  std::string_view token = BearerToken(request);
  if (token.empty()) return std::nullopt;
  auto it = tokens_.find(token);
  // Another authenticator's token, perhaps: no opinion, as upstream's token file.
  if (it == tokens_.end()) return std::nullopt;
  return it->second;
}

}  // namespace authn
