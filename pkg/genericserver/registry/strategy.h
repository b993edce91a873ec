#pragma once
// What differs between resources, for the generic registry Store. Every method has the
// upstream default; a resource overrides only what is special about it. Objects are
// JSON (nlohmann::json); implementations are immutable and thread-safe.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/name_rule.h"
#include "pkg/genericserver/authn/user.h"

namespace registry {

using FieldErrors = std::vector<apimachinery::validation::FieldError>;

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Turns the client's form of an object into the stored one (a Secret's stringData into
  // data) and rejects what upstream's decoding would: returns the reason for a 400
  // ("illegal base64 data at input byte 4"), std::nullopt when the object is fine.
  virtual std::optional<std::string> Decode(nlohmann::json& object) const;
  // Fills what the client left out, as upstream's defaulting does when it decodes a body:
  // on create, on update and after a patch (only empty fields are filled).
  virtual void Default(nlohmann::json& object) const;
  // After the Store filled the generic metadata (uid, timestamps): reset what a client
  // may not set (status, for kinds with a status subresource) and default the rest.
  virtual void PrepareForCreate(nlohmann::json& object) const;
  // On create, after PrepareForCreate: what a kind records about who asked (a
  // CertificateSigningRequest's spec.username, groups, uid and extra).
  virtual void RecordRequester(nlohmann::json& object, const authn::UserInfo& user) const;
  // The same for an update; old is the stored object.
  virtual void PrepareForUpdate(nlohmann::json& object, const nlohmann::json& old) const;
  // Kind-specific validation; the Store validates metadata itself. Empty: valid.
  virtual FieldErrors Validate(const nlohmann::json& object) const;
  virtual FieldErrors ValidateUpdate(const nlohmann::json& object, const nlohmann::json& old) const;
  // Normalises an object before it is stored (after validation).
  virtual void Canonicalize(nlohmann::json& object) const;
  // PUT of a missing object creates it.
  virtual bool AllowCreateOnUpdate() const { return false; }
  // PUT without metadata.resourceVersion is allowed (last writer wins).
  virtual bool AllowUnconditionalUpdate() const { return true; }
  // metadata.generation starts at 1 and grows by one whenever something other than
  // metadata and status changes.
  virtual bool TracksGeneration() const { return false; }
  // Whether an update moves metadata.generation on: by default when something other than
  // metadata and status changed (custom resources without a status subresource count
  // status too).
  virtual bool GenerationChanged(const nlohmann::json& object, const nlohmann::json& old) const;
  // The kind has a status subresource: the main resource ignores status changes.
  virtual bool HasStatusSubresource() const { return false; }
  // The fields a write through this strategy cannot change (upstream's GetResetFields), as
  // paths of field names: no manager gains them in managedFields. Default: status, when the
  // kind has a status subresource. `old` is the stored object (null on create).
  virtual std::vector<std::vector<std::string>> ResetFields(const nlohmann::json& object,
                                                            const nlohmann::json* old) const;
  // The kind's rule for metadata.name and generateName (upstream's ValidateNameFunc); rules
  // beyond it (a CRD's "<plural>.<group>") are the kind's Validate.
  virtual apimachinery::validation::NameRule Names() const {
    return apimachinery::validation::NameRule::kDNS1123Subdomain;
  }
  // On DELETE, before the object is marked or removed: changes a kind makes to an object
  // that is going away (a namespace turns Terminating). True when the kind itself keeps
  // the object until something finalizes it, even without metadata.finalizers.
  virtual bool PrepareForDelete(nlohmann::json& object) const;
  // A DELETE the kind refuses outright (an immortal namespace, a namespace already being
  // emptied), given the stored object; std::nullopt to go on.
  virtual std::optional<apimachinery::Status> RefuseDelete(const nlohmann::json& object) const;
  // Whether propagationPolicy Orphan and Foreground add the garbage collector's finalizers;
  // false for kinds upstream deletes at once whatever the policy (events).
  virtual bool GarbageCollected() const { return true; }
  // Nothing keeps a marked object any more: it is removed by the update that emptied
  // its finalizers. Default: metadata.finalizers is empty.
  virtual bool Finalized(const nlohmann::json& object) const;
};

// What a write to a /status subresource may change, as upstream's status strategies say.
struct StatusOptions {
  // metadata fields kept as stored. Most kinds keep none: labels, annotations, finalizers and
  // owner references change through /status as through the main resource. Deployments keep
  // their labels, pods their ownerReferences; kResetObjectMetaForStatus is what the kinds that
  // reset the object's metadata keep (APIServices, custom resources, flow control, ...).
  std::vector<std::string> stored_metadata;
  // Inherited from the main resource's strategy, as upstream's status strategies embed it.
  bool allow_unconditional_update = true;
};
// metav1.ResetObjectMetaForStatus: the metadata a client may not change through /status there.
inline const std::vector<std::string> kResetObjectMetaForStatus = {"labels", "annotations",
                                                                   "finalizers", "ownerReferences"};

// The strategy of a /status subresource: status and metadata come from the request (but for
// StatusOptions::stored_metadata), everything else (the spec) is kept as stored. The Store
// keeps what no update may change (uid, creationTimestamp, deletionTimestamp).
class StatusStrategy : public Strategy {
 public:
  StatusStrategy() = default;
  explicit StatusStrategy(StatusOptions options) : options_(std::move(options)) {}
  void PrepareForUpdate(nlohmann::json& object, const nlohmann::json& old) const override;
  bool AllowUnconditionalUpdate() const override { return options_.allow_unconditional_update; }
  // Everything but status and the metadata a client may change here.
  std::vector<std::vector<std::string>> ResetFields(const nlohmann::json& object,
                                                    const nlohmann::json* old) const override;

 private:
  StatusOptions options_;
};

}  // namespace registry
