# Helpers shared by the scripts that run a throw-away server on loopback (virtuoso.sh,
# mosquitto.sh): sourced, not run. The sourcing script defines `log` first.

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
