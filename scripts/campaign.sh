#!/usr/bin/env bash
# Usage: scripts/campaign.sh [--seed N[,N...]] [--steps M] [--replay FILE] [--shrink TRIES]
#                            [--perturb P,MS[,S]] [JEST ARGS...]
#        (npm run test:campaign -- --seed N --steps M)
#
# The correctness campaign: seeded random histories against a control plane that runs pods,
# with `kubectl webservice run` as the controller, checked at quiescence (test/campaign/).
# The same seed and step count give the same history; a failing run prints its seed, its
# violations and its history, and writes the history to .cache/campaign/ for --replay;
# --shrink TRIES then looks for a smaller failing history in at most TRIES more runs.
# --perturb P,MS puts a proxy between the controller and the API server: a share P of watch
# events hold the stream up to MS ms (stale state), and events for one object that wait
# together reach it as the last one only (unobserved state); with S, a share S of its lists
# are answered from a lagging copy, the first list the proxy saw (stale state).
# Builds the plugin and the plane's binaries first, as npm test does.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT

usage() {
  sed -n '2,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

main() {
  cd "${ROOT}"
  local -a jest_args=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --seed) [[ $# -ge 2 ]] || usage; export CAMPAIGN_SEEDS="$2"; shift 2 ;;
      --steps) [[ $# -ge 2 ]] || usage; export CAMPAIGN_STEPS="$2"; shift 2 ;;
      --perturb) [[ $# -ge 2 ]] || usage; export CAMPAIGN_PERTURB="$2"; shift 2 ;;
      --shrink) [[ $# -ge 2 ]] || usage; export CAMPAIGN_SHRINK="$2"; shift 2 ;;
      --replay) [[ $# -ge 2 ]] || usage; CAMPAIGN_REPLAY="$(realpath "$2")"; export CAMPAIGN_REPLAY; shift 2 ;;
      -h | --help) usage ;;
      *) jest_args+=("$1"); shift ;;
    esac
  done
  bash scripts/build.sh
  if [[ "${USE_EXISTING_CLUSTER:-}" != "true" ]]; then bash scripts/control-plane.sh build --workloads; fi
  npx --no-install jest --config test/campaign/jest.config.js "${jest_args[@]}"
}

main "$@"
