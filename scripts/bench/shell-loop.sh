#!/usr/bin/env bash
# Usage: scripts/bench/shell-loop.sh NAMESPACE
#
# The bench's baseline: one reconcile pass over every WebService in NAMESPACE the way the
# lab teaches it by hand, one object at a time, with kubectl and jq only. For each
# WebService: read the CR and its child with `kubectl get -o json`, compare with jq, and
# write only what differs (child ConfigMap, status). It does the plugin's job
# (same child, same labels and ownerReference, same Ready condition) without the plugin.
#
# Settings: KUBECTL (default kubectl).
set -euo pipefail

readonly KUBECTL="${KUBECTL:-kubectl}"

log() { echo "shell-loop: $*" >&2; }

# The child ConfigMap a WebService wants, built from the CR with jq.
desired_child() {
  jq -c '{
    apiVersion: "v1", kind: "ConfigMap",
    metadata: {
      name: (.metadata.name + "-desired"), namespace: .metadata.namespace,
      labels: {
        "app.kubernetes.io/managed-by": "webservice-controller",
        "app.kubernetes.io/name": "webservice",
        "app.kubernetes.io/instance": .metadata.name
      },
      ownerReferences: [{apiVersion: "apps.labhub.io/v1", kind: "WebService", name: .metadata.name,
                         uid: .metadata.uid, controller: true, blockOwnerDeletion: true}]
    },
    data: {image: .spec.image, replicas: ((.spec.replicas // 1) | tostring), tier: (.spec.tier // "dev")}
  }' <<<"$1"
}

# "ours", "foreign" or "missing": is the child controlled by this CR's uid and labelled?
child_state() {
  local parent="$1" child="$2"
  if [[ -z "${child}" ]]; then
    echo missing
    return 0
  fi
  jq -r --argjson parent "${parent}" '
    if (.metadata.labels["app.kubernetes.io/managed-by"] == "webservice-controller")
       and any(.metadata.ownerReferences[]?; .controller == true and .uid == $parent.metadata.uid)
    then "ours" else "foreign" end' <<<"${child}"
}

# Creates the child, or patches our fields of it when they differ. Prints the outcome.
ensure_child() {
  local name="$1" namespace="$2" parent="$3" child="$4"
  local want state
  want=$(desired_child "${parent}")
  state=$(child_state "${parent}" "${child}")
  case "${state}" in
    missing)
      "${KUBECTL}" create -f - <<<"${want}" >/dev/null
      echo created
      ;;
    foreign)
      echo conflict
      ;;
    ours)
      if jq -e --argjson want "${want}" '
          ($want.data | to_entries | all(.value == ($have.data[.key] // null)))
          and ($want.metadata.labels | to_entries | all(.value == ($have.metadata.labels[.key] // null)))' \
          --argjson have "${child}" -n >/dev/null; then
        echo unchanged
        return 0
      fi
      local patch
      patch=$(jq -c --argjson have "${child}" \
        '{metadata: {resourceVersion: $have.metadata.resourceVersion, labels: .metadata.labels}, data: .data}' <<<"${want}")
      "${KUBECTL}" patch configmap "${name}-desired" -n "${namespace}" --type=merge -p "${patch}" >/dev/null
      echo updated
      ;;
  esac
}

# Writes status through the status subresource when it differs (lastTransitionTime aside).
ensure_status() {
  local name="$1" namespace="$2" parent="$3" outcome="$4"
  local ready="True" reason="Reconciled" message="configmap/${name}-desired matches the spec"
  if [[ "${outcome}" == "conflict" ]]; then
    ready="False" reason="ChildConflict" message="configmap/${name}-desired exists and is not ours"
  fi
  local now status
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  status=$(jq -c --arg ready "${ready}" --arg reason "${reason}" --arg message "${message}" --arg now "${now}" '
    (.status.conditions // [] | map(select(.type == "Ready")) | first) as $old
    | {observedGeneration: .metadata.generation, replicas: (.spec.replicas // 1),
       conditions: [{type: "Ready", status: $ready, observedGeneration: .metadata.generation,
                     lastTransitionTime: (if $old.status == $ready then $old.lastTransitionTime else $now end),
                     reason: $reason, message: $message}]}' <<<"${parent}")
  if jq -e --argjson want "${status}" '(.status // {}) == $want' <<<"${parent}" >/dev/null; then
    return 0
  fi
  "${KUBECTL}" patch webservice "${name}" -n "${namespace}" --subresource=status --type=merge \
    -p "$(jq -c '{status: .}' <<<"${status}")" >/dev/null
}

reconcile_one() {
  local name="$1" namespace="$2"
  local parent child outcome
  parent=$("${KUBECTL}" get webservice "${name}" -n "${namespace}" -o json)
  child=$("${KUBECTL}" get configmap "${name}-desired" -n "${namespace}" -o json --ignore-not-found)
  outcome=$(ensure_child "${name}" "${namespace}" "${parent}" "${child}")
  ensure_status "${name}" "${namespace}" "${parent}" "${outcome}"
  [[ "${outcome}" == "unchanged" ]] || log "${namespace}/${name}: ${outcome}"
}

main() {
  local namespace="${1:?usage: shell-loop.sh NAMESPACE}"
  local -a names
  mapfile -t names < <("${KUBECTL}" get webservices -n "${namespace}" -o name)
  local ref
  for ref in "${names[@]}"; do
    reconcile_one "${ref#*/}" "${namespace}"
  done
}

main "$@"
