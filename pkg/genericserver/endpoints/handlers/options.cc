#include "pkg/genericserver/endpoints/handlers/options.h"

#include <charconv>

#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"
#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/util/strings.h"

namespace endpoints::handlers {

namespace v = apimachinery::validation;

namespace {

// Go's strconv.ParseBool truths.
bool ParseBool(std::string_view s) {
  return s == "true" || s == "1" || s == "t" || s == "T" || s == "True" || s == "TRUE";
}

apimachinery::Status InvalidOptions(const char* kind, std::vector<v::FieldError> errors) {
  return v::NewInvalid("meta.k8s.io", kind, "", errors);
}

}  // namespace

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t value = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return value;
}

registry::Result<registry::ListOptions> ParseListOptions(const RequestContext& ctx, bool watch) {
  const auto& q = ctx.request.query;
  registry::ListOptions o;
  o.label_selector = q.Get("labelSelector").value_or("");
  o.field_selector = q.Get("fieldSelector").value_or("");
  o.resource_version = q.Get("resourceVersion").value_or("");
  o.continue_token = q.Get("continue").value_or("");
  if (auto limit = q.Get("limit"); limit && !limit->empty()) {
    auto n = ParseInt(*limit);
    if (!n) {
      return std::unexpected(apimachinery::NewBadRequest("invalid limit: " + *limit));
    }
    o.limit = std::max<int64_t>(*n, 0);
  }
  o.allow_bookmarks = ParseBool(q.Get("allowWatchBookmarks").value_or(""));
  if (auto initial = q.Get("sendInitialEvents")) o.send_initial_events = ParseBool(*initial);
  const std::string match = q.Get("resourceVersionMatch").value_or("");
  if (match == "NotOlderThan") o.match = storage::ResourceVersionMatch::kNotOlderThan;
  if (match == "Exact") o.match = storage::ResourceVersionMatch::kExact;
  // The rules of upstream's ListOptions validation, WatchList enabled (1.32).
  std::vector<v::FieldError> errors;
  const bool initial_events_given = o.send_initial_events.has_value();
  if (watch) {
    if (initial_events_given && match != "NotOlderThan") {
      errors.push_back(v::FieldForbidden(
          "resourceVersionMatch",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    }
    if (!match.empty()) {
      if (!initial_events_given) {
        errors.push_back(v::FieldForbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      }
      if (match != "NotOlderThan") {
        errors.push_back(v::FieldNotSupported("resourceVersionMatch", match, {"NotOlderThan"}));
      }
      if (!o.continue_token.empty()) {
        errors.push_back(v::FieldForbidden(
            "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
      }
    }
  } else {
    if (!match.empty()) {
      if (o.resource_version.empty()) {
        errors.push_back(v::FieldForbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden unless resourceVersion is provided"));
      }
      if (!o.continue_token.empty()) {
        errors.push_back(v::FieldForbidden(
            "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
      }
      if (match != "NotOlderThan" && match != "Exact") {
        errors.push_back(
            v::FieldNotSupported("resourceVersionMatch", match, {"Exact", "NotOlderThan", ""}));
      }
      if (match == "Exact" && o.resource_version == "0") {
        errors.push_back(v::FieldForbidden(
            "resourceVersionMatch",
            "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
      }
    }
    if (initial_events_given) {
      errors.push_back(
          v::FieldForbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
    }
  }
  if (!errors.empty()) return std::unexpected(InvalidOptions("ListOptions", std::move(errors)));
  return o;
}

registry::Result<registry::WriteOptions> ParseWriteOptions(RequestContext& ctx) {
  // The options kind upstream names in its 422s.
  const char* kind = ctx.request.method == "PUT"     ? "UpdateOptions"
                     : ctx.request.method == "PATCH" ? "PatchOptions"
                                                     : "CreateOptions";
  registry::WriteOptions o;
  for (const std::string& d : ctx.request.query.Values("dryRun")) {
    if (d != "All") {
      // Upstream reports the whole list, printed as a Go []string.
      v::FieldError error = v::FieldNotSupported(
          "dryRun", v::GoStringSlice(ctx.request.query.Values("dryRun")), {"All"});
      error.value_form = v::ValueForm::kVerbatim;
      return std::unexpected(InvalidOptions(kind, {std::move(error)}));
    }
    o.dry_run = true;
  }
  o.field_manager = ctx.request.query.Get("fieldManager").value_or("");
  o.user = ctx.user;
  o.warnings = &ctx.warnings;
  o.audit = ctx.audit;
  if (o.field_manager.size() > 128) {
    return std::unexpected(InvalidOptions(kind, {v::FieldTooLong("fieldManager", 128)}));
  }
  if (o.field_manager.empty()) {
    o.field_manager = apimachinery::managedfields::ManagerFromUserAgent(
        ctx.request.headers.Get("User-Agent").value_or(""));
  }
  o.subresource = ctx.info.subresource;
  return o;
}

registry::Result<bool> ParseForce(const RequestContext& ctx, bool apply) {
  std::vector<std::string> given = ctx.request.query.Values("force");
  if (given.empty()) return false;
  if (!apply) {
    return std::unexpected(InvalidOptions(
        "PatchOptions", {v::FieldForbidden("force", "may not be specified for non-apply patch")}));
  }
  // Go's strconv.ParseBool, as upstream decodes the query parameter.
  const std::string& value = given.front();
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (value == yes) return true;
  }
  for (const char* no : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (value == no) return false;
  }
  return std::unexpected(apimachinery::NewBadRequest("strconv.ParseBool: parsing " +
                                                     util::Quote(value) + ": invalid syntax"));
}

registry::Result<void> RequireApplyFieldManager(const RequestContext& ctx) {
  if (!ctx.request.query.Get("fieldManager").value_or("").empty()) return {};
  return std::unexpected(InvalidOptions(
      "PatchOptions", {v::FieldRequired("fieldManager", "is required for apply patch")}));
}

registry::Result<std::string> ParseFieldValidation(const RequestContext& ctx) {
  std::string value = ctx.request.query.Get("fieldValidation").value_or("");
  if (value.empty() || value == "Ignore" || value == "Warn" || value == "Strict") return value;
  return std::unexpected(
      apimachinery::NewBadRequest("fieldValidation: Unsupported value: \"" + value +
                                  "\": supported values: \"Ignore\", \"Strict\", \"Warn\""));
}

}  // namespace endpoints::handlers
