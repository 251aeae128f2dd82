#!/usr/bin/env bash
# Usage: scripts/tools.sh build [helm|promtool]...   (no NAME: both)
#        scripts/tools.sh path helm|promtool
#
# The tools the tests drive besides the control plane: helm (the chart's lint, template,
# install and uninstall) and promtool (the alert rules' unit tests). Each is built from
# its official Go module through the module proxy into the version-keyed cache the
# control plane's binaries use, so a second run builds nothing.
#
#   build   build the ones missing from the cache (no-op when cached)
#   path    print where the binary is (or will be) in the cache
#
# Settings (environment):
#   WEBSERVICE_BIN_CACHE  where built binaries are cached                 [.cache/bin]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=scripts/lib/build.sh
source "${ROOT}/scripts/lib/build.sh"
readonly CACHE="${WEBSERVICE_BIN_CACHE:-${ROOT}/.cache/bin}"
readonly HELM_VERSION=v3.22.0
readonly PROMTOOL_VERSION=v0.316.0 # the prometheus module's version of Prometheus 3.16
readonly TOOLS=(helm promtool)

log() { echo "tools: $*" >&2; }
die() {
  echo "error: $*" >&2
  exit 1
}

version_of() {
  case "$1" in
    helm) echo "${HELM_VERSION}" ;;
    promtool) echo "${PROMTOOL_VERSION}" ;;
    *) die "no tool '$1': say helm or promtool" ;;
  esac
}

package_of() {
  case "$1" in
    helm) echo "helm.sh/helm/v3/cmd/helm" ;;
    promtool) echo "github.com/prometheus/prometheus/cmd/promtool" ;;
  esac
}

# What each project's release build sets. Helm's Makefile sets its version and the
# Kubernetes version it assumes without a cluster (helm template, helm lint) from the
# client-go it is built with: v0.37.0 in helm v3.22.0's go.mod, so 1.37; without it, 1.20,
# and a chart that needs a newer Kubernetes fails to render.
ldflags_of() {
  case "$1" in
    helm)
      local k8s="-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=37"
      local lint="-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=37"
      echo "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v3/internal/version.metadata= ${k8s} ${lint}"
      ;;
    promtool) echo "-s -w" ;;
  esac
}

# Build tags. promtool without Prometheus' service-discovery plugins (remove_all_sd, a tag of
# its plugins/ package): the tests only check and test rules, and the cloud SDKs those plugins
# bring are most of a cold build.
tags_of() {
  case "$1" in
    helm) echo "" ;;
    promtool) echo "remove_all_sd" ;;
  esac
}

binary() {
  local name="$1" version
  version=$(version_of "${name}")
  echo "${CACHE}/${name}-${version}/${name}"
}

# go install of the module at its tag, into a temporary directory, then into the cache,
# with a line every 30 s: a cold build should never be silent for minutes.
build_one() {
  local name="$1" version package ldflags tags target tmp
  version=$(version_of "${name}")
  package=$(package_of "${name}")
  ldflags=$(ldflags_of "${name}")
  tags=$(tags_of "${name}")
  target=$(binary "${name}")
  if [[ -x "${target}" ]]; then
    log "${name} ${version} cached in $(dirname "${target}")"
    return 0
  fi
  command -v go >/dev/null || die "Go is not installed (needed to build ${name}); install Go >= 1.26"
  mkdir -p "${CACHE}"
  tmp=$(mktemp -d "${CACHE}/.build-${name}.XXXXXX")
  local started=${SECONDS}
  log "building ${name} ${version} from ${package}; a cold build takes minutes"
  GOBIN="${tmp}" go install -trimpath -tags "${tags}" -ldflags "${ldflags}" "${package}@${version}" >"${tmp}/build.log" 2>&1 &
  if ! wait_for_build tools "${name}" "$!" "${started}"; then
    tail -n 25 "${tmp}/build.log" >&2
    die "go install ${package}@${version} failed (full log: ${tmp}/build.log)"
  fi
  mkdir -p "$(dirname "${target}")"
  mv -f "${tmp}/${name}" "${target}"
  rm -rf "${tmp}"
  log "built ${name} ${version} in $((SECONDS - started))s into $(dirname "${target}")"
}

usage() {
  sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

main() {
  local verb="${1:-}"
  shift || true
  case "${verb}" in
    build)
      local -a names=("$@")
      [[ $# -gt 0 ]] || names=("${TOOLS[@]}")
      local name
      for name in "${names[@]}"; do build_one "${name}"; done
      ;;
    path)
      [[ $# -eq 1 ]] || usage
      binary "$1"
      ;;
    *) usage ;;
  esac
}

main "$@"
