#pragma once
// The metav1.Status error object every failed API request answers with, and the
// constructors for the upstream reasons (k8s.io/apimachinery/pkg/api/errors).
// The HTTP status of the response always equals Status::code.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace apimachinery {

// A group and a plural resource; String() is "deployments.apps", or "pods" for core.
struct GroupResource {
  std::string group;
  std::string resource;
  std::string String() const;
  bool Empty() const { return group.empty() && resource.empty(); }
};

struct StatusCause {
  std::string reason;  // the CauseType, e.g. "FieldValueInvalid"
  std::string message;
  std::string field;
};

struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;
};

struct Status {
  std::string status = "Failure";
  std::string message;
  std::string reason;
  std::optional<StatusDetails> details;
  int code = 500;
};

// {"kind":"Status","apiVersion":"v1","metadata":{},...} in upstream field order.
std::string EncodeStatus(const Status& status);

Status NewBadRequest(std::string_view message);
Status NewUnauthorized(std::string_view message);
// Forbidden: "<resource> "<name>" is forbidden: <why>", or "forbidden: <why>" without a resource.
Status NewForbidden(const GroupResource& resource, std::string_view name, std::string_view why);
Status NewNotFound(const GroupResource& resource, std::string_view name);
// The 404 for a path no server serves: "the server could not find the requested resource".
Status NewPathNotFound();
Status NewMethodNotSupported(const GroupResource& resource, std::string_view action);
Status NewRequestEntityTooLarge(std::string_view message);
Status NewTooManyRequests(std::string_view message, int retry_after_seconds);
Status NewInternalError(std::string_view message);
Status NewServiceUnavailable(std::string_view message);
Status NewTimeoutError(std::string_view message, int retry_after_seconds);
// "<resource> "<name>" already exists".
Status NewAlreadyExists(const GroupResource& resource, std::string_view name);
// "Operation cannot be fulfilled on <resource> "<name>": <why>".
Status NewConflict(const GroupResource& resource, std::string_view name, std::string_view why);
// 410 Expired, e.g. "too old resource version: 1 (5)".
Status NewResourceExpired(std::string_view message);
// 504 "Timeout: Too large resource version: N, current: M", retry after 1 s.
Status NewTooLargeResourceVersion(int64_t requested, int64_t current);
// 415 "the body of the request was in an unknown format - accepted media types include: ...".
Status NewUnsupportedMediaType(std::string_view content_type,
                               const std::vector<std::string>& accepted);
// 406 "only the following media types are accepted: ...".
Status NewNotAcceptable(const std::vector<std::string>& accepted);
// A 406 with its own message (a form that cannot be made of this response).
Status NewNotAcceptable(std::string message);
// The Status of a successful deletion: status "Success", details of what was deleted.
Status NewDeleted(const GroupResource& resource, std::string_view name, std::string_view uid);

}  // namespace apimachinery
