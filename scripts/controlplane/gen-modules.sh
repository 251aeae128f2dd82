#!/usr/bin/env bash
# Usage: scripts/controlplane/gen-modules.sh [K8S_VERSION] [ETCD_VERSION]
#
# Regenerates the two Go wrapper modules that build the test control plane:
#   scripts/controlplane/kube  -> kube-apiserver, kube-controller-manager, kubectl
#   scripts/controlplane/etcd  -> etcd
# k8s.io/kubernetes points its staging modules at ./staging/src with `replace`;
# a module that depends on it must redirect each one to the published v0.X.Y tag.
# The replace block is derived from kubernetes' own go.mod, never typed by hand.
# Run it only to move versions; the generated go.mod/go.sum files are committed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
# shellcheck source=scripts/controlplane/versions.env
source "${HERE}/versions.env"

die() { echo "error: $*" >&2; exit 1; }

gen_kube() {
  local version="$1" dir="${HERE}/kube"
  local staging_version="v0.${version#v1.}"
  local upstream_mod
  upstream_mod=$(go mod download -json "k8s.io/kubernetes@${version}" | jq -r '.GoMod // empty')
  [[ -n "${upstream_mod}" ]] || die "could not download k8s.io/kubernetes@${version}"

  local -a staging
  mapfile -t staging < <(awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "${upstream_mod}")
  [[ "${#staging[@]}" -gt 0 ]] || die "no staging replaces found in ${upstream_mod}"

  rm -f "${dir}/go.mod" "${dir}/go.sum"
  (
    cd "${dir}"
    go mod init webservice.labhub.io/controlplane/kube >/dev/null 2>&1
    go mod edit -go=1.26.0
    local module
    for module in "${staging[@]}"; do
      go mod edit -replace="${module}=${module}@${staging_version}"
    done
    go get -tool \
      "k8s.io/kubernetes/cmd/kube-apiserver@${version}" \
      "k8s.io/kubernetes/cmd/kube-controller-manager@${version}" \
      "k8s.io/kubernetes/cmd/kubectl@${version}"
    go mod tidy
  )
  echo "kube module: k8s.io/kubernetes ${version}, ${#staging[@]} staging modules at ${staging_version}"
}

gen_etcd() {
  local version="$1" dir="${HERE}/etcd"
  rm -f "${dir}/go.mod" "${dir}/go.sum"
  (
    cd "${dir}"
    go mod init webservice.labhub.io/controlplane/etcd >/dev/null 2>&1
    go mod edit -go=1.26.0
    go get -tool "go.etcd.io/etcd/server/v3@${version}"
    go mod tidy
  )
  echo "etcd module: go.etcd.io/etcd/server/v3 ${version}"
}

main() {
  command -v go >/dev/null || die "go is not on PATH"
  command -v jq >/dev/null || die "jq is not on PATH"
  gen_kube "${1:-${K8S_VERSION}}"
  gen_etcd "${2:-${ETCD_VERSION}}"
}

main "$@"
