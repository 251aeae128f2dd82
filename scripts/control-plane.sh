#!/usr/bin/env bash
# Usage: scripts/control-plane.sh up|build [--workloads] | env|vars|down|status
#        scripts/control-plane.sh stop-component|start-component|restart-component NAME
#
# A real, local Kubernetes control plane for tests and the demo (envtest's approach):
# etcd + kube-apiserver + kube-controller-manager (garbage collector and namespace
# controllers), built from the official Go modules and started on 127.0.0.1.
# With workloads (--workloads or WEBSERVICE_CP_WORKLOADS=true) Deployments really roll
# out: kube-scheduler and KWOK (fake nodes and pods, no container runtime) run too,
# kube-controller-manager adds the deployment, replicaset, serviceaccount, pod GC and
# node lifecycle controllers, and the plane has fake Nodes whose pods turn Running and Ready,
# but for pods of two marker images, for tests of unhealthy pods (kwok-faulty-image-stages.yaml):
#   kwok.invalid/never-ready:1  runs and never becomes Ready
#   kwok.invalid/crash-loop:1   is not Ready, and its container restarts every 2s
#
#   build   build the binaries into the version-keyed cache (no-op when cached);
#           kube-scheduler and kwok only with workloads
#   up      build if needed, start everything, wait for /readyz, write a kubeconfig;
#           a second `up` reuses the running plane
#   env     print `export KUBECONFIG=…`, `export KUBE_AUDIT_LOG=…` and PATH lines for a shell
#   vars    print the same as plain NAME=value lines (KUBECONFIG, KUBE_AUDIT_LOG, KUBECTL_DIR,
#           GATEWAY_API_CRDS), for scripts that read them without evaluating anything
#
# build also copies the Gateway API's standard CRDs (sigs.k8s.io/gateway-api, GATEWAY_API_VERSION)
# into the cache; `up` does not install them: a test that needs them applies them
# (kubectl apply --server-side -f GATEWAY_API_CRDS) and deletes them after.
#   down    stop only the processes `up` started, remove their data
#   status  say whether the plane is running
#   restart-apiserver  stop and start kube-apiserver alone (for fault tests)
#   stop-component NAME, start-component NAME, restart-component NAME
#           stop or start one of kube-apiserver, kube-controller-manager, kube-scheduler,
#           kwok alone, with the flags `up` gave it (for fault tests); etcd and data stay
#
# Settings (environment):
#   WEBSERVICE_CP_DIR     state directory (pids, kubeconfig, audit log)   [.cache/control-plane]
#   WEBSERVICE_BIN_CACHE  where built binaries are cached                 [.cache/bin]
#   KUBEBUILDER_ASSETS    take etcd, kube-apiserver, kubectl, kube-controller-manager from here
#   USE_EXISTING_CLUSTER  =true: start nothing; use the caller's KUBECONFIG
#   CP_READY_TIMEOUT      seconds to wait for /readyz                     [90]
#   WEBSERVICE_CP_WORKLOADS  =true: as --workloads                        [false]
#   WEBSERVICE_CP_NODES      how many fake Nodes, with workloads          [2]
#   WEBSERVICE_CP_NODE_PODS  pods each fake Node holds (its pod capacity) [110]
#   WEBSERVICE_CP_AUDIT_SYSTEM  =true: the audit log also records kube-controller-manager,
#                            kube-scheduler and kwok                        [false]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
readonly MODULES="${ROOT}/scripts/controlplane"
# shellcheck source=scripts/controlplane/versions.env
source "${MODULES}/versions.env"
# shellcheck source=scripts/lib/build.sh
source "${ROOT}/scripts/lib/build.sh"

readonly STATE_DIR="${WEBSERVICE_CP_DIR:-${ROOT}/.cache/control-plane}"
readonly BIN_DIR="${WEBSERVICE_BIN_CACHE:-${ROOT}/.cache/bin}/k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}"
# kwok has its own version, so its own cache directory: moving it rebuilds nothing else.
readonly KWOK_BIN_DIR="${WEBSERVICE_BIN_CACHE:-${ROOT}/.cache/bin}/kwok-${KWOK_VERSION}"
# The Gateway API's standard CRDs, as the Go module ships them (config/crd/standard).
readonly GATEWAY_API_DIR="${WEBSERVICE_BIN_CACHE:-${ROOT}/.cache/bin}/gateway-api-${GATEWAY_API_VERSION}"
readonly READY_TIMEOUT="${CP_READY_TIMEOUT:-90}"
# In the order `down` stops them.
readonly COMPONENTS=(kwok kube-scheduler kube-controller-manager kube-apiserver etcd)
readonly CORE_BINARIES=(etcd kube-apiserver kube-controller-manager kubectl)
readonly WORKLOAD_BINARIES=(kube-scheduler kwok)
# Set by --workloads or WEBSERVICE_CP_WORKLOADS=true; the Nodes' number and size (see main).
WORKLOADS=false
NODES=0
NODE_PODS=0

log() { echo "control-plane: $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

# --- binaries ---------------------------------------------------------------

# Prints the path of a binary: KUBEBUILDER_ASSETS first, then the build cache.
binary() {
  local name="$1"
  if [[ -n "${KUBEBUILDER_ASSETS:-}" && -x "${KUBEBUILDER_ASSETS}/${name}" ]]; then
    echo "${KUBEBUILDER_ASSETS}/${name}"
  elif [[ "${name}" == kwok ]]; then
    echo "${KWOK_BIN_DIR}/${name}"
  else
    echo "${BIN_DIR}/${name}"
  fi
}

# The binaries this mode needs: the core ones, and kube-scheduler and kwok with workloads.
wanted_binaries() {
  printf '%s\n' "${CORE_BINARIES[@]}"
  [[ "${WORKLOADS}" != true ]] || printf '%s\n' "${WORKLOAD_BINARIES[@]}"
}

missing_binaries() {
  local name
  while read -r name; do
    [[ -x "$(binary "${name}")" ]] || echo "${name}"
  done < <(wanted_binaries)
}

go_build() {
  local module_dir="$1" logfile="$2"
  shift 2
  if ! (cd "${module_dir}" && go build -trimpath -buildvcs=false "$@") >"${logfile}" 2>&1; then
    tail -n 25 "${logfile}" >&2
    if grep -qE 'dial tcp|proxy|timeout|no such host|reading .*: (404|410)' "${logfile}"; then
      die "downloading Go modules failed (see above; full log: ${logfile})"
    fi
    die "go build failed in ${module_dir} (see above; full log: ${logfile})"
  fi
}

# Builds one binary and says how long it took, with a line every 30 s while it runs.
timed_build() {
  local name="$1" module_dir="$2" tmp="$3"
  shift 3
  local started=${SECONDS}
  log "building ${name}..."
  go_build "${module_dir}" "${tmp}/${name}.log" "$@" &
  wait_for_build control-plane "${name}" "$!" "${started}"
  log "built ${name} in $((SECONDS - started))s"
}

# Copies the Gateway API's standard CRDs from its Go module (downloaded through the module
# proxy, or found in the module cache) into the cache; a no-op once they are there.
fetch_gateway_api() {
  if compgen -G "${GATEWAY_API_DIR}/*.yaml" >/dev/null; then
    log "Gateway API ${GATEWAY_API_VERSION} CRDs cached in ${GATEWAY_API_DIR}"
    return 0
  fi
  command -v go >/dev/null || die "Go is not installed (needed to fetch the Gateway API's CRDs); install Go >= 1.26"
  local json dir
  json=$(cd "${TMPDIR:-/tmp}" && go mod download -json "sigs.k8s.io/gateway-api@${GATEWAY_API_VERSION}") ||
    die "downloading sigs.k8s.io/gateway-api@${GATEWAY_API_VERSION} failed"
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"${json}")
  [[ -d "${dir}/config/crd/standard" ]] || die "sigs.k8s.io/gateway-api@${GATEWAY_API_VERSION} has no config/crd/standard"
  local tmp
  tmp=$(mktemp -d "$(dirname "${GATEWAY_API_DIR}")/.gateway-api.XXXXXX")
  cp "${dir}"/config/crd/standard/*.yaml "${tmp}/"
  chmod u+w "${tmp}"/*.yaml
  rm -rf "${GATEWAY_API_DIR}"
  mv "${tmp}" "${GATEWAY_API_DIR}"
  log "copied the Gateway API ${GATEWAY_API_VERSION} CRDs into ${GATEWAY_API_DIR}"
}

# Builds only the binaries that are missing; each goes into the cache as soon as it is
# built, so a failure (a download, say) does not throw away the ones already done.
cmd_build() {
  mkdir -p "$(dirname "${GATEWAY_API_DIR}")"
  fetch_gateway_api
  local -a missing
  mapfile -t missing < <(missing_binaries)
  if [[ "${#missing[@]}" -eq 0 ]]; then
    log "binaries cached in $(dirname "$(binary kube-apiserver)")"
    [[ "${WORKLOADS}" != true ]] || log "kwok cached in $(dirname "$(binary kwok)")"
    return 0
  fi
  command -v go >/dev/null || die "Go is not installed (needed to build ${missing[*]}); install Go >= 1.26 or set KUBEBUILDER_ASSETS"
  mkdir -p "${BIN_DIR}"
  local started=${SECONDS}
  local minor="${K8S_VERSION#v1.}"
  minor="${minor%%.*}"
  local pkg="k8s.io/component-base/version" client="k8s.io/client-go/pkg/version"
  local -a ldflags=(
    -s -w
    "-X ${pkg}.gitVersion=${K8S_VERSION}" "-X ${pkg}.gitMajor=1" "-X ${pkg}.gitMinor=${minor}"
    "-X ${pkg}.gitTreeState=clean"
    "-X ${client}.gitVersion=${K8S_VERSION}" "-X ${client}.gitMajor=1" "-X ${client}.gitMinor=${minor}"
    "-X ${client}.gitTreeState=clean"
  )
  local versions="Kubernetes ${K8S_VERSION}, etcd ${ETCD_VERSION}"
  [[ "${WORKLOADS}" != true ]] || versions+=", kwok ${KWOK_VERSION}"
  log "building ${missing[*]} (${versions}); a cold build takes several minutes"
  local tmp
  tmp=$(mktemp -d "${BIN_DIR}/.build.XXXXXX")
  local name
  for name in "${missing[@]}"; do
    case "${name}" in
      etcd)
        timed_build etcd "${MODULES}/etcd" "${tmp}" -ldflags "-s -w" -o "${tmp}/etcd" go.etcd.io/etcd/server/v3
        ;;
      kwok)
        timed_build kwok "${MODULES}/kwok" "${tmp}" \
          -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v}" -o "${tmp}/kwok" \
          sigs.k8s.io/kwok/cmd/kwok
        ;;
      *)
        timed_build "${name}" "${MODULES}/kube" "${tmp}" -ldflags "${ldflags[*]}" -o "${tmp}/${name}" \
          "k8s.io/kubernetes/cmd/${name}"
        ;;
    esac
    mkdir -p "$(dirname "$(binary "${name}")")"
    mv -f "${tmp}/${name}" "$(binary "${name}")"
  done
  rm -rf "${tmp}"
  log "built ${missing[*]} in $((SECONDS - started))s into $(dirname "${BIN_DIR}")"
}

# --- processes --------------------------------------------------------------

pid_alive() {
  local file="${STATE_DIR}/$1.pid"
  [[ -f "${file}" ]] && kill -0 "$(cat "${file}")" 2>/dev/null
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

port_free() {
  node -e 'const s=require("net").createServer();s.once("error",()=>process.exit(1));s.listen(Number(process.argv[1]),"127.0.0.1",()=>s.close())' "$1"
}

start() {
  local name="$1"
  shift
  (close_inherited_fds && exec "$@") >"${STATE_DIR}/${name}.log" 2>&1 &
  echo "$!" >"${STATE_DIR}/${name}.pid"
}

# A daemon must not keep its caller's descriptors open (a pipe someone waits on, a lock).
close_inherited_fds() {
  local path fd
  for path in /proc/self/fd/*; do
    fd="${path##*/}"
    if ((fd > 2)); then { exec {fd}>&-; } 2>/dev/null || true; fi
  done
}

kubectl_cp() {
  "$(binary kubectl)" --kubeconfig "${STATE_DIR}/kubeconfig" "$@"
}

is_ready() {
  kubectl_cp get --raw /readyz >/dev/null 2>&1
}

fail_start() {
  local name="$1" why="$2"
  echo "error: ${why}; last lines of ${STATE_DIR}/${name}.log:" >&2
  tail -n 20 "${STATE_DIR}/${name}.log" >&2 || true
  cmd_down >/dev/null 2>&1 || true
  exit 1
}

wait_for() {
  local name="$1" what="$2" check="$3"
  local deadline=$((SECONDS + READY_TIMEOUT))
  until "${check}"; do
    pid_alive "${name}" || fail_start "${name}" "${name} exited before ${what}"
    ((SECONDS < deadline)) || fail_start "${name}" "${name} was not ${what} within ${READY_TIMEOUT}s"
    sleep 0.3
  done
}

etcd_ready() {
  node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$(cat "${STATE_DIR}/etcd.url")/health"
}

write_pki() {
  local pki="${STATE_DIR}/pki"
  mkdir -p "${pki}"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=webservice-test-ca" \
    -keyout "${pki}/ca.key" -out "${pki}/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "${pki}/server.key" -out "${pki}/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"${pki}/server.ext"
  openssl x509 -req -in "${pki}/server.csr" -CA "${pki}/ca.crt" -CAkey "${pki}/ca.key" -CAcreateserial \
    -days 3650 -extfile "${pki}/server.ext" -out "${pki}/server.crt" 2>/dev/null
  openssl genrsa -out "${pki}/sa.key" 2048 2>/dev/null
  openssl rsa -in "${pki}/sa.key" -pubout -out "${pki}/sa.pub" 2>/dev/null
  # Static tokens: the user is a cluster admin; the controller manager, the scheduler
  # and kwok have their own names so the audit policy can leave the control plane's own
  # traffic out. All are system:masters: a throwaway plane needs no finer RBAC.
  local who token
  : >"${pki}/tokens.csv"
  for who in admin:admin kcm:system:kube-controller-manager scheduler:system:kube-scheduler kwok:system:kwok; do
    token=$(openssl rand -hex 16)
    printf '%s,%s,%s-uid,system:masters\n' "${token}" "${who#*:}" "${who%%:*}" >>"${pki}/tokens.csv"
    echo "${token}" >"${pki}/${who%%:*}.token"
  done
  chmod 600 "${pki}"/*.key "${pki}/tokens.csv"
}

write_kubeconfig() {
  local file="$1" user="$2" token="$3" server="$4"
  cat >"${file}" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: webservice-test
  cluster:
    server: ${server}
    certificate-authority: ${STATE_DIR}/pki/ca.crt
users:
- name: ${user}
  user:
    token: ${token}
contexts:
- name: webservice-test
  context:
    cluster: webservice-test
    user: ${user}
current-context: webservice-test
EOF
  chmod 600 "${file}"
}

write_audit_policy() {
  # The control plane's own traffic is not what tests and benchmarks count, unless asked for.
  local quiet='"system:apiserver", "system:kube-controller-manager", "system:kube-scheduler", "system:kwok"'
  [[ "${WEBSERVICE_CP_AUDIT_SYSTEM:-false}" != true ]] || quiet='"system:apiserver"'
  cat >"${STATE_DIR}/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: [${quiet}]
- level: None
  userGroups: ["system:nodes"]
- level: Metadata
EOF
}

# Starts kube-apiserver on the plane's ports and data; used by up and restart-apiserver.
start_apiserver() {
  local api_port="$1" etcd_port="$2" data="$3"
  local pki="${STATE_DIR}/pki"
  # The audit log must never rotate (a maxsize of 0 means 100 MB): tests and the bench
  # count requests in it by byte offset. Services get a /16, room for the bench's 1000
  # workload WebServices with a ClusterIP each (a /24 is full at 254).
  start kube-apiserver "$(binary kube-apiserver)" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "${api_port}" \
    --etcd-servers "http://127.0.0.1:${etcd_port}" \
    --tls-cert-file "${pki}/server.crt" --tls-private-key-file "${pki}/server.key" \
    --client-ca-file "${pki}/ca.crt" --token-auth-file "${pki}/tokens.csv" \
    --authorization-mode RBAC \
    --service-account-issuer https://kubernetes.default.svc --service-account-key-file "${pki}/sa.pub" \
    --service-account-signing-key-file "${pki}/sa.key" --service-cluster-ip-range 10.96.0.0/16 \
    --audit-policy-file "${STATE_DIR}/audit-policy.yaml" --audit-log-path "${STATE_DIR}/audit.log" \
    --audit-log-format json --audit-log-mode blocking \
    --audit-log-maxsize 1000000 \
    --cert-dir "${data}/apiserver-certs"
}

plane_has_workloads() {
  [[ -f "${STATE_DIR}/workloads" ]]
}

# What a Deployment's pods need besides the garbage collector and namespace controllers:
# the deployment and replicaset controllers make them, the serviceaccount controller makes
# each namespace's `default` ServiceAccount (the ServiceAccount admission plugin, on by
# default, rejects pods until it exists), and the pod garbage collector deletes the pods
# of a Node that is gone, so that their ReplicaSet makes new ones elsewhere. The node
# lifecycle controller lifts the node.kubernetes.io/not-ready:NoSchedule taint that the
# TaintNodesByCondition admission plugin puts on every new Node once kwok makes it Ready
# (and taints it again if kwok stops renewing its lease), as on a real cluster. The resource
# quota controller fills in a ResourceQuota's status, without which admission enforces none.
# The EndpointSlice controller gives a Service its ready endpoints (describe shows them),
# the disruption controller a PodDisruptionBudget its healthy count and allowed evictions, and
# the horizontal-pod-autoscaler controller an HPA its conditions: with no metrics server in the
# plane it scales only into its bounds, and says it cannot get metrics.
readonly WORKLOAD_CONTROLLERS=deployment-controller,replicaset-controller,serviceaccount-controller,pod-garbage-collector-controller,node-lifecycle-controller,resourcequota-controller,endpointslice-controller,disruption-controller,horizontal-pod-autoscaler-controller

start_kcm() {
  local controllers=garbage-collector-controller,namespace-controller
  if plane_has_workloads; then controllers+=",${WORKLOAD_CONTROLLERS}"; fi
  start kube-controller-manager "$(binary kube-controller-manager)" \
    --kubeconfig "${STATE_DIR}/kcm.kubeconfig" \
    --controllers "${controllers}" \
    --leader-elect=false --secure-port 0 --use-service-account-credentials=false \
    --horizontal-pod-autoscaler-sync-period=5s
  sleep 0.5
  pid_alive kube-controller-manager || fail_start kube-controller-manager "kube-controller-manager exited at start"
}

start_scheduler() {
  start kube-scheduler "$(binary kube-scheduler)" \
    --kubeconfig "${STATE_DIR}/scheduler.kubeconfig" --leader-elect=false --secure-port 0
  sleep 0.5
  pid_alive kube-scheduler || fail_start kube-scheduler "kube-scheduler exited at start"
}

# kwok plays the kubelet of every Node (--manage-all-nodes): the stage files in the
# repository say what it does (Nodes turn Ready and keep a lease, pods turn Running and
# Ready, deleted pods go), KWOK's own and then the plane's (pods of the marker images that
# never become Ready or keep restarting). KWOK_WORKDIR keeps it from reading the user's ~/.kwok.
start_kwok() {
  local -a stages=()
  local file
  for file in "${MODULES}/kwok/stages/"*.yaml "${MODULES}/kwok-faulty-image-stages.yaml"; do
    stages+=(-c "${file}")
  done
  mkdir -p "${STATE_DIR}/kwok"
  start kwok env "KWOK_WORKDIR=${STATE_DIR}/kwok" "$(binary kwok)" \
    --kubeconfig "${STATE_DIR}/kwok.kubeconfig" --manage-all-nodes=true \
    --node-lease-duration-seconds 40 --cidr 10.244.0.0/16 "${stages[@]}"
  sleep 0.5
  pid_alive kwok || fail_start kwok "kwok exited at start"
}

# Fake Nodes, kwok's as its annotation says; no taint, so that plain Deployments
# schedule. Their status is theirs from creation: kwok keeps the capacity it finds.
create_nodes() {
  local i name
  for ((i = 1; i <= NODES; i++)); do
    name="kwok-node-${i}"
    cat <<EOF
apiVersion: v1
kind: Node
metadata:
  name: ${name}
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: ${name}
    kubernetes.io/os: linux
    kubernetes.io/role: agent
    node-role.kubernetes.io/agent: ""
    type: kwok
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "${NODE_PODS}"}
  capacity: {cpu: "32", memory: 256Gi, pods: "${NODE_PODS}"}
---
EOF
  done | kubectl_cp create -f - >/dev/null
}

# Every fake Node (at least NODES of them, in up) is Ready and free of the taints that
# keep pods off a Node that is not ready: a new Node starts with not-ready, and one whose
# lease lapsed (kwok stopped) is NotReady and unreachable until kwok is back. Other
# taints (a test's cordon, say) are the test's business.
nodes_ready() {
  local states total ready
  states=$(kubectl_cp get nodes -l type=kwok \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status} {.spec.taints[*].key}{"\n"}{end}' \
    2>/dev/null) || return 1
  total=$(grep -c . <<<"${states}" || true)
  ready=$(grep '^True' <<<"${states}" | grep -cvE 'node\.kubernetes\.io/(not-ready|unreachable)' || true)
  [[ "${total}" -ge "${NODES}" && "${ready}" -eq "${total}" ]]
}

default_service_account() {
  kubectl_cp get serviceaccount default -n default >/dev/null 2>&1
}

cmd_up() {
  if [[ "${USE_EXISTING_CLUSTER:-}" == "true" ]]; then
    log "USE_EXISTING_CLUSTER=true: using ${KUBECONFIG:-~/.kube/config}"
    return 0
  fi
  if pid_alive kube-apiserver && is_ready; then
    if [[ "${WORKLOADS}" == true ]] && ! plane_has_workloads; then
      die "the running plane ($(cat "${STATE_DIR}/server.url")) has no workloads; run down, then up --workloads"
    fi
    log "already running ($(cat "${STATE_DIR}/server.url")); reusing it"
    return 0
  fi
  cmd_down >/dev/null 2>&1 || true
  command -v openssl >/dev/null || die "openssl is needed to make the control plane's certificates"
  command -v node >/dev/null || die "node is needed to find free ports"
  cmd_build
  local started=${SECONDS}
  mkdir -p "${STATE_DIR}"
  local data
  data=$(mktemp -d "${TMPDIR:-/tmp}/webservice-cp.XXXXXX")
  echo "${data}" >"${STATE_DIR}/data.dir"
  write_pki
  write_audit_policy

  local etcd_port peer_port api_port
  etcd_port=$(free_port)
  peer_port=$(free_port)
  api_port=$(free_port)
  local port
  for port in "${etcd_port}" "${peer_port}" "${api_port}"; do
    port_free "${port}" || die "port ${port} on 127.0.0.1 is already in use; run up again"
  done
  echo "http://127.0.0.1:${etcd_port}" >"${STATE_DIR}/etcd.url"
  echo "https://127.0.0.1:${api_port}" >"${STATE_DIR}/server.url"

  start etcd "$(binary etcd)" \
    --name default --data-dir "${data}/etcd" \
    --listen-client-urls "http://127.0.0.1:${etcd_port}" --advertise-client-urls "http://127.0.0.1:${etcd_port}" \
    --listen-peer-urls "http://127.0.0.1:${peer_port}" --initial-advertise-peer-urls "http://127.0.0.1:${peer_port}" \
    --initial-cluster "default=http://127.0.0.1:${peer_port}" \
    --unsafe-no-fsync --log-level warn
  wait_for etcd "healthy" etcd_ready

  start_apiserver "${api_port}" "${etcd_port}" "${data}"
  local pki="${STATE_DIR}/pki" who user
  for who in kubeconfig:admin:admin kcm.kubeconfig:kcm:system:kube-controller-manager \
    scheduler.kubeconfig:scheduler:system:kube-scheduler kwok.kubeconfig:kwok:system:kwok; do
    user="${who#*:}"
    write_kubeconfig "${STATE_DIR}/${who%%:*}" "${user#*:}" "$(cat "${pki}/${user%%:*}.token")" \
      "https://127.0.0.1:${api_port}"
  done
  wait_for kube-apiserver "ready (/readyz)" is_ready

  if [[ "${WORKLOADS}" == true ]]; then echo true >"${STATE_DIR}/workloads"; fi
  start_kcm
  if [[ "${WORKLOADS}" == true ]]; then
    start_scheduler
    start_kwok
    create_nodes
    wait_for kwok "making ${NODES} fake Node(s) Ready and untainted" nodes_ready
    wait_for kube-controller-manager "making the default ServiceAccount" default_service_account
    log "workloads: kube-scheduler, kwok, ${NODES} fake Node(s) holding ${NODE_PODS} pods each"
  fi
  log "up in $((SECONDS - started))s: $(cat "${STATE_DIR}/server.url") ($("$(binary kube-apiserver)" --version))"
}

# Stops one process of the plane and forgets its pid; true if it was running.
stop_process() {
  local name="$1" seconds="$2" pid
  pid_alive "${name}" || { rm -f "${STATE_DIR}/${name}.pid"; return 1; }
  pid=$(cat "${STATE_DIR}/${name}.pid")
  kill "${pid}" 2>/dev/null || true
  for _ in $(seq 1 "$((seconds * 10))"); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.1; done
  kill -9 "${pid}" 2>/dev/null || true
  rm -f "${STATE_DIR}/${name}.pid"
}

start_apiserver_again() {
  local api_port etcd_port
  api_port=$(sed 's/.*://' "${STATE_DIR}/server.url")
  etcd_port=$(sed 's/.*://' "${STATE_DIR}/etcd.url")
  start_apiserver "${api_port}" "${etcd_port}" "$(cat "${STATE_DIR}/data.dir")"
  wait_for kube-apiserver "ready (/readyz)" is_ready
}

# Stops and starts kube-apiserver alone, keeping etcd, the data and the kubeconfig:
# what a controller sees when its API server restarts.
cmd_restart_apiserver() {
  pid_alive kube-apiserver || die "the control plane is not up: run scripts/control-plane.sh up"
  stop_process kube-apiserver 10 || true
  log "kube-apiserver stopped"
  start_apiserver_again
  log "kube-apiserver restarted"
}

# The components stop-component and start-component know; etcd is not one of them.
check_component() {
  local name="$1"
  [[ -f "${STATE_DIR}/server.url" ]] || die "the control plane is not up: run scripts/control-plane.sh up"
  case "${name}" in
    kube-apiserver | kube-controller-manager) ;;
    kube-scheduler | kwok) plane_has_workloads || die "${name} runs only in a plane that is up with --workloads" ;;
    *) die "no component '${name}': say kube-apiserver, kube-controller-manager, kube-scheduler or kwok" ;;
  esac
}

cmd_stop_component() {
  local name="$1"
  check_component "${name}"
  if stop_process "${name}" 10; then log "${name} stopped"; else log "${name} was not running"; fi
}

cmd_start_component() {
  local name="$1"
  check_component "${name}"
  if pid_alive "${name}"; then
    log "${name} is already running"
    return 0
  fi
  case "${name}" in
    kube-apiserver) start_apiserver_again ;;
    kube-controller-manager) start_kcm ;;
    kube-scheduler) start_scheduler ;;
    kwok)
      start_kwok
      # Its Nodes may have gone NotReady while it was away: started means they are back.
      wait_for kwok "making the fake Nodes Ready again" nodes_ready
      ;;
  esac
  log "${name} started"
}

cmd_env() {
  if [[ "${USE_EXISTING_CLUSTER:-}" == "true" ]]; then
    printf 'export KUBECONFIG=%q\n' "${KUBECONFIG:-${HOME}/.kube/config}"
    return 0
  fi
  [[ -f "${STATE_DIR}/kubeconfig" ]] || die "the control plane is not up: run scripts/control-plane.sh up"
  printf 'export KUBECONFIG=%q\n' "${STATE_DIR}/kubeconfig"
  printf 'export KUBE_AUDIT_LOG=%q\n' "${STATE_DIR}/audit.log"
  # shellcheck disable=SC2016 # $PATH is for the shell that evals this
  printf 'export PATH=%q:"$PATH"\n' "$(dirname "$(binary kubectl)")"
}

# One NAME=value a line: a reader splits at the first "=" and never evaluates the value.
cmd_vars() {
  if [[ "${USE_EXISTING_CLUSTER:-}" == "true" ]]; then
    printf 'KUBECONFIG=%s\n' "${KUBECONFIG:-${HOME}/.kube/config}"
    return 0
  fi
  [[ -f "${STATE_DIR}/kubeconfig" ]] || die "the control plane is not up: run scripts/control-plane.sh up"
  printf 'KUBECONFIG=%s\n' "${STATE_DIR}/kubeconfig"
  printf 'KUBE_AUDIT_LOG=%s\n' "${STATE_DIR}/audit.log"
  printf 'KUBECTL_DIR=%s\n' "$(dirname "$(binary kubectl)")"
  printf 'GATEWAY_API_CRDS=%s\n' "${GATEWAY_API_DIR}"
}

cmd_down() {
  [[ "${USE_EXISTING_CLUSTER:-}" == "true" ]] && return 0
  local name
  for name in "${COMPONENTS[@]}"; do
    stop_process "${name}" 5 || true
  done
  if [[ -f "${STATE_DIR}/data.dir" ]]; then
    rm -rf "$(cat "${STATE_DIR}/data.dir")"
  fi
  [[ -d "${STATE_DIR}" ]] && rm -rf "${STATE_DIR}"
  log "down"
}

cmd_status() {
  if pid_alive kube-apiserver && is_ready; then
    echo "running: $(cat "${STATE_DIR}/server.url") (kubeconfig ${STATE_DIR}/kubeconfig)"
    local -a names=(etcd kube-apiserver kube-controller-manager) states=()
    if plane_has_workloads; then names+=(kube-scheduler kwok); fi
    local name
    for name in "${names[@]}"; do
      if pid_alive "${name}"; then states+=("${name}=running"); else states+=("${name}=stopped"); fi
    done
    echo "components: ${states[*]}"
    if plane_has_workloads; then
      echo "workloads: $(kubectl_cp get nodes -l type=kwok --no-headers 2>/dev/null | wc -l) fake Node(s)"
    fi
  else
    echo "not running"
    return 1
  fi
}

usage() {
  sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

positive_integer() {
  local name="$1" value="$2"
  [[ "${value}" =~ ^[1-9][0-9]*$ ]] || die "${name} must be a whole number above 0, not '${value}'"
  echo "${value}"
}

main() {
  local verb="${1:-}"
  shift || true
  case "${WEBSERVICE_CP_WORKLOADS:-false}" in
    true) WORKLOADS=true ;;
    false | "") ;;
    *) die "WEBSERVICE_CP_WORKLOADS must be true or false, not '${WEBSERVICE_CP_WORKLOADS}'" ;;
  esac
  case "${verb}" in
    up | build)
      case "${1:-}" in
        --workloads) WORKLOADS=true; shift ;;
        "") ;;
        *) usage ;;
      esac
      ;;
  esac
  # Only up creates Nodes: a bad size must not keep down or status from working.
  if [[ "${verb}" == up && "${WORKLOADS}" == true ]]; then
    NODES=$(positive_integer WEBSERVICE_CP_NODES "${WEBSERVICE_CP_NODES:-2}")
    NODE_PODS=$(positive_integer WEBSERVICE_CP_NODE_PODS "${WEBSERVICE_CP_NODE_PODS:-110}")
  fi
  readonly WORKLOADS NODES NODE_PODS
  case "${verb}" in
    up) cmd_up ;;
    env) cmd_env ;;
    vars) cmd_vars ;;
    down) cmd_down ;;
    status) cmd_status ;;
    build) cmd_build ;;
    restart-apiserver) cmd_restart_apiserver ;;
    stop-component) [[ $# -eq 1 ]] || usage; cmd_stop_component "$1" ;;
    start-component) [[ $# -eq 1 ]] || usage; cmd_start_component "$1" ;;
    restart-component) [[ $# -eq 1 ]] || usage; cmd_stop_component "$1"; cmd_start_component "$1" ;;
    *) usage ;;
  esac
}

main "$@"
