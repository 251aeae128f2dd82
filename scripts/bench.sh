#!/usr/bin/env bash
# Usage: scripts/bench.sh        (npm run bench)
#
# Benchmarks the plugin on the local control plane (started if needed, or the current
# KUBECONFIG with USE_EXISTING_CLUSTER=true): start-up, a first pass that creates N
# children, a converged pass (which must make zero writes), and one drifted object.
# Settings: BENCH_COUNT (WebServices, default 200), BENCH_REPEAT (default 5).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=scripts/lib/cluster.sh
source "${ROOT}/scripts/lib/cluster.sh"

main() {
  cd "${ROOT}"
  bash scripts/build.sh
  use_cluster "${ROOT}"
  kubectl apply -f crds/webservices.apps.labhub.io.yaml >/dev/null
  kubectl wait --for=condition=Established --timeout=60s crd/webservices.apps.labhub.io >/dev/null
  node dist/bench.js
}

main "$@"
