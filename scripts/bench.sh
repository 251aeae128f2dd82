#!/usr/bin/env bash
# Usage: scripts/bench.sh [--quick] [--sizes=A,B] [--out=DIR] [--report-only]   (npm run bench -- …)
#
# Benchmarks the plugin and its controller on the local control plane (started if needed,
# or the current KUBECONFIG with USE_EXISTING_CLUSTER=true): for N = 10, 100, 1000 and
# 10 000 WebServices, a cold pass, a no-op pass, one change, plan NAME, beside the raw
# floor, kubectl get and the lab's per-object shell loop; then the controller's start,
# burst, event-to-converged latency and steady state. Writes bench/results.json,
# bench/RESULTS.md and bench/pass-time.svg (--quick: N = 10 and 100, into .cache/bench/).
# A full run takes 10-20 minutes and keeps both cores busy.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=scripts/lib/cluster.sh
source "${ROOT}/scripts/lib/cluster.sh"

main() {
  cd "${ROOT}"
  bash scripts/build.sh
  if [[ " $* " != *" --report-only "* ]]; then
    use_cluster "${ROOT}"
    kubectl apply -f crds/webservices.apps.labhub.io.yaml >/dev/null
    kubectl wait --for=condition=Established --timeout=60s crd/webservices.apps.labhub.io >/dev/null
  fi
  node dist/bench.js "$@"
}

main "$@"
