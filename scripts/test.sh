#!/usr/bin/env bash
# Usage: scripts/test.sh [JEST ARGS...]      (npm test -- [JEST ARGS...])
#
# Everything, from a fresh clone: installs dependencies, type-checks and bundles the
# plugin, refuses merge-conflict markers in tracked files, checks the formatting, lints, looks
# for unused files, exports and dependencies (knip), builds the control-plane binaries, helm
# and promtool if they are not cached, then runs jest: unit tests, and integration tests
# against a real kube-apiserver + etcd that the integration project's global setup starts on
# 127.0.0.1 and stops at the end.
# That plane is one where Deployments roll out (kube-scheduler, KWOK) unless
# WEBSERVICE_CP_WORKLOADS=false; the fault suite asks for the plain one, and with
# WEBSERVICE_CP_BUILD_WORKLOADS=true for the binaries of its scenarios that run pods.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT

main() {
  cd "${ROOT}"
  # npm test is everything, workloads included: a plane where pods are scheduled and run.
  export WEBSERVICE_CP_WORKLOADS="${WEBSERVICE_CP_WORKLOADS:-true}"
  bash scripts/build.sh
  bash scripts/check-conflict-markers.sh
  npx --no-install prettier --check --log-level=warn .
  npx --no-install eslint --max-warnings=0 .
  # Unused files, exports and dependencies (knip.json says where the entry points are).
  npx --no-install knip
  if [[ "${USE_EXISTING_CLUSTER:-}" != "true" ]]; then
    local -a build=(build)
    # The fault suite's plane is plain, but its workload scenarios start one with pods:
    # its binaries are built here, not inside a test's setup.
    if [[ "${WEBSERVICE_CP_BUILD_WORKLOADS:-false}" == "true" ]]; then build+=(--workloads); fi
    bash scripts/control-plane.sh "${build[@]}"
  fi
  # helm and promtool, for the tests of the chart and of the alert rules (cached by version too).
  bash scripts/tools.sh build
  npx --no-install jest "$@"
}

main "$@"
