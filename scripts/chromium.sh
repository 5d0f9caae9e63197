#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is installed for the console's browser tests and prints
# its path on stdout (logs on stderr): Debian's `chromium` package, installed with apt-get when
# the binary is missing.
#
#   bash scripts/chromium.sh                       # prints e.g. /usr/bin/chromium
#   export CHROMIUM_PATH="$(bash scripts/chromium.sh)"
#
# Environment:
#   CHROMIUM_PATH   the binary to use (default /usr/bin/chromium, where Debian puts it)
#
# Facts this relies on: Debian's `chromium` runs headless with --headless --no-sandbox (root in a
# container has no user namespaces for the sandbox) and needs no display; playwright-core drives
# it through the DevTools protocol (no browser download: executablePath names this binary).
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

log() { printf 'chromium.sh: %s\n' "$*" >&2; }
# shellcheck source=scripts/loopback-lib.sh
source "$(dirname "$0")/loopback-lib.sh"

if [[ ! -x "$CHROMIUM" ]]; then
  apt_install chromium
fi
if [[ ! -x "$CHROMIUM" ]]; then
  log "no Chromium at $CHROMIUM after installing Debian's chromium"
  exit 1
fi
log "$("$CHROMIUM" --version 2>/dev/null || echo 'version unknown')"
echo "$CHROMIUM"
