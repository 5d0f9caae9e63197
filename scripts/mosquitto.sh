#!/usr/bin/env bash
# Installs (if needed), starts, stops and reports a throw-away Mosquitto 2 broker on loopback, the
# real MQTT broker the connector tests and CI run against.
#
#   bash scripts/mosquitto.sh start    # prints `export MQTT_URL=...` on stdout, logs on stderr
#   bash scripts/mosquitto.sh start --auth --tls   # the same, plus a password and/or TLS listener
#   bash scripts/mosquitto.sh stop
#   bash scripts/mosquitto.sh status   # exit 0 when running (and prints the export line), 3 when not
#
#   eval "$(bash scripts/mosquitto.sh start)"   # sets MQTT_URL in the calling shell
#
# Options of start (the anonymous listener of MQTT_URL is there either way):
#   --auth   a second listener that requires a user name and password; prints MQTT_AUTH_URL,
#            MQTT_USERNAME and MQTT_PASSWORD_FILE (a random password, first line, mode 600)
#   --tls    a TLS listener with a certificate for 127.0.0.1 and localhost issued by a CA made
#            here with openssl; prints MQTT_TLS_URL (mqtts://) and MQTT_CA_FILE. With --auth it
#            requires the password too.
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
# - `per_listener_settings true` gives each listener its own allow_anonymous and password_file.
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
  if [[ -n "${AUTH_PORT:-}" ]]; then
    echo "export MQTT_AUTH_URL=mqtt://$HOST:$AUTH_PORT MQTT_USERNAME=sm-test MQTT_PASSWORD_FILE=$DIR/auth/password"
  fi
  if [[ -n "${TLS_PORT:-}" ]]; then echo "export MQTT_TLS_URL=mqtts://$HOST:$TLS_PORT MQTT_CA_FILE=$DIR/tls/ca.crt"; fi
}

# A user `sm-test` with a random password: the broker's password file and the secret file.
make_password() {
  mkdir -p "$DIR/auth"
  (umask 077; openssl rand -hex 16 >"$DIR/auth/password")
  mosquitto_passwd -b -c "$DIR/auth/passwd" sm-test "$(head -n 1 "$DIR/auth/password")" >&2
}

# A CA and a server certificate for 127.0.0.1 and localhost signed by it (EC P-256, 2 days).
make_certificates() {
  local tls="$DIR/tls"
  mkdir -p "$tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=sm-test CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$HOST" \
    -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$tls/san.ext"
  openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial -days 2 \
    -extfile "$tls/san.ext" -out "$tls/server.crt" 2>/dev/null
  chmod 600 "$tls/ca.key" "$tls/server.key"
}

# The access lines of an extra listener: the password file with --auth, else anonymous.
access_lines() {
  if [[ -n "${AUTH_PORT:-}" ]]; then
    printf 'allow_anonymous false\npassword_file %s\n' "$DIR/auth/passwd"
  else
    printf 'allow_anonymous true\n'
  fi
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
max_packet_size 1048576
per_listener_settings true
listener $PORT $HOST
allow_anonymous true
EOF
  if [[ -n "${AUTH_PORT:-}" ]]; then
    printf 'listener %s %s\n' "$AUTH_PORT" "$HOST" >>"$DIR/mosquitto.conf"
    access_lines >>"$DIR/mosquitto.conf"
  fi
  if [[ -n "${TLS_PORT:-}" ]]; then
    printf 'listener %s %s\ncafile %s\ncertfile %s\nkeyfile %s\n' "$TLS_PORT" "$HOST" \
      "$DIR/tls/ca.crt" "$DIR/tls/server.crt" "$DIR/tls/server.key" >>"$DIR/mosquitto.conf"
    access_lines >>"$DIR/mosquitto.conf"
  fi
}

listening() {
  port_busy "$PORT" && { [[ -z "${AUTH_PORT:-}" ]] || port_busy "$AUTH_PORT"; } && { [[ -z "${TLS_PORT:-}" ]] || port_busy "$TLS_PORT"; }
}

wait_ready() {
  local deadline=$((SECONDS + READY_TIMEOUT_S))
  until listening; do
    if ((SECONDS >= deadline)); then
      log "not listening after ${READY_TIMEOUT_S}s; last log lines:"; tail -n 20 "$DIR/mosquitto.log" >&2 || true
      return 1
    fi
    sleep 0.1
  done
}

cmd_start() {
  local auth=false tls=false arg
  for arg in "$@"; do
    case "$arg" in
      --auth) auth=true ;;
      --tls) tls=true ;;
      *) log "unknown option $arg (expected --auth, --tls)"; return 2 ;;
    esac
  done
  if broker_pid >/dev/null; then
    log "already running (pid $(broker_pid))"
    url_line
    return 0
  fi
  install_if_missing
  mkdir -p "$DIR"
  PORT="${MOSQUITTO_PORT:-$(free_port 18830)}"
  AUTH_PORT="" TLS_PORT=""
  if $auth; then AUTH_PORT=$(free_port $((PORT + 1))); make_password; fi
  if $tls; then TLS_PORT=$(free_port $((${AUTH_PORT:-$PORT} + 1))); make_certificates; fi
  printf 'PORT=%s\nAUTH_PORT=%s\nTLS_PORT=%s\n' "$PORT" "$AUTH_PORT" "$TLS_PORT" >"$DIR/port.env"
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
  start) shift; cmd_start "$@" ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start [--auth] [--tls]|stop|status" >&2; exit 2 ;;
esac
