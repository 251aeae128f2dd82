#!/usr/bin/env bash
# Usage: scripts/ensure-deps.sh
#
# Installs node_modules with `npm ci` when it is missing or older than
# package-lock.json, so every entry point works on a fresh clone.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly STAMP="${ROOT}/node_modules/.lock-sha256"

lock_hash() {
  sha256sum "${ROOT}/package-lock.json" | cut -d' ' -f1
}

main() {
  command -v node >/dev/null || { echo "error: Node.js >= 20 is required" >&2; exit 1; }
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  if ((major < 20)); then
    echo "error: Node.js >= 20 is required, found $(node --version)" >&2
    exit 1
  fi
  if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "$(lock_hash)" ]]; then
    return 0
  fi
  echo "setup: installing dependencies (npm ci)" >&2
  (cd "${ROOT}" && npm ci --no-audit --no-fund --loglevel=error >&2)
  lock_hash >"${STAMP}"
}

main "$@"
