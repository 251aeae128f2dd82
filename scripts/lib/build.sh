# shellcheck shell=bash
# Sourced by scripts/control-plane.sh and scripts/tools.sh; not executable on its own.
# wait_for_build: waits for a build running in the background, with a line on stderr every
# 30 s while it runs (a cold build should never be silent for minutes), and returns its
# exit status.

# True once pid has exited, false if it still runs after the given seconds.
wait_up_to() {
  local seconds="$1" pid="$2" i
  for ((i = 0; i < seconds * 10; i++)); do
    kill -0 "${pid}" 2>/dev/null || return 0
    sleep 0.1
  done
  ! kill -0 "${pid}" 2>/dev/null
}

# Usage: wait_for_build PREFIX NAME PID STARTED   (STARTED: the build's start, in $SECONDS)
wait_for_build() {
  local prefix="$1" name="$2" pid="$3" started="$4"
  while ! wait_up_to 30 "${pid}"; do
    echo "${prefix}: still building ${name} ($((SECONDS - started))s so far)" >&2
  done
  wait "${pid}"
}
