#!/usr/bin/env bash
# Usage: scripts/sea.sh        (npm run sea, after npm run build; npm run package calls it)
#
# Builds the standalone plugin dist/sea/kubectl-webservice for linux/amd64: a Node.js
# single executable application, i.e. a copy of the node running this script with the
# program that dist/kubectl-webservice carries (dist/program/kubectl-webservice.js) injected,
# so its users need no Node on PATH. The program goes in with a V8 code cache (faster start-up) made with a fixed random
# seed: the same bundle and the same node binary give the same bytes. The node binary
# is stripped of its symbol table and debug info, which it does not need to run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly BUNDLE="${ROOT}/dist/program/kubectl-webservice.js"
readonly OUT="${ROOT}/dist/sea/kubectl-webservice"
readonly FUSE="NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2"

die() {
  echo "error: $*" >&2
  exit 1
}

check_platform() {
  local platform
  platform=$(node -p 'process.platform + "/" + process.arch')
  [[ "${platform}" == "linux/x64" ]] ||
    die "scripts/sea.sh builds the linux/amd64 binary only, with a linux/x64 node; this node is ${platform}"
  # useCodeCache came in Node 20.6.
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 6) ? 0 : 1)' ||
    die "a single executable with a code cache needs Node >= 20.6; this node is $(node --version)"
  command -v strip >/dev/null || die "strip (binutils) not found on PATH"
  [[ -f "${BUNDLE}" ]] || die "${BUNDLE} not found; run npm run build first"
}

# The blob: the program and its code cache.
prepare_blob() {
  local work="$1" log
  cp "${BUNDLE}" "${work}/main.js"
  cat >"${work}/sea-config.json" <<'END'
{
  "main": "main.js",
  "output": "sea-prep.blob",
  "disableExperimentalSEAWarning": true,
  "useCodeCache": true
}
END
  # --random-seed makes the code cache deterministic; V8 leaves it out of the flag hash
  # that the cache is checked against at start-up, so the cache is still accepted.
  log=$(cd "${work}" && env -u NODE_OPTIONS node --random-seed=1 --experimental-sea-config sea-config.json 2>&1) ||
    die "node --experimental-sea-config failed: ${log}"
}

inject() {
  local work="$1" binary="$2" log
  cp "$(node -p process.execPath)" "${binary}"
  chmod u+w "${binary}"
  strip "${binary}"
  log=$(npx --no-install postject "${binary}" NODE_SEA_BLOB "${work}/sea-prep.blob" \
    --sentinel-fuse "${FUSE}" 2>&1) || die "postject failed: ${log}"
  chmod 0755 "${binary}"
}

# The binary must start without node on PATH and print nothing but the version
# (a rejected code cache would show up as a warning on stderr).
smoke_test() {
  local binary="$1" want got
  want=$(node -p 'require("./package.json").version')
  got=$(env -i PATH=/nonexistent "${binary}" --version 2>&1) ||
    die "${binary} --version failed: ${got}"
  [[ "${got}" == "${want}" ]] || die "${binary} --version printed '${got}', expected '${want}'"
}

# What main leaves behind if it stops early; removed by a trap that expands nothing itself.
LEFTOVERS=()
cleanup() { [[ "${#LEFTOVERS[@]}" -eq 0 ]] || rm -rf -- "${LEFTOVERS[@]}"; }

main() {
  cd "${ROOT}"
  check_platform
  local work temporary="${OUT}.tmp-$$"
  trap cleanup EXIT
  work=$(mktemp -d)
  LEFTOVERS=("${work}" "${temporary}")
  prepare_blob "${work}"
  mkdir -p "$(dirname "${OUT}")"
  inject "${work}" "${temporary}"
  smoke_test "${temporary}"
  mv -f "${temporary}" "${OUT}"
  echo "built ${OUT#"${ROOT}/"} ($(node --version) linux/x64, $(($(stat -c %s "${OUT}") / 1048576)) MiB)" >&2
}

main "$@"
