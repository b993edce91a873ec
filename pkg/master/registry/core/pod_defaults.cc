#include "pkg/master/registry/core/pod_defaults.h"

#include <string>

#include <nlohmann/json.hpp>

namespace master::resources {
namespace {

using nlohmann::json;

constexpr int kDefaultFileMode = 0644;  // 420, as upstream's volume sources default

// "Always" for :latest or an untagged image, "IfNotPresent" otherwise (a tag or a digest).
std::string PullPolicyFor(const std::string& image) {
  if (image.find('@') != std::string::npos) return "IfNotPresent";
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  const bool tagged = colon != std::string::npos && (slash == std::string::npos || colon > slash);
  if (!tagged) return "Always";
  return image.substr(colon + 1) == "latest" ? "Always" : "IfNotPresent";
}

void DefaultFieldRef(json& holder) {
  if (auto ref = holder.find("fieldRef"); ref != holder.end() && ref->is_object()) {
    SetDefault(*ref, "apiVersion", "v1");
  }
}

// An httpGet, tcpSocket, exec or grpc handler (probes and lifecycle hooks).
void DefaultHandler(json& handler) {
  if (auto get = handler.find("httpGet"); get != handler.end() && get->is_object()) {
    SetDefault(*get, "path", "/");
    SetDefault(*get, "scheme", "HTTP");
  }
}

void DefaultProbe(json& probe) {
  if (!probe.is_object()) return;
  DefaultHandler(probe);
  SetDefault(probe, "timeoutSeconds", 1);
  SetDefault(probe, "periodSeconds", 10);
  SetDefault(probe, "successThreshold", 1);
  SetDefault(probe, "failureThreshold", 3);
}

void DefaultContainer(json& c, bool host_network) {
  if (!c.is_object()) return;
  if (!c.contains("imagePullPolicy") && c.contains("image") && c["image"].is_string()) {
    c["imagePullPolicy"] = PullPolicyFor(c["image"].get<std::string>());
  }
  SetDefault(c, "terminationMessagePath", "/dev/termination-log");
  SetDefault(c, "terminationMessagePolicy", "File");
  SetDefault(c, "resources", json::object());
  if (auto ports = c.find("ports"); ports != c.end() && ports->is_array()) {
    for (json& port : *ports) {
      if (!port.is_object()) continue;
      SetDefault(port, "protocol", "TCP");
      if (host_network && !port.contains("hostPort") && port.contains("containerPort")) {
        port["hostPort"] = port["containerPort"];
      }
    }
  }
  if (auto env = c.find("env"); env != c.end() && env->is_array()) {
    for (json& var : *env) {
      if (var.is_object() && var.contains("valueFrom") && var["valueFrom"].is_object()) {
        DefaultFieldRef(var["valueFrom"]);
      }
    }
  }
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
    if (auto p = c.find(probe); p != c.end()) DefaultProbe(*p);
  }
  if (auto lifecycle = c.find("lifecycle"); lifecycle != c.end() && lifecycle->is_object()) {
    for (const char* hook : {"postStart", "preStop"}) {
      if (auto h = lifecycle->find(hook); h != lifecycle->end() && h->is_object()) {
        DefaultHandler(*h);
      }
    }
  }
}

void DefaultDownwardItems(json& source) {
  if (auto items = source.find("items"); items != source.end() && items->is_array()) {
    for (json& item : *items) {
      if (item.is_object()) DefaultFieldRef(item);
    }
  }
}

// The volume sources a user meets; the exotic in-tree drivers keep what was sent.
constexpr const char* kVolumeSources[] = {"hostPath",
                                          "emptyDir",
                                          "gcePersistentDisk",
                                          "awsElasticBlockStore",
                                          "gitRepo",
                                          "secret",
                                          "nfs",
                                          "iscsi",
                                          "glusterfs",
                                          "persistentVolumeClaim",
                                          "rbd",
                                          "flexVolume",
                                          "cinder",
                                          "cephfs",
                                          "flocker",
                                          "downwardAPI",
                                          "fc",
                                          "azureFile",
                                          "configMap",
                                          "vsphereVolume",
                                          "quobyte",
                                          "azureDisk",
                                          "photonPersistentDisk",
                                          "projected",
                                          "portworxVolume",
                                          "scaleIO",
                                          "storageos",
                                          "csi",
                                          "ephemeral"};

void DefaultVolume(json& volume) {
  if (!volume.is_object()) return;
  bool has_source = false;
  for (const char* source : kVolumeSources) has_source = has_source || volume.contains(source);
  if (!has_source) volume["emptyDir"] = json::object();
  for (const char* source : {"secret", "configMap", "downwardAPI", "projected"}) {
    if (auto s = volume.find(source); s != volume.end() && s->is_object()) {
      SetDefault(*s, "defaultMode", kDefaultFileMode);
    }
  }
  if (auto s = volume.find("downwardAPI"); s != volume.end() && s->is_object()) {
    DefaultDownwardItems(*s);
  }
  if (auto s = volume.find("hostPath"); s != volume.end() && s->is_object()) {
    SetDefault(*s, "type", "");
  }
  if (auto s = volume.find("projected"); s != volume.end() && s->is_object()) {
    if (auto sources = s->find("sources"); sources != s->end() && sources->is_array()) {
      for (json& p : *sources) {
        if (!p.is_object()) continue;
        if (auto d = p.find("downwardAPI"); d != p.end() && d->is_object()) {
          DefaultDownwardItems(*d);
        }
        if (auto t = p.find("serviceAccountToken"); t != p.end() && t->is_object()) {
          SetDefault(*t, "expirationSeconds", 3600);
        }
      }
    }
  }
}

}  // namespace

void DefaultPodSpec(json& spec) {
  if (!spec.is_object()) return;
  const bool host_network = spec.value("hostNetwork", false) == true;
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    if (auto cs = spec.find(list); cs != spec.end() && cs->is_array()) {
      for (json& c : *cs) DefaultContainer(c, host_network);
    }
  }
  if (auto volumes = spec.find("volumes"); volumes != spec.end() && volumes->is_array()) {
    for (json& v : *volumes) DefaultVolume(v);
  }
  // The deprecated serviceAccount names the account when serviceAccountName does not, and
  // always mirrors it (v1's conversion of PodSpec).
  const json& deprecated = spec.value("serviceAccount", json());
  const json& name = spec.value("serviceAccountName", json());
  if ((!name.is_string() || name.get<std::string>().empty()) && deprecated.is_string() &&
      !deprecated.get<std::string>().empty()) {
    spec["serviceAccountName"] = deprecated;
  }
  if (spec.value("serviceAccountName", json()).is_string() &&
      !spec["serviceAccountName"].get<std::string>().empty()) {
    spec["serviceAccount"] = spec["serviceAccountName"];
  } else {
    spec.erase("serviceAccount");
  }
  SetDefault(spec, "dnsPolicy", "ClusterFirst");
  SetDefault(spec, "restartPolicy", "Always");
  SetDefault(spec, "securityContext", json::object());
  SetDefault(spec, "terminationGracePeriodSeconds", 30);
  SetDefault(spec, "schedulerName", "default-scheduler");
}

void DefaultPodTemplate(json& template_) {
  if (!template_.is_object()) return;
  json& meta = Child(template_, "metadata");
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
  DefaultPodSpec(Child(template_, "spec"));
}

}  // namespace master::resources
