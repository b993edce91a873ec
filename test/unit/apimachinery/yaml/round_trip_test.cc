// Kubernetes manifests through YAMLToJSON and back through JSONToYAML.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"

namespace {

using nlohmann::json;

json ToJSON(std::string_view yaml) {
  auto r = apimachinery::yaml::YAMLToJSON(yaml);
  INFO(yaml);
  REQUIRE(r.has_value());
  return *r;
}

// YAML -> JSON -> YAML -> JSON keeps the value, and the written YAML is a fixed point.
void CheckRoundTrip(const json& value) {
  const std::string yaml = apimachinery::yaml::JSONToYAML(value);
  INFO(yaml);
  CHECK(ToJSON(yaml) == value);
  CHECK(apimachinery::yaml::JSONToYAML(ToJSON(yaml)) == yaml);
}

constexpr const char* kDeployment = R"(# as a user writes it
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels: &labels
    app: nginx
    tier: "frontend"
spec:
  replicas: 3
  selector:
    matchLabels: *labels
  template:
    metadata:
      labels:
        <<: *labels
        version: "1.0"
    spec:
      containers:
        - name: nginx
          image: nginx:1.25.3
          ports:
            - containerPort: 80
              protocol: TCP
          args: ["--port", "80", --verbose]
          env:
            - {name: DEBUG, value: "true"}
            - name: EMPTY
              value: ""
          resources:
            limits: {cpu: 500m, memory: 128Mi}
      nodeSelector: {}
      tolerations: []
)";

}  // namespace

TEST_CASE("YAML round trip: a Deployment", "[yaml]") {
  const json j = ToJSON(kDeployment);
  CHECK(j["spec"]["replicas"] == 3);
  CHECK(j["spec"]["template"]["metadata"]["labels"] ==
        json::parse(R"({"app":"nginx","tier":"frontend","version":"1.0"})"));
  CHECK(j["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] == "true");
  CHECK(apimachinery::yaml::JSONToYAML(j) ==
        R"(apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app: nginx
    tier: frontend
  name: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
      tier: frontend
  template:
    metadata:
      labels:
        app: nginx
        tier: frontend
        version: "1.0"
    spec:
      containers:
      - args:
        - --port
        - "80"
        - --verbose
        env:
        - name: DEBUG
          value: "true"
        - name: EMPTY
          value: ""
        image: nginx:1.25.3
        name: nginx
        ports:
        - containerPort: 80
          protocol: TCP
        resources:
          limits:
            cpu: 500m
            memory: 128Mi
      nodeSelector: {}
      tolerations: []
)");
  CheckRoundTrip(j);
}

TEST_CASE("YAML round trip: a ConfigMap with multi-line data", "[yaml]") {
  const json j = ToJSON(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: default
data:
  nginx.conf: |
    server {
      listen 80;

      location / {
        root /usr/share/nginx/html;
      }
    }
  script.sh: |-
    #!/bin/sh
    echo "hi"
  folded: >
    this is
    folded text
  keep: |+
    kept

  port: "8080"
  enabled: "yes"
)");
  CHECK(j["data"]["nginx.conf"] ==
        "server {\n  listen 80;\n\n  location / {\n    root /usr/share/nginx/html;\n  }\n}\n");
  CHECK(j["data"]["folded"] == "this is folded text\n");
  CHECK(j["data"]["keep"] == "kept\n\n");
  CHECK(apimachinery::yaml::JSONToYAML(j) == R"(apiVersion: v1
data:
  enabled: "yes"
  folded: |
    this is folded text
  keep: |+
    kept

  nginx.conf: |
    server {
      listen 80;

      location / {
        root /usr/share/nginx/html;
      }
    }
  port: "8080"
  script.sh: |-
    #!/bin/sh
    echo "hi"
kind: ConfigMap
metadata:
  name: cfg
  namespace: default
)");
  CheckRoundTrip(j);
}

TEST_CASE("YAML round trip: a Secret", "[yaml]") {
  const json j = ToJSON(R"(apiVersion: v1
kind: Secret
metadata:
  name: creds
  creationTimestamp: null
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","kind":"Secret"}
type: kubernetes.io/tls
data:
  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
  tls.key: bm90IGEga2V5
stringData:
  password: "0123"
  token: !!binary aGVsbG8=
immutable: true
)");
  CHECK(j["metadata"]["creationTimestamp"].is_null());
  CHECK(j["stringData"] == json::parse(R"({"password":"0123","token":"hello"})"));
  CHECK(j["immutable"] == true);
  CHECK(apimachinery::yaml::JSONToYAML(j) == R"(apiVersion: v1
data:
  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
  tls.key: bm90IGEga2V5
immutable: true
kind: Secret
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","kind":"Secret"}
  creationTimestamp: null
  name: creds
stringData:
  password: "0123"
  token: hello
type: kubernetes.io/tls
)");
  CheckRoundTrip(j);
}

TEST_CASE("YAML round trip: JSON values survive JSONToYAML and YAMLToJSON", "[yaml]") {
  CheckRoundTrip(json::parse(R"({
    "strings": ["true", "no", "~", "", "123", "0x1F", "1e3", ".5", "2024-01-01", "1:30", "<<",
                " pad ", "x: y", "- z", "#c", "a\tb", "日本語", "😀", "a\nb", "a\n", "a\n\n",
                "\n", " lead\nx", "trail \nx", "\u0085", "\u2028", "'quoted'", "\"dq\""],
    "numbers": [0, -1, 1.5, -0.25, 1e-7, 1e21, 123456789, 9223372036854775807,
                18446744073709551615],
    "other": [true, false, null, {}, [], [[]], [{}]],
    "": {"": ""},
    "y": {"n": {"on": "off"}},
    "keys": {"a b": 1, "a: b": 2, "123": 3, "two\nlines": 4, "-": 5, "?": 6}
  })"));
  const std::string long_text(300, 'a');
  CheckRoundTrip(json{{"folded", "word " + long_text + " and more words to fold, " + long_text},
                      {"quoted", "q: " + std::string(200, 'b') + " c d e f g"},
                      {"escaped", "\t" + std::string(90, 'c') + "  spaces  " + long_text}});
}

TEST_CASE("YAML round trip: YAML input through JSON to YAML", "[yaml]") {
  CHECK(apimachinery::yaml::JSONToYAML(ToJSON("b: yes\na: 010\nc: [1.0, '1.0', ~]")) ==
        "a: 8\nb: true\nc:\n- 1\n- \"1.0\"\n- null\n");
}
