#!/bin/sh
# Starts Virtuoso in the foreground; on a new database runs /opt/virtuoso-opensource/initdb.d/*.sql
# and sets the dba password from DBA_PASSWORD, then marks the server ready for `isql` (the health
# check). SIGTERM is passed on so that Virtuoso checkpoints before the container stops.
set -eu
INI=/database/virtuoso.ini
INIT=/opt/virtuoso-opensource/initdb.d
rm -f /tmp/virtuoso-ready

# Sets key $2 of section $1 to $3 in $INI (appended when missing).
set_ini() {
  awk -v s="$1" -v k="$2" -v v="$3" '
    /^\[/ { if (in_section && !done) { print k " = " v; done = 1 } in_section = ($0 == "[" s "]") }
    in_section && $1 == k { print k " = " v; done = 1; next }
    { print }
    END { if (!done) { if (!in_section) print "[" s "]"; print k " = " v } }' "$INI" >"$INI.new"
  mv "$INI.new" "$INI"
}

cp /opt/virtuoso-opensource/virtuoso.ini "$INI"
env | grep '^VIRT_[A-Za-z]*_' | while IFS='=' read -r name value; do
  rest=${name#VIRT_}
  set_ini "${rest%%_*}" "${rest#*_}" "$value"
done

virtuoso-t +configfile "$INI" +foreground &
pid=$!
trap 'kill -TERM "$pid"; wait "$pid"; exit 0' TERM INT

password=dba
[ -e /database/.initialized ] && password=${DBA_PASSWORD:-dba}
until isql-vt 1111 dba "$password" exec='status();' >/dev/null 2>&1; do
  kill -0 "$pid" 2>/dev/null || { echo "virtuoso-t exited; see /database/virtuoso.log" >&2; exit 1; }
  sleep 0.5
done
if [ ! -e /database/.initialized ]; then
  for script in "$INIT"/*.sql; do
    [ -e "$script" ] || continue
    echo "initdb: $script" >&2
    isql-vt 1111 dba dba "$script" >&2
  done
  if [ "${DBA_PASSWORD:-dba}" != dba ]; then
    isql-vt 1111 dba dba exec="USER_SET_PASSWORD ('dba', '$DBA_PASSWORD');" >/dev/null
  fi
  touch /database/.initialized
fi
touch /tmp/virtuoso-ready
echo "virtuoso ready" >&2
wait "$pid"
