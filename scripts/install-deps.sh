#!/usr/bin/env bash
# Installs everything the build and the tests need, from Debian 12 packages only.
# Idempotent: packages already present are skipped, so a second run is quick.
# Usage: scripts/install-deps.sh            build and run dependencies
#        scripts/install-deps.sh --test     also what the tests run against
set -euo pipefail

build_pkgs=(
  g++ cmake ninja-build ccache make git
  libboost-dev libssl-dev nlohmann-json3-dev libyaml-cpp-dev libsqlite3-dev libsodium-dev
  openssl ca-certificates curl
)
# python3-cryptography signs the OIDC tests' tokens. Go and the two Go libraries build
# test/tools/openapi_v2_check (kubectl's OpenAPI v2 parser).
test_pkgs=(catch2 python3 procps clang-format etcd-server sqlite3 python3-kubernetes iproute2
  python3-cryptography golang-go golang-github-googleapis-gnostic-dev golang-k8s-kube-openapi-dev)

want=("${build_pkgs[@]}")
if [[ "${1:-}" == "--test" ]]; then
  want+=("${test_pkgs[@]}")
fi

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
apt_get() { $sudo apt-get -o DPkg::Lock::Timeout=600 "$@"; }

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#want[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  # Refresh the index only when an install fails for a stale or missing one.
  if ! apt_get install -y --no-install-recommends "${missing[@]}"; then
    apt_get update
    apt_get install -y --no-install-recommends "${missing[@]}"
  fi
fi

# kubectl 1.20 (Debian's kubernetes-client) for the version-skew tests
# (test/integration/test_kubectl_versions.py). Installing the package would clash with
# /usr/bin/kubectl, so its files are unpacked into a directory of their own instead.
KUBECTL_120_DIR=/opt/kas-test/kubernetes-client
if [[ "${1:-}" == "--test" && ! -x $KUBECTL_120_DIR/usr/bin/kubectl ]]; then
  echo "install-deps: unpacking kubernetes-client into $KUBECTL_120_DIR"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  if ! (cd "$tmp" && apt-get download kubernetes-client); then
    apt_get update
    (cd "$tmp" && apt-get download kubernetes-client)
  fi
  $sudo mkdir -p "$KUBECTL_120_DIR.new"
  $sudo dpkg-deb -x "$tmp"/kubernetes-client_*.deb "$KUBECTL_120_DIR.new"
  $sudo rm -rf "$KUBECTL_120_DIR"
  $sudo mv "$KUBECTL_120_DIR.new" "$KUBECTL_120_DIR"
fi
