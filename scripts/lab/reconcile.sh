#!/usr/bin/env bash
# Usage: reconcile.sh [NAME [NAMESPACE]]        (defaults: checkout crd-lab)
#
# One reconcile pass for one WebService, the lab's way:
#   observe  read the CR (desired) and its child ConfigMap (actual) with kubectl get
#            -> out/observe.json  {"desired": {...}, "actual": {...}, ...}
#   decide   through the plugin's shared core: kubectl webservice plan -> out/decision.json
#   act      carry out exactly that decision: kubectl webservice apply -f (refused if stale)
#   status   write status back with kubectl patch --subresource=status, only when it changed
# A second run on a converged WebService writes nothing: resourceVersions stay put.
# Exit: 0 done, 2 requeued (a dependency is not ready: waiting, not failing), 1 error.
#
# Settings: KUBECTL (default kubectl; `kubectl-webservice` must be on PATH),
#           OUT_DIR (default: out/ beside this script).
set -euo pipefail

readonly KUBECTL="${KUBECTL:-kubectl}"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly OUT_DIR="${OUT_DIR:-${SCRIPT_DIR}/out}"

log() { echo "reconcile: $*" >&2; }

# The scratch directory of this run; removed on exit by a trap that expands nothing itself.
WORK_DIR=""
cleanup() { [[ -z "${WORK_DIR}" ]] || rm -rf -- "${WORK_DIR}"; }

# Writes the WebServices the parent may reach through spec.dependsOn, as a JSON array:
# none without dependencies, else every WebService in the namespace (one read), so the
# core sees a dependency cycle of any length.
read_dependencies() {
  local namespace="$1" parent_file="$2" out_file="$3"
  if [[ "$(jq '.spec.dependsOn // [] | length' "${parent_file}")" -eq 0 ]]; then
    echo '[]' >"${out_file}"
    return 0
  fi
  "${KUBECTL}" get webservices -n "${namespace}" -o json | jq '.items' >"${out_file}"
}

# observe: the raw objects, read with kubectl get, turned into an observation by the core.
observe() {
  local name="$1" namespace="$2" work="$3"
  "${KUBECTL}" get webservice "${name}" -n "${namespace}" -o json >"${work}/parent.json"
  "${KUBECTL}" get configmap "${name}-desired" -n "${namespace}" -o json --ignore-not-found >"${work}/child.json"
  read_dependencies "${namespace}" "${work}/parent.json" "${work}/related.json"
  jq -n \
    --slurpfile parent "${work}/parent.json" \
    --slurpfile child "${work}/child.json" \
    --slurpfile related "${work}/related.json" \
    '{parent: $parent[0], children: $child, related: $related[0]}' >"${work}/objects.json"
  "${KUBECTL}" webservice observe -f "${work}/objects.json" -o json >"${OUT_DIR}/observe.json"
}

# status: computed by the core from a fresh observation, written here through the
# status subresource, and only when it differs from what the CR carries.
write_status() {
  local name="$1" namespace="$2" work="$3"
  "${KUBECTL}" webservice status "${name}" -n "${namespace}" --dry-run -o json >"${work}/status.json"
  if [[ "$(jq -r '.changed' "${work}/status.json")" != "true" ]]; then
    log "status of webservice/${name} is current; not written"
    return 0
  fi
  # Conditional on the resourceVersion the status was computed from: if the WebService
  # changed since, the API server refuses it (409) and the next run computes it again.
  local patch
  patch=$(jq -c '{metadata: {resourceVersion: .resourceVersion}, status: .status}' "${work}/status.json")
  "${KUBECTL}" patch webservice "${name}" -n "${namespace}" --subresource=status --type=merge -p "${patch}" >&2
}

main() {
  local name="${1:-checkout}" namespace="${2:-crd-lab}"
  mkdir -p "${OUT_DIR}"
  trap cleanup EXIT
  WORK_DIR=$(mktemp -d)
  local work="${WORK_DIR}"

  observe "${name}" "${namespace}" "${work}"
  "${KUBECTL}" webservice plan -f "${OUT_DIR}/observe.json" -o json >"${OUT_DIR}/decision.json"
  local action target reason
  action=$(jq -r '.action' "${OUT_DIR}/decision.json")
  target=$(jq -r '.target' "${OUT_DIR}/decision.json")
  reason=$(jq -r '.reason' "${OUT_DIR}/decision.json")
  log "${action} ${target}: ${reason}"

  local code=0
  "${KUBECTL}" webservice apply -f "${OUT_DIR}/decision.json" -o json >"${work}/applied.json" || code=$?
  if [[ "${code}" -ne 0 && "${code}" -ne 2 ]]; then
    log "acting on the decision failed (exit ${code})"
  fi
  if [[ "${action}" != "finalize" ]]; then
    write_status "${name}" "${namespace}" "${work}"
  fi
  return "${code}"
}

main "$@"
