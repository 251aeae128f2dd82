#!/usr/bin/env bash
# Usage: scripts/chart-files.sh [--check]     (npm run chart:files)
#
# The chart reads the very files `kubectl webservice install` bundles (crds/, deploy/) from its
# files/, so that the two render the same objects. They are copies, not symbolic links: Helm
# logs a warning for each link in a chart, on every lint, template, install and package. This
# copies them there after a change to crds/ or deploy/; --check only says which differ, and
# fails (the unit tests run it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly FILES_DIR=charts/webservice-controller/files
# The sources; each is files/ + its base name.
readonly SOURCES=(
  crds/webservices.apps.labhub.io.yaml
  deploy/00-namespace.yaml
  deploy/10-rbac.yaml
  deploy/15-leader-fence.yaml
  deploy/17-network-policy.yaml
  deploy/18-disruption-budget.yaml
  deploy/20-deployment.yaml
  deploy/monitoring/alerts.yaml
)

main() {
  cd "${ROOT}"
  local check=false
  case "${1:-}" in
    --check) check=true ;;
    "") ;;
    *)
      echo "usage: scripts/chart-files.sh [--check]" >&2
      return 2
      ;;
  esac
  local source copy stale=0
  for source in "${SOURCES[@]}"; do
    copy="${FILES_DIR}/$(basename "${source}")"
    if [[ -f "${copy}" && ! -L "${copy}" ]] && cmp -s "${source}" "${copy}"; then continue; fi
    if [[ "${check}" == true ]]; then
      echo "error: ${copy} is not a copy of ${source}: run npm run chart:files" >&2
      stale=1
    else
      rm -f "${copy}"
      cp "${source}" "${copy}"
      echo "copied ${source} to ${copy}"
    fi
  done
  # A file there that none of the sources makes would be read by no template, or by one whose source is gone.
  for copy in "${FILES_DIR}"/*; do
    if ! printf '%s\n' "${SOURCES[@]}" | grep -qx ".*/$(basename "${copy}")"; then
      echo "error: ${copy} is a copy of nothing in crds/ or deploy/" >&2
      stale=1
    fi
  done
  return "${stale}"
}

main "$@"
