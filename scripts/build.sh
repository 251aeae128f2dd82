#!/usr/bin/env bash
# Usage: scripts/build.sh        (npm run build)
#
# Installs dependencies if needed, type-checks (strict), and bundles the plugin into
# the single executable dist/kubectl-webservice (plus the demo and bench runners).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT

main() {
  cd "${ROOT}"
  bash scripts/ensure-deps.sh
  npx --no-install tsc --noEmit -p tsconfig.json
  node scripts/build.mjs
}

main "$@"
