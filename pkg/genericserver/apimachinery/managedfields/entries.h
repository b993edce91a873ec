#pragma once
// metadata.managedFields as upstream's fieldmanager reads and writes it: one entry per
// manager, operation (Apply or Update), apiVersion and subresource, with the set of fields
// that manager owns (FieldsV1) and when it last changed them. Values; any thread.

#include <expected>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/fieldpath/set.h"

namespace apimachinery::managedfields {

struct Entry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string subresource;
  std::string time;  // RFC 3339 in seconds; empty: none
  fieldpath::Set set;

  bool applied() const { return operation == "Apply"; }
  // Whether `other` is the same manager (the entry's identity leaves out time and fields,
  // and an applier's apiVersion, as upstream's manager identifier does).
  bool SameManager(const Entry& other) const {
    return manager == other.manager && operation == other.operation &&
           (applied() || api_version == other.api_version) && subresource == other.subresource;
  }
};

using Entries = std::vector<Entry>;

// The entries of `object`'s metadata.managedFields (none when absent); fails on entries that
// are not objects or whose fieldsV1 does not decode, with upstream's reason.
std::expected<Entries, std::string> Decode(const nlohmann::json& object);
// The managedFields list in upstream's order: Apply before Update, then by time, manager,
// apiVersion and subresource.
nlohmann::json Encode(Entries entries);

}  // namespace apimachinery::managedfields
