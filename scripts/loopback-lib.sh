# Helpers shared by the scripts that run a throw-away server on loopback (virtuoso.sh,
# mosquitto.sh, nginx.sh): sourced, not run. The sourcing script defines `log` first.

HOST=127.0.0.1

port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# The first free port from $1 up (100 tried).
free_port() {
  local port=$1 last=$(($1 + 100))
  while ((port <= last)); do
    if ! port_busy "$port"; then echo "$port"; return 0; fi
    port=$((port + 1))
  done
  log "no free port in $1..$last"; return 1
}

# Installs Debian packages with apt-get (through sudo unless root), its output on stderr.
apt_install() {
  log "installing $* with apt-get"
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# Sends SIGTERM to pid $1 and waits up to $2 seconds for it to exit, then SIGKILL.
terminate() {
  local pid=$1 deadline=$((SECONDS + $2))
  kill -TERM "$pid"
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then log "pid $pid ignored SIGTERM; killing"; kill -KILL "$pid"; break; fi
    sleep 0.2
  done
  log "stopped (pid $pid)"
}
