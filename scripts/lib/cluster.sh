# shellcheck shell=bash
# Sourced by scripts that need a cluster (demo, bench); not executable on its own.
# use_cluster: brings up the local control plane and points KUBECONFIG, KUBE_AUDIT_LOG
# and PATH (its kubectl) at it; with USE_EXISTING_CLUSTER=true keeps the caller's
# KUBECONFIG. Either way the plugin in dist/ is put on PATH, as a krew install would.

use_cluster() {
  local root="$1"
  if [[ "${USE_EXISTING_CLUSTER:-}" != "true" ]]; then
    bash "${root}/scripts/control-plane.sh" up
    local name value
    # Plain NAME=value lines, taken as data: nothing here is evaluated.
    while IFS='=' read -r name value; do
      case "${name}" in
        KUBECONFIG | KUBE_AUDIT_LOG | GATEWAY_API_CRDS) export "${name}=${value}" ;;
        KUBECTL_DIR) PATH="${value}:${PATH}" ;;
      esac
    done < <(bash "${root}/scripts/control-plane.sh" vars)
  fi
  command -v kubectl >/dev/null || { echo "error: kubectl is not on PATH" >&2; return 1; }
  export PATH="${root}/dist:${PATH}"
}
