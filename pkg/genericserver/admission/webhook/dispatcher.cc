#include "pkg/genericserver/admission/webhook/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/schema_types.h"
#include "pkg/genericserver/admission/webhook/expressions.h"
#include "pkg/genericserver/admission/webhook/matching.h"
#include "pkg/genericserver/admission/webhook/review.h"
#include "pkg/genericserver/apimachinery/labels/label_selector.h"
#include "pkg/genericserver/apimachinery/patch/json_patch.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/util/log.h"
#include "pkg/util/uuid.h"

namespace admission::webhook {

namespace {

namespace net = boost::asio;
using apimachinery::Status;
using apimachinery::labels::Selector;
using apimachinery::validation::GoQuote;
using nlohmann::json;

// One webhook of a configuration, ready to be matched and called. Immutable.
struct Hook {
  std::string name;
  std::string configuration;
  json rules;
  Selector namespace_selector;
  Selector object_selector;
  std::string selector_error;  // a selector that does not parse
  bool fail_open = false;      // failurePolicy: Ignore
  bool exact = false;          // matchPolicy: Exact
  std::string side_effects;
  std::string review_version;  // "" when none is spoken
  bool reinvoke = false;       // reinvocationPolicy: IfNeeded
  std::vector<MatchCondition> conditions;
  std::shared_ptr<const transport::WebhookClient> client;
  std::string client_error;
};
using HookPtr = std::shared_ptr<const Hook>;

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

const json* Find(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

HookPtr MakeHook(const json& configuration, const json& w,
                 const transport::ServiceResolver& resolve,
                 const CredentialsResolver* credentials) {
  auto hook = std::make_shared<Hook>();
  hook->name = Str(w, "name");
  hook->configuration = registry::MetaString(configuration, "name");
  if (const json* rules = Find(w, "rules")) hook->rules = *rules;
  hook->fail_open = Str(w, "failurePolicy") == "Ignore";
  hook->exact = Str(w, "matchPolicy") == "Exact";
  hook->side_effects = Str(w, "sideEffects");
  hook->reinvoke = Str(w, "reinvocationPolicy") == "IfNeeded";
  const json* versions = Find(w, "admissionReviewVersions");
  hook->review_version = versions != nullptr ? ReviewVersion(*versions) : "";
  for (auto [field, selector] : {std::pair{"namespaceSelector", &hook->namespace_selector},
                                 std::pair{"objectSelector", &hook->object_selector}}) {
    auto parsed = ParseSelector(Find(w, field));
    if (parsed) {
      *selector = std::move(*parsed);
    } else if (hook->selector_error.empty()) {
      hook->selector_error = parsed.error();
    }
  }
  if (const json* conditions = Find(w, "matchConditions"); conditions && conditions->is_array()) {
    for (const json& c : *conditions) {
      if (!c.is_object()) continue;
      hook->conditions.push_back(
          {Str(c, "name"), Compile(Str(c, "expression"), {"object", "oldObject", "request"})});
    }
  }
  int timeout_seconds = 10;
  if (const json* t = Find(w, "timeoutSeconds"); t && t->is_number_integer()) {
    timeout_seconds = t->get<int>();
  }
  const json* found = Find(w, "clientConfig");
  const json client_config = found != nullptr ? *found : json::object();
  transport::ClientIdentity identity;
  if (credentials != nullptr) {
    identity = credentials->For(transport::WebhookClient::CredentialsTarget(client_config))
                   .value_or(transport::ClientIdentity{});
  }
  auto client = transport::WebhookClient::New(client_config, hook->name, resolve,
                                              std::chrono::seconds(timeout_seconds), identity);
  if (client) {
    hook->client = std::move(*client);
  } else {
    hook->client_error = "could not get REST client: " + client.error();
  }
  return hook;
}

// The webhooks of one kind of configuration, made once per configuration resourceVersion.
class HookSource {
 public:
  HookSource(std::shared_ptr<const Stores> stores, std::string resource,
             transport::ServiceResolver resolve,
             std::shared_ptr<const CredentialsResolver> credentials)
      : stores_(std::move(stores)),
        resource_(std::move(resource)),
        resolve_(std::move(resolve)),
        credentials_(std::move(credentials)) {}

  // Every webhook, configurations by name.
  Awaitable<std::vector<HookPtr>> Current() const {
    std::vector<HookPtr> out;
    auto store = stores_->Get(resource_);
    if (!store) co_return out;
    auto listed = co_await ListCached(store, "");
    if (!listed) {
      KLOG_WARNING << "Reading " << resource_ << " failed: " << listed.error().message;
      co_return out;
    }
    std::vector<const json*> configurations;
    for (const json& c : *listed) configurations.push_back(&c);
    std::sort(configurations.begin(), configurations.end(), [](const json* a, const json* b) {
      return registry::MetaString(*a, "name") < registry::MetaString(*b, "name");
    });
    std::lock_guard lock(mu_);
    std::map<std::string, Entry> next;
    for (const json* c : configurations) {
      const std::string uid = registry::MetaString(*c, "uid");
      const std::string rv = registry::MetaString(*c, "resourceVersion");
      Entry entry;
      if (auto it = cache_.find(uid); it != cache_.end() && it->second.resource_version == rv) {
        entry = it->second;
      } else {
        entry.resource_version = rv;
        if (const json* webhooks = Find(*c, "webhooks"); webhooks && webhooks->is_array()) {
          for (const json& w : *webhooks) {
            if (w.is_object()) {
              entry.hooks.push_back(MakeHook(*c, w, resolve_, credentials_.get()));
            }
          }
        }
      }
      out.insert(out.end(), entry.hooks.begin(), entry.hooks.end());
      next[uid] = std::move(entry);
    }
    cache_ = std::move(next);
    co_return out;
  }

 private:
  struct Entry {
    std::string resource_version;
    std::vector<HookPtr> hooks;
  };
  std::shared_ptr<const Stores> stores_;
  std::string resource_;
  transport::ServiceResolver resolve_;
  std::shared_ptr<const CredentialsResolver> credentials_;
  mutable std::mutex mu_;
  mutable std::map<std::string, Entry> cache_;  // by configuration uid
};

// The matchConditions: an error refuses the request with failurePolicy Fail, else skips
// the hook.
std::expected<bool, Status> HookConditionsMatch(const Hook& hook, const Attributes& a,
                                                const json& object) {
  if (hook.conditions.empty()) return true;
  const cel::TypePtr dyn = cel::DynType();
  const Variables vars = {{"object", cel::JsonToValue(object, dyn)},
                          {"oldObject", cel::JsonToValue(a.old != nullptr ? *a.old : json(), dyn)},
                          {"request", cel::JsonToValue(RequestVariable(a), dyn)}};
  auto matched = ConditionsMatch(hook.conditions, vars);
  if (matched) return *matched;
  if (hook.fail_open) return false;
  return std::unexpected(apimachinery::NewForbidden(a.spec.Resource(), a.name, matched.error()));
}

// Whether the hook is called for the request (upstream's ShouldCallHook).
Awaitable<std::expected<bool, Status>> ShouldCall(const Stores& stores, const Hook& hook,
                                                  const Attributes& a, const json& object) {
  if (!RulesMatch(hook.rules, RuleRequestOf(a), !hook.exact)) co_return false;
  if (!hook.selector_error.empty()) {
    co_return std::unexpected(apimachinery::NewInternalError(hook.selector_error));
  }
  auto selected =
      co_await SelectorsMatch(stores, hook.namespace_selector, hook.object_selector, a, object);
  if (!selected || !*selected) co_return selected;
  co_return HookConditionsMatch(hook, a, object);
}

// One call: the verdict, or an error in calling (for the failurePolicy to judge).
Awaitable<std::expected<Verdict, CallError>> Call(HookPtr hook, const Attributes& a,
                                                  const json& object, bool mutating) {
  if (!hook->client) co_return std::unexpected(CallError{hook->client_error});
  if (hook->review_version.empty()) {
    co_return std::unexpected(
        CallError{"could not create admission objects: webhook does not accept known "
                  "AdmissionReview versions (v1, v1beta1)"});
  }
  const std::string uid = util::NewUUID();
  std::string body = NewAdmissionReview(hook->review_version, uid, a, object)
                         .dump(-1, ' ', false, json::error_handler_t::replace);
  auto answer = co_await transport::WebhookClient::Post(hook->client, std::move(body));
  if (!answer) {
    co_return std::unexpected(CallError{"failed to call webhook: Post " +
                                        GoQuote(hook->client->url()) + ": " + answer.error()});
  }
  co_return ReadAdmissionAnswer(*answer, hook->review_version, uid, mutating);
}

Status CallingError(const Hook& hook, const CallError& e) {
  return apimachinery::NewInternalError("failed calling webhook " + GoQuote(hook.name) + ": " +
                                        e.reason);
}

bool DryRunSafe(const Hook& hook) {
  return hook.side_effects == "None" || hook.side_effects == "NoneOnDryRun";
}

// Upstream's dry-run refusal (400).
std::optional<Status> RefuseDryRun(const Hook& hook, const Attributes& a) {
  if (!a.options.dry_run || DryRunSafe(hook)) return std::nullopt;
  return apimachinery::NewBadRequest("admission webhook " + GoQuote(hook.name) +
                                     " does not support dry run");
}

// An annotation of the request's audit event (when it is audited).
void Annotate(const Attributes& a, const std::string& key, std::string value) {
  if (a.options.audit != nullptr) a.options.audit->AddAnnotation(key, std::move(value));
}

// A webhook's own audit annotations, under its name.
void AnnotateFrom(const Attributes& a, const Hook& hook, const Verdict& verdict) {
  for (const auto& [key, value] : verdict.audit_annotations) {
    Annotate(a, hook.name + "/" + key, value);
  }
}

void Warn(const Attributes& a, const std::vector<std::string>& warnings) {
  if (a.options.warnings == nullptr) return;
  a.options.warnings->insert(a.options.warnings->end(), warnings.begin(), warnings.end());
}

class MutatingWebhook final : public Plugin {
 public:
  MutatingWebhook(std::shared_ptr<const Stores> stores, transport::ServiceResolver resolve,
                  std::shared_ptr<const CredentialsResolver> credentials)
      : stores_(stores),
        hooks_(stores, "mutatingwebhookconfigurations.admissionregistration.k8s.io",
               std::move(resolve), std::move(credentials)) {}

  bool Handles(Operation) const override { return true; }

  // The first pass calls every hook that matches. A change by a hook asks the chain for a
  // second pass (every mutating plugin again); there only the IfNeeded hooks called before
  // a later change (a later hook's, or an in-tree plugin's since) are called once more.
  Awaitable<std::optional<Status>> Admit(const Attributes& a, json& object) const override {
    if (ExemptResource(a.spec.group, a.spec.plural)) co_return std::nullopt;
    Reinvocation* reinvocation = a.reinvocation;
    if (reinvocation != nullptr && reinvocation->second_pass) {
      auto found = reinvocation->state.find(kStateKey);
      if (found == reinvocation->state.end()) co_return std::nullopt;
      auto state = std::static_pointer_cast<PassState>(found->second);
      if (object != state->output) {
        state->reinvoke.insert(state->invoked_if_needed.begin(), state->invoked_if_needed.end());
      }
      for (size_t i : state->reinvoke) {
        bool called = false, changed = false;
        if (auto refused = co_await CallHook(state->hooks, i, 1, a, object, called, changed)) {
          co_return refused;
        }
      }
      co_return std::nullopt;
    }
    auto state = std::make_shared<PassState>();
    state->hooks = co_await hooks_.Current();
    bool any_change = false;
    for (size_t i = 0; i < state->hooks.size(); ++i) {
      bool called = false, changed = false;
      if (auto refused = co_await CallHook(state->hooks, i, 0, a, object, called, changed)) {
        co_return refused;
      }
      if (changed) {
        any_change = true;
        // Everything called before this change sees it on reinvocation.
        for (size_t earlier : state->invoked_if_needed) {
          if (earlier != i) state->reinvoke.insert(earlier);
        }
      }
      if (state->hooks[i]->reinvoke && called) {
        state->invoked_if_needed.insert(i);
      }
    }
    if (any_change && reinvocation != nullptr) {
      state->output = object;
      reinvocation->requested = true;
      reinvocation->state[kStateKey] = std::move(state);
    }
    co_return std::nullopt;
  }

 private:
  static constexpr char kStateKey[] = "MutatingAdmissionWebhook";

  // What the first pass leaves for the second.
  struct PassState {
    std::vector<HookPtr> hooks;
    std::set<size_t> invoked_if_needed, reinvoke;
    json output;  // the object as the webhooks left it
  };

  // Calls hook i of `hooks` in `round` if it matches: its refusal or error, or nothing;
  // `called` tells whether it matched, `changed` whether its patch changed the object.
  Awaitable<std::optional<Status>> CallHook(const std::vector<HookPtr>& hooks, size_t i, int round,
                                            const Attributes& a, json& object, bool& called,
                                            bool& changed) const {
    called = changed = false;
    const Hook& hook = *hooks[i];
    auto should = co_await ShouldCall(*stores_, hook, a, object);
    if (!should) co_return should.error();
    if (!*should) co_return std::nullopt;
    called = true;
    if (auto refused = RefuseDryRun(hook, a)) co_return refused;
    auto verdict = co_await Call(hooks[i], a, object, true);
    const std::string at = "round_" + std::to_string(round) + "_index_" + std::to_string(i);
    const auto record = [&] {
      Annotate(
          a, "mutation.webhook.admission.k8s.io/" + at,
          json{{"configuration", hook.configuration}, {"webhook", hook.name}, {"mutated", changed}}
              .dump());
    };
    if (!verdict) {
      record();
      if (hook.fail_open) {
        KLOG_WARNING << "Failed calling webhook, failing open " << hook.name << ": "
                     << verdict.error().reason;
        Annotate(a, "failed-open.mutation.webhook.admission.k8s.io/" + at, hook.name);
        co_return std::nullopt;
      }
      co_return CallingError(hook, verdict.error());
    }
    Warn(a, verdict->warnings);
    AnnotateFrom(a, hook, *verdict);
    if (!verdict->allowed) {
      record();
      co_return DenialStatus(hook.name, verdict->status);
    }
    if (verdict->patch && !verdict->patch->empty()) {
      if (a.operation == Operation::kDelete) {
        co_return apimachinery::NewInternalError(
            "admission webhook " + GoQuote(hook.name) +
            " attempted to modify the object, which is not supported for this operation");
      }
      auto patched = apimachinery::patch::ApplyJsonPatch(object, *verdict->patch);
      if (!patched) co_return apimachinery::NewInternalError(patched.error().message);
      if (!patched->is_object()) {
        co_return apimachinery::NewInternalError("admission webhook " + GoQuote(hook.name) +
                                                 " patched the object into a " +
                                                 std::string(patched->type_name()));
      }
      if (*patched != object) {
        changed = true;
        object = std::move(*patched);
      }
    }
    record();
    co_return std::nullopt;
  }

  std::shared_ptr<const Stores> stores_;
  HookSource hooks_;
};

// What one validating call came to: nothing, or the refusal.
using Outcome = std::optional<Status>;

// What a validating call brings back besides its outcome, for the request's coroutine to
// record once all calls are done (they may run on another strand).
struct Collected {
  std::vector<std::string> warnings;
  std::map<std::string, std::string> annotations;  // the webhook's, under its name
  bool failed_open = false;
};

class ValidatingWebhook final : public Plugin {
 public:
  ValidatingWebhook(std::shared_ptr<const Stores> stores, transport::ServiceResolver resolve,
                    std::shared_ptr<const CredentialsResolver> credentials)
      : stores_(stores),
        hooks_(stores, "validatingwebhookconfigurations.admissionregistration.k8s.io",
               std::move(resolve), std::move(credentials)) {}

  bool Handles(Operation) const override { return true; }

  Awaitable<std::optional<Status>> Validate(const Attributes& a,
                                            const json& object) const override {
    if (ExemptResource(a.spec.group, a.spec.plural)) co_return std::nullopt;
    const std::vector<HookPtr> all = co_await hooks_.Current();
    std::vector<HookPtr> called;
    for (const HookPtr& hook : all) {
      auto should = co_await ShouldCall(*stores_, *hook, a, object);
      if (!should) co_return should.error();
      if (!*should) continue;
      if (auto refused = RefuseDryRun(*hook, a)) co_return refused;
      called.push_back(hook);
    }
    if (called.empty()) co_return std::nullopt;
    std::vector<Collected> collected(called.size());
    std::optional<Status> first;
    if (called.size() == 1) {
      first = co_await CallOne(called[0], a, object, collected[0]);
    } else {
      // Concurrently, on a strand of their own that this coroutine waits for.
      auto strand = net::make_strand(co_await net::this_coro::executor);
      first =
          co_await net::co_spawn(strand, CallAll(called, a, object, collected), net::use_awaitable);
    }
    for (size_t i = 0; i < called.size(); ++i) {
      Warn(a, collected[i].warnings);
      for (const auto& [key, value] : collected[i].annotations) Annotate(a, key, value);
      if (collected[i].failed_open) {
        Annotate(
            a, "failed-open.validating.webhook.admission.k8s.io/round_0_index_" + std::to_string(i),
            called[i]->name);
      }
    }
    co_return first;
  }

 private:
  static Awaitable<Outcome> CallOne(HookPtr hook, const Attributes& a, const json& object,
                                    Collected& collected) {
    auto verdict = co_await Call(hook, a, object, false);
    if (!verdict) {
      if (hook->fail_open) {
        KLOG_WARNING << "Failed calling webhook, failing open " << hook->name << ": "
                     << verdict.error().reason;
        collected.failed_open = true;
        co_return std::nullopt;
      }
      co_return CallingError(*hook, verdict.error());
    }
    collected.warnings = std::move(verdict->warnings);
    for (const auto& [key, value] : verdict->audit_annotations) {
      collected.annotations[hook->name + "/" + key] = value;
    }
    if (!verdict->allowed) co_return DenialStatus(hook->name, verdict->status);
    co_return std::nullopt;
  }

  // Runs on a strand: every call spawned there, the first refusal to complete returned once
  // all have.
  static Awaitable<Outcome> CallAll(std::vector<HookPtr> hooks, const Attributes& a,
                                    const json& object, std::vector<Collected>& collected) {
    auto executor = co_await net::this_coro::executor;
    struct Join {
      explicit Join(const net::any_io_executor& ex) : timer(ex) {}
      net::steady_timer timer;
      size_t pending = 0;
      Outcome first;
    };
    auto join = std::make_shared<Join>(executor);
    join->timer.expires_at(net::steady_timer::time_point::max());
    join->pending = hooks.size();
    for (size_t i = 0; i < hooks.size(); ++i) {
      net::co_spawn(executor, CallOne(hooks[i], a, object, collected[i]),
                    [join](std::exception_ptr e, Outcome outcome) {
                      if (e) outcome = apimachinery::NewInternalError("webhook call failed");
                      if (outcome && !join->first) join->first = std::move(outcome);
                      if (--join->pending == 0) join->timer.cancel();
                    });
    }
    if (join->pending > 0) {
      boost::system::error_code ec;
      co_await join->timer.async_wait(net::redirect_error(net::use_awaitable, ec));
    }
    co_return join->first;
  }

  std::shared_ptr<const Stores> stores_;
  HookSource hooks_;
};

}  // namespace

PluginPtr NewMutatingWebhook(std::shared_ptr<const Stores> stores,
                             transport::ServiceResolver resolve_service,
                             std::shared_ptr<const CredentialsResolver> credentials) {
  return std::make_shared<MutatingWebhook>(std::move(stores), std::move(resolve_service),
                                           std::move(credentials));
}

PluginPtr NewValidatingWebhook(std::shared_ptr<const Stores> stores,
                               transport::ServiceResolver resolve_service,
                               std::shared_ptr<const CredentialsResolver> credentials) {
  return std::make_shared<ValidatingWebhook>(std::move(stores), std::move(resolve_service),
                                             std::move(credentials));
}

}  // namespace admission::webhook
