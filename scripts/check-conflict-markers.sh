#!/usr/bin/env bash
# Usage: scripts/check-conflict-markers.sh [REPOSITORY]     (default: this checkout)
#
# Fails, naming each FILE:LINE, when a tracked file still holds a merge-conflict marker: a
# line that starts a conflict (seven "<"), its base (seven "|") or its end (seven ">"),
# alone or followed by a space. A line of seven "=" alone is not enough, since Markdown
# underlines headings with it. npm test runs this before the tests.
set -euo pipefail

main() {
  local root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
  local found
  # git grep exits 1 when nothing matches: that is the good case.
  found=$(git -C "${root}" grep -n -I -E -e '^(<{7}|[|]{7}|>{7})( |$)' -- . || true)
  if [[ -n "${found}" ]]; then
    echo "error: merge-conflict markers in tracked files:" >&2
    echo "${found}" >&2
    return 1
  fi
}

main "$@"
