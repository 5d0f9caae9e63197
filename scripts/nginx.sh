#!/usr/bin/env bash
# Installs nginx from Debian's packages when the machine has none, and prints the binary's path:
# the reference reverse proxy the sidecar bench measures the proxy hop against. The bench runs
# its own nginx in the foreground (one process, its own config and temporary files in the
# bench's directory), so this script starts nothing.
#
#   bash scripts/nginx.sh path      # prints the nginx binary, installing `nginx-light` first if needed
#
# Exit 1 with the reason on stderr when nginx is missing and cannot be installed.
set -euo pipefail

log() { printf 'nginx.sh: %s\n' "$*" >&2; }
# shellcheck source=scripts/loopback-lib.sh
source "$(dirname "$0")/loopback-lib.sh"

nginx_bin() { command -v nginx || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; }; }

cmd_path() {
  local bin
  if ! bin=$(nginx_bin); then
    apt_install nginx-light || { log "nginx is not installed and apt-get could not install nginx-light"; return 1; }
    bin=$(nginx_bin) || { log "nginx-light installed, but no nginx binary found"; return 1; }
  fi
  echo "$bin"
}

case "${1:-}" in
  path) cmd_path ;;
  *) echo "usage: $0 path" >&2; exit 2 ;;
esac
