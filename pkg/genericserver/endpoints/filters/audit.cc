#include "pkg/genericserver/endpoints/filters/audit.h"

#include <arpa/inet.h>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/messages.h"
#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/audit/metrics.h"
#include "pkg/genericserver/server/response_writer.h"
#include "pkg/util/strings.h"

namespace genericserver::filters {
namespace {

using audit::Level;
using audit::Stage;
using nlohmann::json;

constexpr size_t kMaxUserAgent = 1024;

bool IsIP(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

// "10.0.0.1:5000" or "[::1]:5000" without the port.
std::string HostOf(std::string_view address) {
  if (address.starts_with('[')) {
    const size_t end = address.find(']');
    return std::string(address.substr(1, end == std::string_view::npos ? end : end - 1));
  }
  return std::string(address.substr(0, address.rfind(':')));
}

// The proxies' X-Forwarded-For chain, X-Real-Ip unless already in it, then the peer unless it
// ends the chain already: upstream's order.
std::vector<std::string> SourceIPs(const Request& request) {
  std::vector<std::string> ips;
  if (auto forwarded = request.headers.Get("X-Forwarded-For")) {
    for (const std::string& part : util::Split(*forwarded, ',')) {
      std::string ip(util::TrimSpace(part));
      if (IsIP(ip)) ips.push_back(std::move(ip));
    }
  }
  if (auto real = request.headers.Get("X-Real-Ip")) {
    std::string ip(util::TrimSpace(*real));
    if (IsIP(ip) && std::ranges::find(ips, ip) == ips.end()) ips.push_back(std::move(ip));
  }
  std::string peer = HostOf(request.remote_address);
  if (IsIP(peer) && (ips.empty() || ips.back() != peer)) ips.push_back(std::move(peer));
  return ips;
}

util::MicroTime ReceivedAt(const RequestContext& ctx) {
  const auto ago = std::chrono::steady_clock::now() - ctx.received;
  return std::chrono::floor<std::chrono::microseconds>(std::chrono::system_clock::now() - ago);
}

audit::Event NewEvent(const RequestContext& ctx, Level level) {
  audit::Event e;
  e.level = level;
  e.audit_id = ctx.audit_id;
  e.request_uri = ctx.request.target;
  e.verb = ctx.info.verb;
  if (ctx.user) e.user = *ctx.user;
  e.source_ips = SourceIPs(ctx.request);
  e.user_agent = ctx.request.headers.Get("User-Agent").value_or("");
  if (e.user_agent.size() > kMaxUserAgent)
    e.user_agent = e.user_agent.substr(0, kMaxUserAgent) + "...TRUNCATED";
  if (ctx.info.is_resource_request) {
    audit::ObjectReference& ref = e.object_ref.emplace();
    ref.resource = ctx.info.resource;
    ref.namespace_ = ctx.info.namespace_;
    ref.name = ctx.info.name;
    ref.api_group = ctx.info.api_group;
    ref.api_version = ctx.info.api_version;
    ref.subresource = ctx.info.subresource;
  }
  e.request_received = ReceivedAt(ctx);
  return e;
}

// A response body as JSON, whatever form it was written in.
std::optional<json> DecodeBody(std::string_view content_type, std::string_view body) {
  const std::string media =
      util::ToLower(util::TrimSpace(content_type.substr(0, content_type.find(';'))));
  if (media == "application/vnd.kubernetes.protobuf") {
    auto envelope = apimachinery::protobuf::DecodeEnvelope(body);
    if (!envelope) return std::nullopt;
    auto object = apimachinery::protobuf::ToJSON(*envelope);
    if (!object) return std::nullopt;
    return std::move(*object);
  }
  if (media == "application/yaml") {
    auto object = apimachinery::yaml::YAMLToJSON(body);
    if (!object) return std::nullopt;
    return std::move(*object);
  }
  json object = json::parse(body, nullptr, false);
  if (object.is_discarded()) return std::nullopt;
  return object;
}

std::string StringField(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string What(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

class Auditor {
 public:
  explicit Auditor(audit::BackendPtr backend) : backend_(std::move(backend)) {}

  // Hands the event as it is now to the backend, as `stage` (unless the policy omits it).
  // `last`: the context's event is not needed any more and is moved.
  void Emit(audit::Context& ac, Stage stage, bool last = false) const {
    if (ac.config().Omits(stage)) return;
    auto e = last ? std::make_shared<audit::Event>(std::move(ac.event()))
                  : std::make_shared<audit::Event>(ac.event());
    e->stage = stage;
    e->stage_timestamp = stage == Stage::kRequestReceived ? e->request_received : util::MicroNow();
    audit::CountEvent();
    backend_->ProcessEvent(std::move(e));
  }

 private:
  audit::BackendPtr backend_;
};

// Notes the response's code, Status and (when wanted) object in the event as it passes.
class AuditingWriter final : public ResponseWriter {
 public:
  AuditingWriter(ResponseWriter& out, audit::Context& ac, const Auditor& auditor, bool emit_started,
                 bool record_object)
      : out_(out),
        ac_(ac),
        auditor_(auditor),
        emit_started_(emit_started),
        record_object_(record_object) {}

  Awaitable<void> Respond(Response r) override {
    Observe(r.status, r.headers.Get("Content-Type").value_or(""), r.body);
    co_await out_.Respond(std::move(r));
  }
  Awaitable<bool> StartStream(int status, Headers headers) override {
    Observe(status, "", "");
    co_return co_await out_.StartStream(status, std::move(headers));
  }
  Awaitable<bool> WriteChunk(std::string_view data) override {
    co_return co_await out_.WriteChunk(data);
  }
  Awaitable<void> FinishStream() override { co_await out_.FinishStream(); }
  void OnClientGone(std::function<void()> gone) override { out_.OnClientGone(std::move(gone)); }
  bool Started() const override { return out_.Started(); }
  int StatusCode() const override { return out_.StatusCode(); }
  Headers& ExtraHeaders() override { return out_.ExtraHeaders(); }

 private:
  void Observe(int code, std::string_view content_type, std::string_view body) {
    if (observed_) return;
    observed_ = true;
    audit::Event& e = ac_.event();
    e.response_status.emplace().code = code;
    const bool status_body = code >= 300 || std::string_view(body).substr(0, 32).find(
                                                R"("kind":"Status")") != std::string_view::npos;
    const bool object = record_object_ && ac_.level() >= Level::kRequestResponse;
    if ((status_body || object) && !body.empty()) {
      if (auto doc = DecodeBody(content_type, body)) {
        if (doc->is_object() && StringField(*doc, "kind") == "Status") {
          audit::ResponseStatus& s = *e.response_status;
          s.status = StringField(*doc, "status");
          s.message = StringField(*doc, "message");
          s.reason = StringField(*doc, "reason");
          if (auto d = doc->find("details"); d != doc->end() && d->is_object())
            s.details = d->dump();
        }
        if (object) e.response_object = ac_.Recorded(*doc);
      }
    }
    if (emit_started_) auditor_.Emit(ac_, Stage::kResponseStarted);
  }

  ResponseWriter& out_;
  audit::Context& ac_;
  const Auditor& auditor_;
  const bool emit_started_, record_object_;
  bool observed_ = false;
};

// The request's audit context, or std::nullopt when the policy gives it level None.
std::optional<audit::Context> Begin(const audit::Policy& policy, const RequestContext& ctx,
                                    const authn::UserInfo* user) {
  audit::RequestAuditConfig config = audit::Evaluate(policy, user, ctx.info);
  audit::CountLevel(config.level);
  if (config.level == Level::kNone) return std::nullopt;
  const Level level = config.level;
  return std::make_optional<audit::Context>(std::move(config), NewEvent(ctx, level));
}

class Audit final : public Handler {
 public:
  Audit(HandlerPtr next, std::shared_ptr<const audit::Policy> policy, audit::BackendPtr backend)
      : next_(std::move(next)), policy_(std::move(policy)), auditor_(std::move(backend)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    std::optional<audit::Context> began = Begin(*policy_, ctx, ctx.user ? &*ctx.user : nullptr);
    if (!began) {
      co_await next_->Serve(ctx, out);
      co_return;
    }
    audit::Context& ac = *began;
    auditor_.Emit(ac, Stage::kRequestReceived);
    const bool long_running = endpoints::IsLongRunning(ctx.info);
    AuditingWriter writer(out, ac, auditor_, long_running,
                          ctx.info.is_resource_request && !long_running);
    ctx.audit = &ac;
    std::exception_ptr panic;
    try {
      co_await next_->Serve(ctx, writer);
    } catch (...) {
      panic = std::current_exception();
    }
    ctx.audit = nullptr;
    if (panic) {
      ac.event().response_status = audit::ResponseStatus{
          500, "Failure", "APIServer panic'd: " + What(panic), "InternalError", ""};
      auditor_.Emit(ac, Stage::kPanic, true);
      std::rethrow_exception(panic);
    }
    if (!ac.event().response_status) ac.event().response_status.emplace().code = 200;
    auditor_.Emit(ac, Stage::kResponseComplete, true);
  }

 private:
  HandlerPtr next_;
  std::shared_ptr<const audit::Policy> policy_;
  Auditor auditor_;
};

class FailedAuthenticationAudit final : public Handler {
 public:
  FailedAuthenticationAudit(HandlerPtr failed, std::shared_ptr<const audit::Policy> policy,
                            audit::BackendPtr backend)
      : failed_(std::move(failed)), policy_(std::move(policy)), auditor_(std::move(backend)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    std::optional<audit::Context> began = Begin(*policy_, ctx, nullptr);
    if (!began) {
      co_await failed_->Serve(ctx, out);
      co_return;
    }
    AuditingWriter writer(out, *began, auditor_, true, false);
    co_await failed_->Serve(ctx, writer);
  }

 private:
  HandlerPtr failed_;
  std::shared_ptr<const audit::Policy> policy_;
  Auditor auditor_;
};

}  // namespace

HandlerPtr WithAudit(HandlerPtr next, std::shared_ptr<const audit::Policy> policy,
                     audit::BackendPtr backend) {
  if (!policy || !backend) return next;
  return std::make_unique<Audit>(std::move(next), std::move(policy), std::move(backend));
}

HandlerPtr WithFailedAuthenticationAudit(HandlerPtr failed,
                                         std::shared_ptr<const audit::Policy> policy,
                                         audit::BackendPtr backend) {
  if (!policy || !backend) return failed;
  return std::make_unique<FailedAuthenticationAudit>(std::move(failed), std::move(policy),
                                                     std::move(backend));
}

}  // namespace genericserver::filters
