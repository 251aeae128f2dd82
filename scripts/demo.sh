#!/usr/bin/env bash
# Usage: scripts/demo.sh        (npm run demo)
#
# The whole lab, L1-L8, on the embedded control plane: installs dependencies, builds
# the plugin, brings up etcd + kube-apiserver + kube-controller-manager on 127.0.0.1
# (or, with USE_EXISTING_CLUSTER=true, uses the current KUBECONFIG), then runs every
# lab step and a verification table. Exits non-zero if any check fails.
#
# Settings: LAB_DIR (default ~/op/reconcile) receives reconcile.sh and out/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=scripts/lib/cluster.sh
source "${ROOT}/scripts/lib/cluster.sh"

main() {
  cd "${ROOT}"
  bash scripts/build.sh
  use_cluster "${ROOT}"
  local code=0
  DEMO_ROOT="${ROOT}" node dist/lab-demo.js || code=$?
  if [[ "${USE_EXISTING_CLUSTER:-}" != "true" ]]; then
    echo
    echo "The control plane is still running. Explore it with:"
    # shellcheck disable=SC2016 # $PATH is for the shell that runs the printed line
    printf '  export KUBECONFIG=%q PATH=%q:"$PATH"\n' "${KUBECONFIG}" "$(dirname "$(command -v kubectl)"):${ROOT}/dist"
    echo "  kubectl webservice status --all -n crd-lab"
    echo "Stop it with: scripts/control-plane.sh down"
  fi
  return "${code}"
}

main "$@"
