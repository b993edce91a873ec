#!/bin/bash
# Runs kube-apiserver and kube-controller-manager together (what `make run` starts): the
# API server first, then, once it is ready, the controller manager with the kubeconfig,
# signing key and CA the API server's first start wrote under the data directory. Ctrl-C
# (or SIGTERM) stops both; if either ends, the other is stopped too.
#
# usage: scripts/run-cluster.sh BUILD_DIR DATA_DIR BIND PORT CONTROLLERS [kube-apiserver args...]
#   CONTROLLERS: "true" starts the controller manager, anything else runs a bare API server.
set -u
build=$1 data=$2 bind=$3 port=$4 controllers=$5
shift 5
apiserver=$build/cmd/kube-apiserver/kube-apiserver
kcm=$build/cmd/kube-controller-manager/kube-controller-manager
kubeconfig=$data/controller-manager.kubeconfig

pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  wait
}
trap 'stop; exit 0' INT TERM

# RBAC, as kubeadm and k3s clusters run (ARGS may choose another --authorization-mode).
"$apiserver" --data-dir "$data" --bind-address "$bind" --secure-port "$port" \
  --authorization-mode=RBAC "$@" &
pids+=($!)
if [ "$controllers" = true ]; then
  # The kubeconfig is written before the server listens; then wait for it to answer (the
  # controller manager waits for /healthz itself).
  for _ in $(seq 1 300); do
    code=$(curl -sk -o /dev/null -w '%{http_code}' "https://$bind:$port/readyz" 2>/dev/null)
    if [ -f "$kubeconfig" ] && [ "$code" != 000 ]; then
      break
    fi
    kill -0 "${pids[0]}" 2>/dev/null || exit 1
    sleep 0.1
  done
  # Each controller as its own service account, under its system:controller:* role.
  "$kcm" --kubeconfig "$kubeconfig" --use-service-account-credentials \
    --service-account-private-key-file "$data/pki/sa.key" \
    --root-ca-file "$data/pki/ca.crt" \
    --cluster-signing-cert-file "$data/pki/ca.crt" --cluster-signing-key-file "$data/pki/ca.key" \
    --bind-address "$bind" &
  pids+=($!)
fi
# Either one ending ends the other.
wait -n
stop
