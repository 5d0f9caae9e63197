#!/usr/bin/env bash
# Installs (if needed), starts, stops and reports a throw-away Mosquitto 2 broker on loopback, the
# real MQTT broker the connector tests and CI run against.
#
#   bash scripts/mosquitto.sh start    # prints `export MQTT_URL=...` on stdout, logs on stderr
#   bash scripts/mosquitto.sh stop
#   bash scripts/mosquitto.sh status   # exit 0 when running (and prints the export line), 3 when not
#
#   eval "$(bash scripts/mosquitto.sh start)"   # sets MQTT_URL in the calling shell
#
# Environment:
#   MOSQUITTO_DIR   config, log, pid and port files   (default /tmp/sm-mosquitto)
#   MOSQUITTO_PORT  listener port; without it the first free port from 18830 up is used
#
# Facts this relies on (Mosquitto 2.0.11 from Debian's `mosquitto` package):
# - Installing the package starts no broker here (no init system in containers); this script runs
#   its own `mosquitto -c <config> -d`, which daemonizes and writes the pid file the config names.
# - Mosquitto 2 refuses anonymous clients unless a listener is declared with
#   `allow_anonymous true`; the listener is bound to 127.0.0.1 only.
# - Run as root, mosquitto drops to the user `mosquitto` unless `user root` is configured; the
#   directory here belongs to the caller, so the broker keeps the caller's user.
set -euo pipefail

DIR="${MOSQUITTO_DIR:-/tmp/sm-mosquitto}"
READY_TIMEOUT_S=20

log() { printf 'mosquitto.sh: %s\n' "$*" >&2; }
# shellcheck source=scripts/loopback-lib.sh
source "$(dirname "$0")/loopback-lib.sh"

broker_pid() {
  [[ -f "$DIR/mosquitto.pid" ]] || return 1
  local pid
  pid=$(cat "$DIR/mosquitto.pid")
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

url_line() {
  # shellcheck source=/dev/null
  source "$DIR/port.env"
  echo "export MQTT_URL=mqtt://$HOST:$PORT"
}

install_if_missing() {
  command -v mosquitto >/dev/null && return 0
  [[ -x /usr/sbin/mosquitto ]] && return 0
  apt_install mosquitto
}

mosquitto_bin() { command -v mosquitto || echo /usr/sbin/mosquitto; }

write_config() {
  local user_line=""
  [[ $(id -u) -eq 0 ]] && user_line="user root"
  cat >"$DIR/mosquitto.conf" <<EOF
$user_line
pid_file $DIR/mosquitto.pid
persistence false
log_dest file $DIR/mosquitto.log
log_type error
log_type warning
log_type notice
listener $PORT $HOST
allow_anonymous true
max_packet_size 1048576
EOF
}

wait_ready() {
  local deadline=$((SECONDS + READY_TIMEOUT_S))
  until port_busy "$PORT"; do
    if ((SECONDS >= deadline)); then
      log "not listening after ${READY_TIMEOUT_S}s; last log lines:"; tail -n 20 "$DIR/mosquitto.log" >&2 || true
      return 1
    fi
    sleep 0.1
  done
}

cmd_start() {
  if broker_pid >/dev/null; then
    log "already running (pid $(broker_pid))"
    url_line
    return 0
  fi
  install_if_missing
  mkdir -p "$DIR"
  PORT="${MOSQUITTO_PORT:-$(free_port 18830)}"
  printf 'PORT=%s\n' "$PORT" >"$DIR/port.env"
  write_config
  rm -f "$DIR/mosquitto.pid"
  log "starting in $DIR ($HOST:$PORT)"
  "$(mosquitto_bin)" -c "$DIR/mosquitto.conf" -d >&2 || {
    log "mosquitto failed to start; last log lines:"; tail -n 20 "$DIR/mosquitto.log" >&2 || true
    return 1
  }
  wait_ready
  log "ready (pid $(broker_pid || echo '?'))"
  url_line
}

cmd_stop() {
  local pid
  if ! pid=$(broker_pid); then log "not running"; return 0; fi
  terminate "$pid" 10
  rm -f "$DIR/mosquitto.pid"
}

cmd_status() {
  local pid
  if pid=$(broker_pid); then
    log "running (pid $pid, dir $DIR)"
    url_line
  else
    log "not running (dir $DIR)"
    return 3
  fi
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
