#!/usr/bin/env bash
# Installs everything the build and the tests need, from Debian 12 packages only.
# Idempotent: packages already present are skipped, so a second run is quick.
# Usage: scripts/install-deps.sh            build and run dependencies
#        scripts/install-deps.sh --test     also what the tests run against
set -euo pipefail

build_pkgs=(
  g++ cmake ninja-build ccache make git
  libboost-dev libssl-dev nlohmann-json3-dev libyaml-cpp-dev libsqlite3-dev
  openssl ca-certificates curl
)
# Go and the two Go libraries build test/tools/openapi_v2_check (kubectl's OpenAPI v2 parser).
test_pkgs=(catch2 python3 procps clang-format etcd-server sqlite3 python3-kubernetes iproute2
  golang-go golang-github-googleapis-gnostic-dev golang-k8s-kube-openapi-dev)

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

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#want[@]} packages present"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt_get() { $sudo apt-get -o DPkg::Lock::Timeout=600 "$@"; }
# Refresh the index only when an install fails for a stale or missing one.
if ! apt_get install -y --no-install-recommends "${missing[@]}"; then
  apt_get update
  apt_get install -y --no-install-recommends "${missing[@]}"
fi
