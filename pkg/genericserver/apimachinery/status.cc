#include "pkg/genericserver/apimachinery/status.h"

#include <nlohmann/json.hpp>

#include "pkg/util/strings.h"

namespace apimachinery {

std::string GroupResource::String() const {
  return group.empty() ? resource : resource + "." + group;
}

std::string EncodeStatus(const Status& s) {
  nlohmann::ordered_json j;
  j["kind"] = "Status";
  j["apiVersion"] = "v1";
  j["metadata"] = nlohmann::ordered_json::object();
  if (!s.status.empty()) j["status"] = s.status;
  if (!s.message.empty()) j["message"] = s.message;
  if (!s.reason.empty()) j["reason"] = s.reason;
  if (s.details) {
    nlohmann::ordered_json d = nlohmann::ordered_json::object();
    const StatusDetails& sd = *s.details;
    if (!sd.name.empty()) d["name"] = sd.name;
    if (!sd.group.empty()) d["group"] = sd.group;
    if (!sd.kind.empty()) d["kind"] = sd.kind;
    if (!sd.uid.empty()) d["uid"] = sd.uid;
    if (!sd.causes.empty()) {
      nlohmann::ordered_json causes = nlohmann::ordered_json::array();
      for (const StatusCause& c : sd.causes) {
        nlohmann::ordered_json cj = nlohmann::ordered_json::object();
        if (!c.reason.empty()) cj["reason"] = c.reason;
        if (!c.message.empty()) cj["message"] = c.message;
        if (!c.field.empty()) cj["field"] = c.field;
        causes.push_back(std::move(cj));
      }
      d["causes"] = std::move(causes);
    }
    if (sd.retry_after_seconds) d["retryAfterSeconds"] = sd.retry_after_seconds;
    j["details"] = std::move(d);
  }
  if (s.code != 0) j["code"] = s.code;  // omitempty
  return j.dump();
}

namespace {
Status Make(int code, std::string_view reason, std::string message,
            std::optional<StatusDetails> details = std::nullopt) {
  Status s;
  s.code = code;
  s.reason = std::string(reason);
  s.message = std::move(message);
  s.details = std::move(details);
  return s;
}

StatusDetails ResourceDetails(const GroupResource& r, std::string_view name) {
  StatusDetails d;
  d.name = std::string(name);
  d.group = r.group;
  d.kind = r.resource;
  return d;
}
}  // namespace

Status NewBadRequest(std::string_view message) {
  return Make(400, "BadRequest", std::string(message));
}

Status NewUnauthorized(std::string_view message) {
  return Make(401, "Unauthorized", message.empty() ? "not authorized" : std::string(message));
}

Status NewForbidden(const GroupResource& r, std::string_view name, std::string_view why) {
  std::string message;
  if (r.Empty()) {
    message = "forbidden: " + std::string(why);
  } else if (name.empty()) {
    message = r.String() + " is forbidden: " + std::string(why);
  } else {
    message = r.String() + " " + util::Quote(name) + " is forbidden: " + std::string(why);
  }
  return Make(403, "Forbidden", std::move(message), ResourceDetails(r, name));
}

Status NewNotFound(const GroupResource& r, std::string_view name) {
  return Make(404, "NotFound", r.String() + " " + util::Quote(name) + " not found",
              ResourceDetails(r, name));
}

Status NewPathNotFound() {
  return Make(404, "NotFound", "the server could not find the requested resource", StatusDetails{});
}

Status NewMethodNotSupported(const GroupResource& r, std::string_view action) {
  return Make(
      405, "MethodNotAllowed",
      std::string(action) + " is not supported on resources of kind " + util::Quote(r.String()),
      ResourceDetails(r, ""));
}

Status NewRequestEntityTooLarge(std::string_view message) {
  return Make(413, "RequestEntityTooLarge", "Request entity too large: " + std::string(message));
}

Status NewTooManyRequests(std::string_view message, int retry_after_seconds) {
  StatusDetails d;
  d.retry_after_seconds = retry_after_seconds;
  return Make(429, "TooManyRequests", std::string(message), d);
}

Status NewInternalError(std::string_view message) {
  StatusDetails d;
  d.causes.push_back({"", std::string(message), ""});
  return Make(500, "InternalError", "Internal error occurred: " + std::string(message), d);
}

Status NewServiceUnavailable(std::string_view message) {
  return Make(503, "ServiceUnavailable", std::string(message));
}

Status NewTimeoutError(std::string_view message, int retry_after_seconds) {
  StatusDetails d;
  d.retry_after_seconds = retry_after_seconds;
  return Make(504, "Timeout", "Timeout: " + std::string(message), d);
}

Status NewAlreadyExists(const GroupResource& r, std::string_view name) {
  return Make(409, "AlreadyExists", r.String() + " " + util::Quote(name) + " already exists",
              ResourceDetails(r, name));
}

Status NewConflict(const GroupResource& r, std::string_view name, std::string_view why) {
  return Make(409, "Conflict",
              "Operation cannot be fulfilled on " + r.String() + " " + util::Quote(name) + ": " +
                  std::string(why),
              ResourceDetails(r, name));
}

Status NewResourceExpired(std::string_view message) {
  return Make(410, "Expired", std::string(message));
}

Status NewTooLargeResourceVersion(int64_t requested, int64_t current) {
  StatusDetails d;
  d.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
  d.retry_after_seconds = 1;
  return Make(504, "Timeout",
              "Timeout: Too large resource version: " + std::to_string(requested) +
                  ", current: " + std::to_string(current),
              d);
}

Status NewUnsupportedMediaType(std::string_view content_type,
                               const std::vector<std::string>& accepted) {
  std::string list;
  for (size_t i = 0; i < accepted.size(); ++i) list += (i ? ", " : "") + accepted[i];
  (void)content_type;
  return Make(
      415, "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types include: " + list);
}

Status NewNotAcceptable(const std::vector<std::string>& accepted) {
  std::string list;
  for (size_t i = 0; i < accepted.size(); ++i) list += (i ? ", " : "") + accepted[i];
  return Make(406, "NotAcceptable", "only the following media types are accepted: " + list);
}

Status NewNotAcceptable(std::string message) {
  return Make(406, "NotAcceptable", std::move(message));
}

Status NewDeleted(const GroupResource& r, std::string_view name, std::string_view uid) {
  Status s;
  s.status = "Success";
  s.code = 0;  // upstream's registry leaves the code out of this Status
  StatusDetails d = ResourceDetails(r, name);
  d.uid = std::string(uid);
  s.details = d;
  return s;
}

}  // namespace apimachinery
