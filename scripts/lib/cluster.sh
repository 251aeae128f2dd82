# shellcheck shell=bash
# Sourced by scripts that need a cluster (demo, bench); not executable on its own.
# use_cluster: brings up the local control plane and points KUBECONFIG, KUBE_AUDIT_LOG
# and PATH (its kubectl) at it; with USE_EXISTING_CLUSTER=true keeps the caller's
# KUBECONFIG. Either way the plugin in dist/ is put on PATH, as a krew install would.

use_cluster() {
  local root="$1"
  if [[ "${USE_EXISTING_CLUSTER:-}" != "true" ]]; then
    bash "${root}/scripts/control-plane.sh" up
    eval "$(bash "${root}/scripts/control-plane.sh" env)"
  fi
  command -v kubectl >/dev/null || { echo "error: kubectl is not on PATH" >&2; return 1; }
  export PATH="${root}/dist:${PATH}"
}
