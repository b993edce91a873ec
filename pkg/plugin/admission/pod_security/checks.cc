#include "pkg/plugin/admission/pod_security/checks.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace plugin::admission::pod_security {

namespace {

using apimachinery::validation::GoQuote;
using nlohmann::json;

const json kNull;

const json& At(const json& object, std::string_view key) {
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string Str(const json& object, std::string_view key) {
  const json& v = At(object, key);
  return v.is_string() ? v.get<std::string>() : "";
}

// Go's %q of each, joined by ", ".
std::string JoinQuote(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + GoQuote(i);
  return out;
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : std::string(sep)) + i;
  return out;
}

std::string Pluralize(const char* one, const char* many, size_t n) { return n == 1 ? one : many; }

// `container "a"`, `containers "a", "b"`.
std::string Containers(const std::vector<std::string>& names) {
  return Pluralize("container", "containers", names.size()) + " " + JoinQuote(names);
}

void AddUnique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// Every container: init containers, containers, ephemeral containers.
void ForEachContainer(const json& spec, const std::function<void(const json&)>& visit) {
  for (const char* field : {"initContainers", "containers", "ephemeralContainers"}) {
    const json& list = At(spec, field);
    if (!list.is_array()) continue;
    for (const json& c : list) {
      if (c.is_object()) visit(c);
    }
  }
}

// Who a pod-and-containers check names: "pod", "pod and container "a"", "containers "a"".
std::string Subject(bool pod, const std::vector<std::string>& containers) {
  if (!pod) return Containers(containers);
  if (containers.empty()) return "pod";
  return "pod and " + Containers(containers);
}

bool IsWindows(const json& spec) { return Str(At(spec, "os"), "name") == "windows"; }

using CheckFunc =
    std::function<std::optional<Violation>(const json& metadata, const json& spec, int minor)>;

// allowPrivilegeEscalation (restricted): every container sets it to false.
std::optional<Violation> AllowPrivilegeEscalation(const json&, const json& spec, int minor) {
  if (minor >= 25 && IsWindows(spec)) return std::nullopt;
  std::vector<std::string> bad;
  ForEachContainer(spec, [&](const json& c) {
    const json& v = At(At(c, "securityContext"), "allowPrivilegeEscalation");
    if (!v.is_boolean() || v.get<bool>()) bad.push_back(Str(c, "name"));
  });
  if (bad.empty()) return std::nullopt;
  return Violation{"allowPrivilegeEscalation != false",
                   Containers(bad) + " must set securityContext.allowPrivilegeEscalation=false"};
}

// AppArmor (baseline): no profile but the runtime's default or a localhost one, in the
// fields or the annotations.
std::optional<Violation> AppArmor(const json& metadata, const json& spec, int) {
  std::vector<std::string> types, annotations;
  const auto bad_type = [&](const json& context) {
    const std::string type = Str(At(context, "appArmorProfile"), "type");
    if (type.empty() || type == "RuntimeDefault" || type == "Localhost") return false;
    AddUnique(types, GoQuote(type));
    return true;
  };
  const bool pod = bad_type(At(spec, "securityContext"));
  std::vector<std::string> containers;
  ForEachContainer(spec, [&](const json& c) {
    if (bad_type(At(c, "securityContext"))) containers.push_back(Str(c, "name"));
  });
  const json& all = At(metadata, "annotations");
  if (all.is_object()) {
    const std::string prefix = "container.apparmor.security.beta.kubernetes.io/";
    for (const auto& [key, value] : all.items()) {
      if (!key.starts_with(prefix) || !value.is_string()) continue;
      const std::string v = value.get<std::string>();
      if (!v.empty() && v != "runtime/default" && !v.starts_with("localhost/")) {
        annotations.push_back(key + "=" + GoQuote(v));
      }
    }
  }
  if (types.empty() && annotations.empty()) return std::nullopt;
  std::vector<std::string> setters;
  if (pod) setters.push_back("pod");
  if (!containers.empty()) setters.push_back(Containers(containers));
  if (!annotations.empty())
    setters.push_back(Pluralize("annotation", "annotations", annotations.size()));
  std::sort(types.begin(), types.end());
  std::sort(annotations.begin(), annotations.end());
  std::vector<std::string> values = types;
  values.insert(values.end(), annotations.begin(), annotations.end());
  return Violation{
      Pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", values.size()),
      Join(setters, " and ") + " must not set AppArmor profile type to " + Join(values, ", ")};
}

const std::set<std::string>& BaselineCapabilities() {
  static const std::set<std::string> kAllowed = {
      "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",      "MKNOD",
      "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};
  return kAllowed;
}

// Capabilities added, per container.
std::vector<std::string> Added(const json& c) {
  std::vector<std::string> out;
  const json& add = At(At(At(c, "securityContext"), "capabilities"), "add");
  if (!add.is_array()) return out;
  for (const json& cap : add) {
    if (cap.is_string()) out.push_back(cap.get<std::string>());
  }
  return out;
}

// capabilities (baseline): only the default set may be added.
std::optional<Violation> CapabilitiesBaseline(const json&, const json& spec, int) {
  std::vector<std::string> containers, caps;
  ForEachContainer(spec, [&](const json& c) {
    bool found = false;
    for (const std::string& cap : Added(c)) {
      if (BaselineCapabilities().contains(cap)) continue;
      found = true;
      AddUnique(caps, cap);
    }
    if (found) containers.push_back(Str(c, "name"));
  });
  if (containers.empty()) return std::nullopt;
  std::sort(caps.begin(), caps.end());
  return Violation{"non-default capabilities", Containers(containers) + " must not include " +
                                                   JoinQuote(caps) +
                                                   " in securityContext.capabilities.add"};
}

// capabilities (restricted): drop ALL, add at most NET_BIND_SERVICE.
std::optional<Violation> CapabilitiesRestricted(const json& metadata, const json& spec, int minor) {
  // Before 1.22 the restricted level held capabilities to the baseline set.
  if (minor < 22) return CapabilitiesBaseline(metadata, spec, minor);
  if (minor >= 25 && IsWindows(spec)) return std::nullopt;
  std::vector<std::string> missing_drop, adding, caps;
  ForEachContainer(spec, [&](const json& c) {
    const json& drop = At(At(At(c, "securityContext"), "capabilities"), "drop");
    bool drops_all = false;
    if (drop.is_array()) {
      for (const json& d : drop) drops_all = drops_all || d == "ALL";
    }
    if (!drops_all) missing_drop.push_back(Str(c, "name"));
    bool found = false;
    for (const std::string& cap : Added(c)) {
      if (cap == "NET_BIND_SERVICE") continue;
      found = true;
      AddUnique(caps, cap);
    }
    if (found) adding.push_back(Str(c, "name"));
  });
  if (missing_drop.empty() && adding.empty()) return std::nullopt;
  std::vector<std::string> details;
  if (!missing_drop.empty()) {
    details.push_back(Containers(missing_drop) +
                      " must set securityContext.capabilities.drop=[\"ALL\"]");
  }
  if (!adding.empty()) {
    std::sort(caps.begin(), caps.end());
    details.push_back(Containers(adding) + " must not include " + JoinQuote(caps) +
                      " in securityContext.capabilities.add");
  }
  return Violation{"unrestricted capabilities", Join(details, "; ")};
}

// host namespaces (baseline).
std::optional<Violation> HostNamespaces(const json&, const json& spec, int) {
  std::vector<std::string> set;
  for (const char* field : {"hostIPC", "hostNetwork", "hostPID"}) {
    if (At(spec, field) == true) set.push_back(std::string(field) + "=true");
  }
  if (set.empty()) return std::nullopt;
  return Violation{"host namespaces", Join(set, ", ")};
}

std::vector<std::pair<std::string, const json*>> Volumes(const json& spec) {
  std::vector<std::pair<std::string, const json*>> out;
  const json& volumes = At(spec, "volumes");
  if (!volumes.is_array()) return out;
  for (const json& v : volumes) {
    if (v.is_object()) out.emplace_back(Str(v, "name"), &v);
  }
  return out;
}

// hostPath volumes (baseline).
std::optional<Violation> HostPathVolumes(const json&, const json& spec, int) {
  std::vector<std::string> bad;
  for (const auto& [name, v] : Volumes(spec)) {
    if (!At(*v, "hostPath").is_null()) bad.push_back(name);
  }
  if (bad.empty()) return std::nullopt;
  return Violation{"hostPath volumes",
                   Pluralize("volume", "volumes", bad.size()) + " " + JoinQuote(bad)};
}

// hostPort (baseline): no container port has one.
std::optional<Violation> HostPorts(const json&, const json& spec, int) {
  std::vector<std::string> containers, ports;
  ForEachContainer(spec, [&](const json& c) {
    bool found = false;
    const json& list = At(c, "ports");
    if (!list.is_array()) return;
    for (const json& p : list) {
      const json& host = At(p, "hostPort");
      if (host.is_number_integer() && host.get<int64_t>() != 0) {
        found = true;
        AddUnique(ports, std::to_string(host.get<int64_t>()));
      }
    }
    if (found) containers.push_back(Str(c, "name"));
  });
  if (containers.empty()) return std::nullopt;
  std::sort(ports.begin(), ports.end());  // as strings, as upstream's sets sort them
  return Violation{
      "hostPort", Containers(containers) + " " + Pluralize("uses", "use", containers.size()) + " " +
                      Pluralize("hostPort", "hostPorts", ports.size()) + " " + Join(ports, ", ")};
}

// privileged (baseline).
std::optional<Violation> Privileged(const json&, const json& spec, int minor) {
  if (minor >= 25 && IsWindows(spec)) return std::nullopt;
  std::vector<std::string> bad;
  ForEachContainer(spec, [&](const json& c) {
    if (At(At(c, "securityContext"), "privileged") == true) bad.push_back(Str(c, "name"));
  });
  if (bad.empty()) return std::nullopt;
  return Violation{"privileged", Containers(bad) + " must not set securityContext.privileged=true"};
}

// procMount (baseline): the default one only.
std::optional<Violation> ProcMount(const json&, const json& spec, int) {
  std::vector<std::string> bad, values;
  ForEachContainer(spec, [&](const json& c) {
    const std::string mount = Str(At(c, "securityContext"), "procMount");
    if (!mount.empty() && mount != "Default") {
      bad.push_back(Str(c, "name"));
      AddUnique(values, mount);
    }
  });
  if (bad.empty()) return std::nullopt;
  return Violation{"procMount", Containers(bad) + " must not set securityContext.procMount to " +
                                    JoinQuote(values)};
}

// volume types (restricted).
std::optional<Violation> RestrictedVolumes(const json&, const json& spec, int) {
  static const std::set<std::string> kAllowed = {"configMap", "csi",       "downwardAPI",
                                                 "emptyDir",  "ephemeral", "persistentVolumeClaim",
                                                 "projected", "secret"};
  std::vector<std::string> bad, types;
  for (const auto& [name, v] : Volumes(spec)) {
    bool found = false;
    for (const auto& [key, value] : v->items()) {
      if (key == "name" || value.is_null() || kAllowed.contains(key)) continue;
      found = true;
      AddUnique(types, key);
    }
    if (found) bad.push_back(name);
  }
  if (bad.empty()) return std::nullopt;
  std::sort(types.begin(), types.end());
  return Violation{"restricted volume types",
                   Pluralize("volume", "volumes", bad.size()) + " " + JoinQuote(bad) + " " +
                       Pluralize("uses", "use", bad.size()) + " restricted volume " +
                       Pluralize("type", "types", types.size()) + " " + JoinQuote(types)};
}

// runAsNonRoot (restricted): the pod or every container says true.
std::optional<Violation> RunAsNonRoot(const json&, const json& spec, int) {
  const json& pod = At(At(spec, "securityContext"), "runAsNonRoot");
  const bool pod_false = pod == false;
  const bool pod_true = pod == true;
  std::vector<std::string> explicit_bad, implicit_bad;
  ForEachContainer(spec, [&](const json& c) {
    const json& v = At(At(c, "securityContext"), "runAsNonRoot");
    if (v == false) {
      explicit_bad.push_back(Str(c, "name"));
    } else if (!v.is_boolean() && !pod_true) {
      implicit_bad.push_back(Str(c, "name"));
    }
  });
  if (!pod_false && explicit_bad.empty() && implicit_bad.empty()) return std::nullopt;
  std::vector<std::string> details;
  if (pod_false || !explicit_bad.empty()) {
    details.push_back(Subject(pod_false, explicit_bad) +
                      " must not set securityContext.runAsNonRoot=false");
  }
  if (!implicit_bad.empty()) {
    details.push_back("pod or " + Containers(implicit_bad) +
                      " must set securityContext.runAsNonRoot=true");
  }
  return Violation{"runAsNonRoot != true", Join(details, "; ")};
}

// runAsUser=0 (restricted).
std::optional<Violation> RunAsUser(const json&, const json& spec, int minor) {
  if (minor < 23) return std::nullopt;  // the check came with 1.23
  const auto root = [](const json& context) {
    const json& v = At(context, "runAsUser");
    return v.is_number_integer() && v.get<int64_t>() == 0;
  };
  const bool pod = root(At(spec, "securityContext"));
  std::vector<std::string> bad;
  ForEachContainer(spec, [&](const json& c) {
    if (root(At(c, "securityContext"))) bad.push_back(Str(c, "name"));
  });
  if (!pod && bad.empty()) return std::nullopt;
  return Violation{"runAsUser=0", Subject(pod, bad) + " must not set runAsUser=0"};
}

// seLinuxOptions (baseline): the container types only, no user or role.
std::optional<Violation> SELinuxOptions(const json&, const json& spec, int minor) {
  std::vector<std::string> allowed = {"", "container_t", "container_init_t", "container_kvm_t"};
  if (minor >= 31) allowed.push_back("container_engine_t");
  std::vector<std::string> types;
  bool user = false, role = false;
  const auto bad = [&](const json& context) {
    const json& options = At(context, "seLinuxOptions");
    if (!options.is_object()) return false;
    bool found = false;
    const std::string type = Str(options, "type");
    if (std::find(allowed.begin(), allowed.end(), type) == allowed.end()) {
      AddUnique(types, type);
      found = true;
    }
    if (!Str(options, "user").empty()) user = found = true;
    if (!Str(options, "role").empty()) role = found = true;
    return found;
  };
  const bool pod = bad(At(spec, "securityContext"));
  std::vector<std::string> containers;
  ForEachContainer(spec, [&](const json& c) {
    if (bad(At(c, "securityContext"))) containers.push_back(Str(c, "name"));
  });
  if (!pod && containers.empty()) return std::nullopt;
  std::vector<std::string> details;
  if (!types.empty()) {
    details.push_back(Pluralize("type ", "types ", types.size()) + JoinQuote(types));
  }
  if (user) details.push_back("user may not be set");
  if (role) details.push_back("role may not be set");
  return Violation{"seLinuxOptions",
                   Subject(pod, containers) +
                       " set forbidden securityContext.seLinuxOptions: " + Join(details, "; ")};
}

std::string SeccompType(const json& context) { return Str(At(context, "seccompProfile"), "type"); }

// seccompProfile (baseline): not Unconfined; before 1.19 the annotations.
std::optional<Violation> SeccompBaseline(const json& metadata, const json& spec, int minor) {
  if (minor < 19) {
    std::vector<std::string> bad;
    const json& annotations = At(metadata, "annotations");
    if (annotations.is_object()) {
      for (const auto& [key, value] : annotations.items()) {
        if (key != "seccomp.security.alpha.kubernetes.io/pod" &&
            !key.starts_with("container.seccomp.security.alpha.kubernetes.io/")) {
          continue;
        }
        const std::string v = value.is_string() ? value.get<std::string>() : "";
        if (v.empty() || v == "runtime/default" || v == "docker/default" ||
            v.starts_with("localhost/")) {
          continue;
        }
        bad.push_back(key + "=" + GoQuote(v));
      }
    }
    if (bad.empty()) return std::nullopt;
    std::sort(bad.begin(), bad.end());
    return Violation{"seccompProfile",
                     Pluralize("forbidden annotation", "forbidden annotations", bad.size()) + " " +
                         Join(bad, ", ")};
  }
  std::vector<std::string> bad, types;
  const auto forbidden = [&](const std::string& t) {
    if (t.empty() || t == "RuntimeDefault" || t == "Localhost") return false;
    AddUnique(types, t);
    return true;
  };
  const bool pod = forbidden(SeccompType(At(spec, "securityContext")));
  ForEachContainer(spec, [&](const json& c) {
    if (forbidden(SeccompType(At(c, "securityContext")))) bad.push_back(Str(c, "name"));
  });
  if (!pod && bad.empty()) return std::nullopt;
  std::sort(types.begin(), types.end());
  return Violation{"seccompProfile", Subject(pod, bad) +
                                         " must not set securityContext.seccompProfile.type to " +
                                         JoinQuote(types)};
}

// seccompProfile (restricted): RuntimeDefault or Localhost, on the pod or every container.
std::optional<Violation> SeccompRestricted(const json& metadata, const json& spec, int minor) {
  // Before 1.19 the restricted level held seccomp to the baseline's annotations.
  if (minor < 19) return SeccompBaseline(metadata, spec, minor);
  if (minor >= 25 && IsWindows(spec)) return std::nullopt;
  const auto good = [](const std::string& t) { return t == "RuntimeDefault" || t == "Localhost"; };
  const std::string pod_type = SeccompType(At(spec, "securityContext"));
  const bool pod_bad = !pod_type.empty() && !good(pod_type);
  const bool pod_good = good(pod_type);
  std::vector<std::string> explicit_bad, implicit_bad, bad_types;
  ForEachContainer(spec, [&](const json& c) {
    const std::string t = SeccompType(At(c, "securityContext"));
    if (!t.empty() && !good(t)) {
      explicit_bad.push_back(Str(c, "name"));
      AddUnique(bad_types, t);
    } else if (t.empty() && !pod_good) {
      implicit_bad.push_back(Str(c, "name"));
    }
  });
  if (!pod_bad && explicit_bad.empty() && implicit_bad.empty()) return std::nullopt;
  if (pod_bad) AddUnique(bad_types, pod_type);
  std::sort(bad_types.begin(), bad_types.end());
  std::vector<std::string> details;
  if (pod_bad || !explicit_bad.empty()) {
    details.push_back(Subject(pod_bad, explicit_bad) +
                      " must not set securityContext.seccompProfile.type to " +
                      JoinQuote(bad_types));
  }
  if (!implicit_bad.empty()) {
    details.push_back("pod or " + Containers(implicit_bad) +
                      " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or "
                      "\"Localhost\"");
  }
  return Violation{"seccompProfile", Join(details, "; ")};
}

// sysctls (baseline): the safe set of the version.
std::optional<Violation> Sysctls(const json&, const json& spec, int minor) {
  std::vector<std::string> allowed = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
                                      "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
                                      "net.ipv4.ip_unprivileged_port_start"};
  if (minor >= 27) allowed.push_back("net.ipv4.ip_local_reserved_ports");
  if (minor >= 29) {
    for (const char* s : {"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                          "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}) {
      allowed.push_back(s);
    }
  }
  if (minor >= 32) {
    allowed.push_back("net.ipv4.tcp_rmem");
    allowed.push_back("net.ipv4.tcp_wmem");
  }
  std::vector<std::string> bad;
  const json& sysctls = At(At(spec, "securityContext"), "sysctls");
  if (sysctls.is_array()) {
    for (const json& s : sysctls) {
      const std::string name = Str(s, "name");
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) AddUnique(bad, name);
    }
  }
  if (bad.empty()) return std::nullopt;
  return Violation{"forbidden sysctls", Join(bad, ", ")};
}

// hostProcess (baseline): no Windows host process pod or container.
std::optional<Violation> HostProcess(const json&, const json& spec, int) {
  const auto host = [](const json& context) {
    return At(At(context, "windowsOptions"), "hostProcess") == true;
  };
  const bool pod = host(At(spec, "securityContext"));
  std::vector<std::string> bad;
  ForEachContainer(spec, [&](const json& c) {
    if (host(At(c, "securityContext"))) bad.push_back(Str(c, "name"));
  });
  if (!pod && bad.empty()) return std::nullopt;
  return Violation{
      "hostProcess",
      Subject(pod, bad) + " must not set securityContext.windowsOptions.hostProcess=true"};
}

struct Registered {
  Level level;
  CheckFunc check;
  bool replaced_at_restricted = false;  // a restricted check supersedes it
};

// Upstream's checks: the baseline ones, then the restricted ones, each in the order of
// their IDs (as upstream's messages list them).
const std::vector<Registered>& AllChecks() {
  static const std::vector<Registered> kChecks = {
      {Level::kBaseline, AppArmor},
      {Level::kBaseline, CapabilitiesBaseline, true},
      {Level::kBaseline, HostNamespaces},
      {Level::kBaseline, HostPathVolumes, true},
      {Level::kBaseline, HostPorts},
      {Level::kBaseline, Privileged},
      {Level::kBaseline, ProcMount},
      {Level::kBaseline, SELinuxOptions},
      {Level::kBaseline, SeccompBaseline, true},
      {Level::kBaseline, Sysctls},
      {Level::kBaseline, HostProcess},
      {Level::kRestricted, AllowPrivilegeEscalation},
      {Level::kRestricted, CapabilitiesRestricted},
      {Level::kRestricted, RestrictedVolumes},
      {Level::kRestricted, RunAsNonRoot},
      {Level::kRestricted, RunAsUser},
      {Level::kRestricted, SeccompRestricted},
  };
  return kChecks;
}

}  // namespace

std::vector<Violation> Check(const LevelVersion& level, const json& metadata, const json& spec) {
  std::vector<Violation> out;
  if (level.level == Level::kPrivileged) return out;
  const bool restricted = level.level == Level::kRestricted;
  for (const Registered& r : AllChecks()) {
    if (r.level == Level::kRestricted && !restricted) continue;
    if (r.replaced_at_restricted && restricted) continue;
    if (auto v = r.check(metadata, spec, level.EffectiveMinor())) out.push_back(std::move(*v));
  }
  return out;
}

std::string Describe(const std::vector<Violation>& violations) {
  std::string out;
  for (const Violation& v : violations) {
    if (!out.empty()) out += ", ";
    out += v.reason;
    if (!v.detail.empty()) out += " (" + v.detail + ")";
  }
  return out;
}

}  // namespace plugin::admission::pod_security
