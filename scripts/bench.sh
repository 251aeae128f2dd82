#!/usr/bin/env bash
# Usage: scripts/bench.sh [--quick] [--sizes=A,B] [--only=A,B] [--scale[=N]] [--out=DIR] [--report-only]   (npm run bench -- …)
#
# Benchmarks the plugin and its controller on the local control plane (started if needed,
# or the current KUBECONFIG with USE_EXISTING_CLUSTER=true) against their targets: for N = 10,
# 100, 1000 and 10 000 WebServices, a cold pass, a no-op pass, one change, plan NAME, beside
# the raw floor and kubectl get; then the controller's start, burst, event-to-converged latency
# and steady state; the runtimes the targets name (Node 20, Node 24, the SEA), the write floor
# beside the burst, and bursts of workload WebServices (a port only, and every pod field) on the
# workloads plane, the config case there (each WebService reading its own Secret, rotated) and
# the canary case (the Gateway API's CRDs installed for it, each WebService paused in a canary,
# then promoted); for them, the plane is started with workloads and 4 Nodes of 1000 pods unless
# WEBSERVICE_CP_WORKLOADS / _NODES / _NODE_PODS say otherwise).
# --only=CASE,… runs some of: plugin burst runtimes floor backlog workload every-field config canary peer,
# and keeps what results.json held of the others. Writes bench/results.json and the table of
# targets in bench/RESULTS.md (--quick: N = 10 and 100, into .cache/bench/); --report-only
# writes the table again from results.json, measuring nothing.
# A full run takes 25-35 minutes and keeps both cores busy. --scale runs, instead, the
# 100 000-WebService run into bench/scale.json (70 minutes on 2 cores, plus its namespace
# deletions; the plain plane).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=scripts/lib/cluster.sh
source "${ROOT}/scripts/lib/cluster.sh"

# True when the arguments ask for a workload case: no --only, or an --only naming one
# (never with --scale).
wants_workloads() {
  local arg only=""
  for arg in "$@"; do
    [[ "${arg}" != --scale* ]] || return 1
    [[ "${arg}" != --only=* ]] || only="${arg#--only=}"
  done
  [[ -z "${only}" || ",${only}," =~ ,(workload|every-field|config|canary), ]]
}

main() {
  cd "${ROOT}"
  if wants_workloads "$@"; then
    # 1000 WebServices × 3 replicas need room for 3000 pods, and 1000 more while all of them
    # roll at once (the config case's rotation: one surge pod each).
    export WEBSERVICE_CP_WORKLOADS="${WEBSERVICE_CP_WORKLOADS:-true}"
    export WEBSERVICE_CP_NODES="${WEBSERVICE_CP_NODES:-4}" WEBSERVICE_CP_NODE_PODS="${WEBSERVICE_CP_NODE_PODS:-1000}"
  fi
  bash scripts/build.sh
  if [[ " $* " != *" --report-only "* ]]; then
    use_cluster "${ROOT}"
    kubectl apply -f crds/webservices.apps.labhub.io.yaml >/dev/null
    # kubectl wait fails at once, rather than waits, on a CRD with no condition yet: ask again.
    for _ in $(seq 60); do
      kubectl get crd webservices.apps.labhub.io -o jsonpath='{.status.conditions}' | grep -q . && break
      sleep 1
    done
    kubectl wait --for=condition=Established --timeout=60s crd/webservices.apps.labhub.io >/dev/null
  fi
  node dist/bench.js "$@"
}

main "$@"
